import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureContainerImage } from '../helpers/container-image';
import { startDevOnFreshData } from '../helpers/dev-on-fresh-data';
import { freePort } from '../helpers/free-port';
import { runServiceCommand, startService, type FinishedCommand, type ServiceProcess } from '../helpers/service-process';
import { eventually, getJson } from '../helpers/webhooks';
import { projectRoot } from '../../src/temporal/temporal-cli-locator';
import type { SandboxSettings } from '../../src/sandbox/sandbox-settings';

/**
 * Issue 30 point 6: each command in README.md is run by a test that reads it from the README. The sandbox
 * walk-throughs run in readme-walkthroughs.test.ts; this file runs every other command a machine here can run, as
 * the README writes it, against a `service dev --sandbox` it starts (plus the flags that point a command at the
 * test's own data directory and ports), and lists, visibly, the commands it does not run and why.
 *
 * Commands are read from the whole README (code blocks and inline code), each with its section heading, so the
 * README may move text between sections. A command that no rule below claims fails the first test: a new command
 * in the README needs a run here or a reason.
 */

type Json = Record<string, any>;
const root = projectRoot();
const readmeText = readFileSync(join(root, 'README.md'), 'utf8');

interface ReadmeCommand {
  line: number;
  section: string;
  /** Without a leading `npx ` and its trailing `# comment`. */
  text: string;
}

