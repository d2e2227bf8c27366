/**
 * How long `npm run dev` takes to be ready, the way a user meets it: cold (no build yet, a new data directory) and
 * warm (an unchanged tree, the same data directory again). It runs scripts/dev.sh itself, headless on free ports,
 * and stops each start with Ctrl-C (SIGINT) once the banner is printed.
 *
 *   npm run bench:start-time                 # cold, then warm twice
 *   npm run bench:start-time -- --warm-only  # leaves dist/ alone
 *
 * Cold deletes dist/ first (a fresh clone has none). npm packages and the Temporal CLI are not part of the figure:
 * `npm ci` is a one-off, and the CLI is found (TEMPORAL_CLI_PATH, PATH, .tools/bin) or built once with Go, which
 * takes minutes and is reported by the first start itself.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../test/helpers/free-port';

const root = resolve(__dirname, '..', '..');

interface StartResult {
  label: string;
  /** Wall time from spawning scripts/dev.sh to the banner. */
  seconds: number;
  /** What scripts/build-if-changed.js said. */
  build: string;
}

async function timeStart(label: string, dataDir: string): Promise<StartResult> {
  const [temporal, gateway, metrics] = [await freePort(), await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(join(root, 'scripts', 'dev.sh'), ['--headless', '--data-dir', dataDir, '--temporal-port', String(temporal)], {
    cwd: root,
    env: { SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'true', ...process.env, SERVICE_GATEWAY_HOST: '127.0.0.1', SERVICE_GATEWAY_PORT: String(gateway), SERVICE_WORKER_METRICS_HOST: '127.0.0.1', SERVICE_WORKER_METRICS_PORT: String(metrics) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')));
  const ready = new Promise<number>((done, fail) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl-C to stop')) done(performance.now());
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    void exited.then((code) => fail(new Error(`scripts/dev.sh exited (${code}) before it was ready:\n${output}`)));
  });
  const readyAt = await ready;
  child.kill('SIGINT');
  const code = await exited;
  if (code !== 0) throw new Error(`scripts/dev.sh did not stop cleanly (${code}):\n${output}`);
  const build = output.split('\n').filter((line) => line.startsWith('build: ')).join('; ');
  return { label, seconds: (readyAt - started) / 1000, build };
}

async function main(): Promise<void> {
  const warmOnly = process.argv.includes('--warm-only');
  const dataDir = mkdtempSync(join(tmpdir(), 'service-start-time-'));
  const results: StartResult[] = [];
  try {
    if (!warmOnly) {
      rmSync(join(root, 'dist'), { recursive: true, force: true });
      results.push(await timeStart('cold (no dist/, new data directory)', dataDir));
    }
    for (let run = 1; run <= 2; run++) results.push(await timeStart(`warm #${run} (unchanged tree, same data directory)`, dataDir));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log('\nnpm run dev: time to ready');
  for (const result of results) console.log(`  ${result.label.padEnd(52)} ${result.seconds.toFixed(1).padStart(6)} s   ${result.build}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
