import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';

/**
 * The agent as one self-contained CommonJS file, so the container needs node and nothing from node_modules.
 * `npm run build` writes it to dist/agent/agent.cjs; when that is missing or older than the sources (tests, dev),
 * it is bundled here with esbuild (a dev dependency) into a cache named by the hash of the sources.
 */
function projectRoot(): string {
  for (const candidate of [resolve(__dirname, '..', '..'), resolve(__dirname, '..', '..', '..')]) {
    if (existsSync(join(candidate, 'package.json')) && existsSync(join(candidate, 'src', 'agent'))) return candidate;
  }
  return resolve(__dirname, '..', '..', '..');
}

function sourcesHash(root: string): string {
  const hash = createHash('sha256');
  for (const dir of ['src/agent', 'src/redaction']) {
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (name.endsWith('.ts')) hash.update(name).update(readFileSync(join(root, dir, name)));
    }
  }
  hash.update(readFileSync(join(root, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

export async function bundleAgent(outFile: string, root = projectRoot()): Promise<void> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(root, 'src', 'agent', 'agent-main.ts')],
    bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: outFile, logLevel: 'error', legalComments: 'none',
  });
}

/** The path of an up-to-date agent bundle, building one when needed. */
export async function agentBundlePath(root = projectRoot()): Promise<string> {
  const built = join(root, 'dist', 'agent', 'agent.cjs');
  const hasSources = existsSync(join(root, 'src', 'agent', 'agent-main.ts'));
  if (!hasSources) {
    if (existsSync(built)) return built;
    throw new Error(`no agent bundle at ${built}: run npm run build`);
  }
  if (existsSync(built) && statSync(built).mtimeMs > newestSource(root)) return built;
  const cacheDir = join(root, '.data', 'agent-bundle');
  const cached = join(cacheDir, `agent-${sourcesHash(root)}.cjs`);
  if (!existsSync(cached)) {
    mkdirSync(cacheDir, { recursive: true });
    const temporary = `${cached}.${process.pid}.tmp`;
    await bundleAgent(temporary, root);
    renameSync(temporary, cached);
  }
  return cached;
}

function newestSource(root: string): number {
  let newest = 0;
  for (const dir of ['src/agent', 'src/redaction']) {
    for (const name of readdirSync(join(root, dir))) newest = Math.max(newest, statSync(join(root, dir, name)).mtimeMs);
  }
  return newest;
}

if (require.main === module) {
  // `node dist/src/agent/bundle-agent.js <out>`: used by npm run build.
  const out = process.argv[2] ?? join(projectRoot(), 'dist', 'agent', 'agent.cjs');
  // Like the rest of the build: nothing to do when the bundle is newer than every source it is made of.
  if (existsSync(out) && statSync(out).mtimeMs > Math.max(newestSource(projectRoot()), statSync(join(projectRoot(), 'package-lock.json')).mtimeMs)) process.exit(0);
  bundleAgent(out).then(() => process.stdout.write(`agent bundled into ${out}\n`), (error: unknown) => {
    process.stderr.write(`bundling the agent failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