/** Every command line of the README: `service ...`, `npm ...` and `node scripts/...`, in code blocks and inline code. */
function readmeCommands(): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  // `service` followed by a space: not a label (`service:managed`), a property (`service.repos`) or a branch.
  const isCommand = (text: string) => /^(service|npm) \S|^node scripts\//.test(text);
  let section = '';
  let fence: string | undefined;
  readmeText.split('\n').forEach((raw, index) => {
    if (raw.startsWith('```')) {
      fence = fence === undefined ? raw.slice(3).trim() : undefined;
      return;
    }
    if (fence !== undefined) {
      if (fence !== 'sh') return;
      const text = raw.replace(/\s+#.*$/, '').trim().replace(/^npx /, '');
      if (isCommand(text)) commands.push({ line: index + 1, section, text });
      return;
    }
    const heading = /^#{2,4}\s+(.*)$/.exec(raw);
    if (heading) section = heading[1]!.trim();
    for (const span of raw.matchAll(/`([^`]+)`/g)) {
      const text = span[1]!.trim().replace(/^npx /, '');
      if (isCommand(text)) commands.push({ line: index + 1, section, text });
    }
  });
  return commands;
}

/** Shell-like words: quotes keep spaces. */
function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

type Disposition =
  | { how: 'run'; by: string }
  | { how: 'elsewhere' | 'not-here' | 'not-a-command'; why: string };

/**
 * What becomes of each README command, first match wins. `run` names the test below that runs it; everything else
 * says why it is not run here. Templates (`<KEY>`, `[--json]`, `...`) are run as the concrete lines next to them.
 */
const RULES: Array<{ pattern: RegExp; disposition: Disposition }> = [
  { pattern: /^service v<version>$|^service dev is running/, disposition: { how: 'not-a-command', why: 'output the README quotes' } },
  { pattern: /^service \.\.\.$/, disposition: { how: 'not-a-command', why: 'how to call the binary' } },
  { pattern: /^service migrate <KEY>/, disposition: { how: 'not-a-command', why: 'the syntax of `service migrate`; its concrete lines in the Commands section are run here' } },
  { pattern: /^service (project-setup|test-skill)$/, disposition: { how: 'not-a-command', why: 'the command\'s name in a sentence; its lines are claimed above or below' } },
  { pattern: /^service dev --config FILE$/, disposition: { how: 'not-a-command', why: 'a flag with its placeholder (`FILE`) in the Configuration table; `service dev --help`, run here, lists it' } },
  { pattern: / \.\.\.$/, disposition: { how: 'not-a-command', why: 'a mention with its arguments left out (`...`); the command is run here with arguments' } },
  { pattern: /^service sandbox /, disposition: { how: 'elsewhere', why: 'the walk-throughs\' lines run as written in test/integration/readme-walkthroughs.test.ts; the person-command table shows the same verbs with example arguments' } },
  { pattern: /^service test-skill /, disposition: { how: 'elsewhere', why: 'the README names only the verbs; test/process/cli/test-skill-run.test.ts and test-skill-eval.test.ts run them on a skill folder with the model simulator' } },
  { pattern: /^service version$/, disposition: { how: 'run', by: 'version' } },
  { pattern: /^service dev --help$/, disposition: { how: 'run', by: 'dev --help' } },
  { pattern: /^service temporal-cli$/, disposition: { how: 'run', by: 'temporal-cli' } },
  { pattern: /^service dev$/, disposition: { how: 'run', by: 'service dev' } },
  { pattern: /^service dev --sandbox$/, disposition: { how: 'run', by: 'service dev --sandbox' } },
  { pattern: /^service (worker|gateway)$/, disposition: { how: 'run', by: 'worker and gateway' } },
  { pattern: /^service smoke-test$/, disposition: { how: 'run', by: 'smoke-test' } },
  { pattern: /^service get-config /, disposition: { how: 'run', by: 'get-config' } },
  { pattern: /^service project-setup /, disposition: { how: 'run', by: 'project-setup' } },
  { pattern: /^service definitions (publish|list)/, disposition: { how: 'run', by: 'definitions and migrate' } },
  { pattern: /^service migrate /, disposition: { how: 'run', by: 'definitions and migrate' } },
  { pattern: /^npm run build$/, disposition: { how: 'run', by: 'npm run build' } },
  { pattern: /^npm run dev( -- --sandbox)?$/, disposition: { how: 'not-here', why: 'runs scripts/dev.sh, which may run `npm ci` and rebuild dist/ in the checkout the other test files run from; `service dev` and `service dev --sandbox`, which it starts, are run here' } },
  { pattern: /^npm test( -- .*)?$/, disposition: { how: 'not-here', why: 'it is this test suite (CI runs it)' } },
  { pattern: /^npm ci$/, disposition: { how: 'not-here', why: 'reinstalls node_modules under the running suite; CI runs it first on a fresh clone' } },
  { pattern: /^node scripts\/build-if-changed\.js --force$/, disposition: { how: 'not-here', why: 'rebuilds dist/ from scratch while other test files run the built service; `npm run build`, the same script without --force, is run here' } },
  { pattern: /^npm run chaos( -- .*)?$/, disposition: { how: 'not-here', why: 'the fault campaign: many minutes of killed workers and faulted providers (chaos/); it has its own report' } },
  { pattern: /^npm run bench:/, disposition: { how: 'not-here', why: 'a benchmark of many minutes (cold and warm starts); docs/benchmarks.md has its results' } },
];

function dispositionOf(command: ReadmeCommand): Disposition | undefined {
  return RULES.find((rule) => rule.pattern.test(command.text))?.disposition;
}

/** The README commands a run below claims, by its name; the run fails when the README no longer has any. */
function commandsFor(by: string): ReadmeCommand[] {
  const found = readmeCommands().filter((command) => {
    const disposition = dispositionOf(command);
    return disposition?.how === 'run' && disposition.by === by;
  });
  if (found.length === 0) throw new Error(`README.md has no command for the run "${by}" any more: remove the run or the rule`);
  return found;
}

/** The command of `by` whose text matches `pattern` (the README's words, to run as written). */
function readmeLine(by: string, pattern: RegExp): string[] {
  const command = commandsFor(by).find((c) => pattern.test(c.text));
  if (!command) throw new Error(`README.md has no command matching ${pattern} for the run "${by}"; it has: ${commandsFor(by).map((c) => c.text).join(' | ')}`);
  return words(command.text);
}

type Ran = FinishedCommand;

/** Runs `service <args>` (README words without the leading `service`) with the test's environment. */
function runService(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 240_000): Promise<FinishedCommand> {
  return runServiceCommand(args, { TEMPORAL_CLI_PATH: inject('temporalCliPath'), ...env }, timeoutMs);
}

const service = (line: string[]) => {
  expect(line[0], `a README line starting with service: ${line.join(' ')}`).toBe('service');
  return line.slice(1);
};
/** A command's own words, with the README's templates filled: `<PROJECT>` SBX, `<KEY>` SBX-1, optional parts dropped. */
const filled = (line: string[], values: Record<string, string>) => line
  .filter((word) => !/^\[.*\]$/.test(word) && !word.startsWith('[') && !word.endsWith(']'))
  .map((word) => values[word] ?? word);
const noStackTrace = (ran: Ran) => expect(`${ran.stdout}\n${ran.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
const explain = (ran: Ran) => `exit ${ran.code}\nstdout:\n${ran.stdout.slice(-3000)}\nstderr:\n${ran.stderr.slice(-3000)}`;

interface Sandbox { dev: ServiceProcess; dataDir: string; api: string; temporal: string; settings: SandboxSettings; stacksFile: string }

async function startDev(name: string, readmeWords: string[], sandbox: boolean): Promise<{ dev: ServiceProcess; dataDir: string; ports: Record<string, number>; stacksFile: string }> {
  const { dev, dataDir, ports, stacksFile } = await startDevOnFreshData(`readme-commands-${name}`, service(readmeWords), inject('temporalCliPath'));
  if (sandbox) expect(existsSync(join(dataDir, 'sandbox', 'sandbox.json'))).toBe(true);
  return { dev, dataDir, ports, stacksFile };
}

async function stopDev(dev: ServiceProcess | undefined, dataDir: string | undefined): Promise<number | string | undefined> {
  try {
    return await dev?.stop('SIGINT', 60_000);
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('README commands outside the walk-throughs, each run as written', () => {
  let sandbox: Sandbox | undefined;
  const files = mkdtempSync(join(tmpdir(), 'readme-commands-files-'));
  /** The commands run as written, without --data-dir: they find the stack through its list of running stacks. */
  const beside = () => ({ SERVICE_STACKS_FILE: sandbox!.stacksFile });

  it('claims every command of the README: run here, run elsewhere, or not run here with the reason', () => {
    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThan(20);
    // The sections that stay in the README have their commands.
    for (const section of ['The two commands', 'Commands', 'Configuration']) {
      expect(commands.some((command) => command.section === section), `README section "${section}" with commands`).toBe(true);
    }
    const unclaimed = commands.filter((command) => !dispositionOf(command)).map((c) => `README line ${c.line} (${c.section}): ${c.text}`);
    expect(unclaimed, 'README commands no rule of this test claims').toEqual([]);
    const notRun = [...new Map(commands.map((c) => [c.text, c])).values()]
      .map((c) => ({ c, d: dispositionOf(c)! }))
      .filter(({ d }) => d.how !== 'run')
      .map(({ c, d }) => `  ${c.text}  [${d.how}] ${'why' in d ? d.why : ''}`);
    console.log(`README commands not run by this file:\n${notRun.join('\n')}`);
  });

  it('service version, service dev --help and service temporal-cli', async () => {
    const version = await runService(service(readmeLine('version', /^service version$/)));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(version.code, explain(version)).toBe(0);
    expect(version.stdout.trim()).toBe(`service v${pkg.version}`);

    const help = await runService(service(readmeLine('dev --help', /^service dev --help$/)));
    expect(help.code, explain(help)).toBe(0);
    // The overrides the README says `service dev --help` lists.
    for (const flag of ['--data-dir', '--temporal-port', '--ui-port', '--gateway-port', '--metrics-port', '--gateway-metrics-port', '--headless', '--config']) expect(help.stdout).toContain(flag);

    const cli = await runService(service(readmeLine('temporal-cli', /^service temporal-cli$/)));
    expect(cli.code, explain(cli)).toBe(0);
    expect(existsSync(cli.stdout.trim().split('\n').at(-1)!)).toBe(true);
  });

  it('npm run build: builds only what changed', async () => {
    const [npm, ...args] = readmeLine('npm run build', /^npm run build$/);
    const ran = await new Promise<Ran>((resolve) => {
      const child = spawn(npm!, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      child.once('exit', (code, signal) => resolve({ code: code ?? signal ?? 'unknown', stdout, stderr }));
    });
    expect(ran.code, explain(ran)).toBe(0);
    expect(`${ran.stdout}\n${ran.stderr}`).toMatch(/^build: (up to date|compiling|done)/m);
  }, 300_000);

  it('service dev: the dev server, worker and gateway on a data directory of its own, stopped by Ctrl-C', async () => {
    const started = await startDev('plain', readmeLine('service dev', /^service dev$/), false);
    try {
      expect((await getJson(`http://127.0.0.1:${started.ports.gateway}/api/v1/health/live`)).status).toBe(200);
      // The webhook secrets it made up are kept in the data directory, as the README says.
      expect(existsSync(join(started.dataDir, 'webhook-secrets.json'))).toBe(true);
    } finally {
      expect(await stopDev(started.dev, started.dataDir)).toBe(0);
    }
  }, 300_000);

  describe('beside a running `service dev --sandbox`', () => {
    beforeAll(async () => {
      // The smoke test runs a container of the task image.
      ensureContainerImage();
      const started = await startDev('sandbox', readmeLine('service dev --sandbox', /^service dev --sandbox$/), true);
      const settings = JSON.parse(readFileSync(join(started.dataDir, 'sandbox', 'sandbox.json'), 'utf8')) as SandboxSettings;
      sandbox = { dev: started.dev, dataDir: started.dataDir, api: `http://127.0.0.1:${started.ports.gateway}`, temporal: `127.0.0.1:${started.ports.temporal}`, settings, stacksFile: started.stacksFile };
    }, 900_000);

    afterAll(async () => {
      const running = sandbox;
      sandbox = undefined;
      await stopDev(running?.dev, running?.dataDir);
      rmSync(files, { recursive: true, force: true });
    }, 120_000);

    it('service get-config <PROJECT> --models [--json]: all 27 policy keys, from the running sandbox\'s configuration', async () => {
      for (const command of commandsFor('get-config')) {
        const args = filled(service(words(command.text)), { '<PROJECT>': 'SBX' });
        const text = await runService(args, beside());
        expect(text.code, `${command.text}\n${explain(text)}`).toBe(0);
        expect(text.stdout, command.text).toMatch(/generate_prd/);
        expect(text.stdout, command.text).toMatch(/update_docs/);
        noStackTrace(text);
      }
      const json = await runService([...filled(service(readmeLine('get-config', /--models/)), { '<PROJECT>': 'SBX' }), '--json'], beside());
      expect(json.code, explain(json)).toBe(0);
      expect(JSON.stringify(JSON.parse(json.stdout))).toContain('implement_work');
    });

    it('service project-setup <PROJECT> [options]: writes a project property through the sandbox tracker', async () => {
      const line = readmeLine('project-setup', /^service project-setup <PROJECT>/);
      // The row's first option, with the sandbox's repository.
      const args = [...filled(service(line), { '<PROJECT>': 'SBX' }), '--default-repo', 'sandbox/app', '--json'];
      const ran = await runService(args, {
        TRACKER_BASE_URL: sandbox!.settings.urls.tracker,
        TRACKER_USER_EMAIL: 'service@sandbox.local',
        TRACKER_API_TOKEN: sandbox!.settings.secrets.TRACKER_API_TOKEN,
      });
      expect(ran.code, explain(ran)).toBe(0);
      expect(JSON.parse(ran.stdout)).toMatchObject({ project: 'SBX' });
    });

    it('service definitions publish docs/examples/feature-r3.json (and FILE) and list, then service migrate SBX-1 --to 3 (dry run) and --apply', async () => {
      // SBX-1 starts on the built-in feature r2 and waits at its PRD gate (the sandbox's model writes the PRD).
      const created = await runService(['sandbox', 'create-ticket', 'Export reports as CSV'], beside());
      expect(created.code, explain(created)).toBe(0);
      const token = sandbox!.settings.secrets.SERVICE_OPERATOR_TOKEN;
      await eventually(async () => {
        const view = (await getJson(`${sandbox!.api}/api/v1/workflows/SBX-1/execution`, token)).body as Json;
        return view.current_position === 'prd_approval_gate' && view.definition?.revision === 2 ? view : undefined;
      }, 180_000, 'SBX-1 waiting at prd_approval_gate of r2');

      const shipped = await runService(service(readmeLine('definitions and migrate', /^service definitions publish docs\/examples\/feature-r3\.json$/)), beside());
      expect(shipped.code, explain(shipped)).toBe(0);
      expect(shipped.stdout).toMatch(/^published feature r3 /m);
      expect(shipped.stderr).toContain(`using the stack of ${sandbox!.dataDir} (Temporal ${sandbox!.temporal}, gateway :`);
      // The table's template with the same file: already published, nothing changed.
      const publish = filled(service(readmeLine('definitions and migrate', /^service definitions publish FILE/)), {});
      const again = await runService(publish.map((w) => (w === 'FILE' ? join(root, 'docs', 'examples', 'feature-r3.json') : w)), beside());
      expect(again.code, explain(again)).toBe(0);
      expect(again.stdout).toContain('already published');
      const list = await runService([...filled(service(readmeLine('definitions and migrate', /^service definitions list/)), {}), '--json'], beside());
      expect(list.code, explain(list)).toBe(0);
      expect(list.stdout).toMatch(/"revision":\s*3/);

      const dryRun = await runService(service(readmeLine('definitions and migrate', /^service migrate SBX-1 --to 3$/)), beside());
      expect(dryRun.code, explain(dryRun)).toBe(0);
      expect(dryRun.stdout).toContain('SBX-1: feature r2 → r3: eligible (prd_approval_gate → prd_approval_gate); nothing changed.');
      noStackTrace(dryRun);
      const apply = await runService(service(readmeLine('definitions and migrate', /^service migrate SBX-1 --to 3 --apply$/)), beside());
      expect(apply.code, explain(apply)).toBe(0);
      expect(apply.stdout).toContain('SBX-1: feature r2 → r3: migrated; the ticket now stands at prd_approval_gate on r3');
      await eventually(async () => {
        const view = (await getJson(`${sandbox!.api}/api/v1/workflows/SBX-1/execution`, token)).body as Json;
        return view.definition?.revision === 3 ? view : undefined;
      }, 60_000, 'SBX-1 on r3');
    }, 600_000);

    it('service smoke-test: one line per step, exit 0', async () => {
      const ran = await runService(service(readmeLine('smoke-test', /^service smoke-test$/)), beside(), 600_000);
      expect(ran.code, explain(ran)).toBe(0);
      expect(ran.stdout.trim().split('\n').length).toBeGreaterThan(2);
    }, 660_000);

    it('service worker and service gateway: start against the sandbox\'s Temporal, ready, stopped by SIGTERM', async () => {
      const env = {
        TEMPORAL_ADDRESS: sandbox!.temporal,
        SERVICE_TASK_QUEUE: 'it-readme-commands-beside',
        SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
        SERVICE_WORKER_METRICS_PORT: String(await freePort()),
        SERVICE_GATEWAY_HOST: '127.0.0.1',
        SERVICE_GATEWAY_PORT: String(await freePort()),
        TRACKER_WEBHOOK_SECRET: sandbox!.settings.secrets.TRACKER_WEBHOOK_SECRET,
        SCMHOST_WEBHOOK_SECRET: sandbox!.settings.secrets.SCMHOST_WEBHOOK_SECRET,
        SERVICE_POLL_INTERVAL_SECONDS: '0',
        CONTAINER_WORK_DIR: join(sandbox!.dataDir, 'workspaces-beside'),
      };
      const worker = startService(service(readmeLine('worker and gateway', /^service worker$/)), env);
      const gateway = startService(service(readmeLine('worker and gateway', /^service gateway$/)), env);
      try {
        await eventually(async () => ((await getJson(`http://127.0.0.1:${env.SERVICE_WORKER_METRICS_PORT}/health/ready`).catch(() => ({ status: 0 }))).status === 200 ? true : undefined), 120_000, `the worker ready:\n${worker.output()}`);
        await eventually(async () => ((await getJson(`http://127.0.0.1:${env.SERVICE_GATEWAY_PORT}/api/v1/health/ready`).catch(() => ({ status: 0 }))).status === 200 ? true : undefined), 120_000, `the gateway ready:\n${gateway.output()}`);
      } finally {
        const [w, g] = await Promise.all([worker.stop('SIGTERM', 60_000), gateway.stop('SIGTERM', 60_000)]);
        expect({ worker: w, gateway: g }, `worker:\n${worker.output().slice(-2000)}\ngateway:\n${gateway.output().slice(-2000)}`).toEqual({ worker: 0, gateway: 0 });
      }
    }, 300_000);
  });
});
