import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODEL_BACKENDS, parseModelConfiguration } from '../../../src/config/model-configuration';

/**
 * Issue 29 point 5: every environment variable and file the code reads is documented in docs/configuration.md (its
 * default and meaning) and named in README.md's Configuration section, with a working example per model backend. The variables are found in the code itself (what `env.NAME`,
 * `env['NAME']`, an upper-case name in quotes, and `$NAME` in a shell script read), so a variable added without a
 * line in the README fails here by name.
 */
const root = join(__dirname, '..', '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const reference = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');

/** The text of a `## <title>` section up to the next `## ` heading, whatever moves around it. */
function section(title: string): string {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^##\\s+${title}\\s*$`).test(line));
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const end = lines.findIndex((line, n) => n > start && /^##\s/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

const SOURCE_FOLDERS = ['src', 'activities', 'workflows', 'bin', 'scripts'];
const SOURCE_FILE = /\.(ts|js|mjs|cjs|sh)$/;

function sourceFiles(folder: string): string[] {
  const path = join(root, folder);
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => SOURCE_FILE.test(name) && !name.includes('node_modules'))
    .map((name) => join(path, name));
}

/** Every name the code reads from the environment, with the first file it appears in. */
function variablesReadByTheCode(): Map<string, string> {
  const found = new Map<string, string>();
  const note = (name: string, file: string) => {
    if (!found.has(name)) found.set(name, relative(root, file));
  };
  for (const file of SOURCE_FOLDERS.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/[eE]nv\??\.([A-Z][A-Z0-9_]+)\b/g)) note(m[1]!, file);
    for (const m of text.matchAll(/[eE]nv\[\s*['"`]([A-Z][A-Z0-9_]+)['"`]\s*\]/g)) note(m[1]!, file);
    // Names handed to a reader (`r.list('SCMHOST_FORK_REPOS')`, `const X_ENV = 'NAME'`).
    for (const m of text.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g)) note(m[1]!, file);
    if (file.endsWith('.sh')) for (const m of text.matchAll(/\$\{?([A-Z][A-Z0-9_]+)/g)) note(m[1]!, file);
  }
  return found;
}

/**
 * Names the scan finds that are not configuration, each with the reason. Kept short and visible: an entry whose name
 * the code no longer has fails the last test, so the list cannot hide a variable that came back.
 */
const NOT_CONFIGURATION: Record<string, string> = {
  HOME: 'the system\'s (the podman account\'s home)',
  PATH: 'the system\'s',
  USER: 'the system\'s',
  TMPDIR: 'the system\'s',
  XDG_RUNTIME_DIR: 'the system\'s (the podman account\'s runtime folder)',
  NODE_OPTIONS: 'Node.js\'s own; the README names it where it matters (SERVICE_WORKER_HEAP_GROWING_PERCENT)',
  SECONDS: 'a bash variable (scripts time themselves)',
  PIPESTATUS: 'a bash variable',
  SERVICE_DEV_STARTED_AT: 'set by scripts/dev.sh for `service dev`\'s "ready in" line; nobody sets it by hand',
  SERVICE_WORKSPACE: 'set by the worker for the agent inside the container',
  SERVICE_CHAOS_PLAIN_PROCESS_AGENT: 'set only by the fault campaign\'s light mode (chaos/); a deployment must never set it',
  SANDBOX_GITLAB_TOKEN: 'set by `service dev --sandbox`: the credential_env of the GitLab connection in the registry it writes',
  SANDBOX_GITLAB_WEBHOOK_SECRET: 'set by `service dev --sandbox`: the webhook_secret_env of that connection',
  CHANGES_REQUESTED: 'a GitHub review state',
  REQUEST_CHANGES: 'a GitHub review event',
  EAI_AGAIN: 'a DNS error code',
  AUTO_UPGRADE: 'a Temporal versioning behaviour',
  USE_EXISTING: 'a Temporal workflow-id conflict policy',
  CONTINUED_AS_NEW: 'a Temporal workflow execution status',
};

/** Every upper-case name written in code spans or code blocks of a text. */
function namesIn(text: string): Set<string> {
  return new Set([
    ...[...text.matchAll(/`([^`\n]+)`/g)].flatMap((m) => [...m[1]!.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b/g)].map((n) => n[0])),
    ...[...text.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!),
  ]);
}

describe('docs/configuration.md documents what the code reads, and README "Configuration" names it', () => {
  const configuration = reference;
  const documented = namesIn(reference);
  const named = namesIn(section('Configuration'));
  const read = variablesReadByTheCode();

  it('finds the variables the code reads', () => {
    expect(read.size).toBeGreaterThan(80);
    expect(read.get('SCMHOST_FORK_REPOS')).toBeDefined();
    expect(read.get('ANTHROPIC_API_KEY')).toBeDefined();
  });

  it('has a line for every variable the code reads', () => {
    const missing = [...read].filter(([name]) => !documented.has(name) && !(name in NOT_CONFIGURATION)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing, 'variables the code reads that docs/configuration.md does not document').toEqual([]);
    const unnamed = [...read].filter(([name]) => !named.has(name) && !(name in NOT_CONFIGURATION)).map(([name, file]) => `${name} (read in ${file})`);
    expect(unnamed, 'variables the code reads that README "## Configuration" does not name').toEqual([]);
  });

  it('names the files the service reads its configuration from', () => {
    // Each file with the module that reads it, so the list follows the code.
    const files: Array<[name: string, module: string]> = [
      ['mcp-servers.json', 'src/config/mcp-servers.ts'],
      ['SERVICE_REPOS_CONFIG_PATH', 'src/config/repository-registry.ts'],
      ['temporal-dev.yaml', 'src/temporal/dev-stack-config.ts'],
      ['webhook-secrets.json', 'src/config/dev-webhook-secrets.ts'],
      ['service-dev.json', 'src/temporal/running-dev.ts'],
    ];
    const problems: string[] = [];
    for (const [name, module] of files) {
      if (!readFileSync(join(root, module), 'utf8').includes(name)) problems.push(`${module} no longer mentions ${name}: update this list`);
      if (!configuration.includes(name)) problems.push(`docs/configuration.md does not name ${name}`);
    }
    expect(problems).toEqual([]);
  });

  it('shows a working example per model backend', () => {
    const examples = [...configuration.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    for (const backend of MODEL_BACKENDS) {
      const example = examples.find((block) => block.includes(`"backend":"${backend}"`));
      expect(example, `an example of the ${backend} backend`).toBeDefined();
      // Its assignments, as a shell would set them; `...` placeholders stand for real secrets.
      const env: Record<string, string> = {};
      for (const m of example!.matchAll(/^([A-Z][A-Z0-9_]+)=('([^']*)'|(\S+))/gm)) env[m[1]!] = m[3] ?? m[4]!;
      const result = parseModelConfiguration(env);
      expect(result.problems, `the ${backend} example`).toEqual([]);
      expect(result.config?.mode).toBe('connections');
    }
  });

  it('lists as "not configuration" only names the code still has', () => {
    const stale = Object.keys(NOT_CONFIGURATION).filter((name) => !read.has(name));
    expect(stale).toEqual([]);
  });
});
