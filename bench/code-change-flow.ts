/**
 * bench/code-change-flow: wall time and model cost of every station of the code-change flow, on this machine, offline:
 * the tracker and GitHub simulators with real git, rootless podman for the container stations, the model simulator
 * (so tokens are the simulator's estimates: about four characters a token), and the real worker and gateway on a
 * fresh Temporal dev server. A Feature ticket with `service:yolo` runs from creation to the human review gate with
 * one pull request per repository; then CI fails once, is fixed, and the pull requests are approved and merged.
 *
 *   npm run bench:code-change -- [--repositories 2] [--usd-per-mtok-in 3] [--usd-per-mtok-out 15]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../src/temporal/dev-stack-config';
import { ensureTemporalCli, projectRoot } from '../src/temporal/temporal-cli-locator';
import { startCodeChangeWorld } from '../test/helpers/code-change-world';
import { freePort } from '../test/helpers/free-port';

function arg(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number ≥ 0`);
  return value;
}

interface Attempt { node: string; station: string; visit: number; started_at: string; finished_at: string | null; status: string; usage: { input_tokens: number; output_tokens: number } | null }

async function main(): Promise<void> {
  const count = arg('repositories', 2);
  const priceIn = arg('usd-per-mtok-in', 3);
  const priceOut = arg('usd-per-mtok-out', 15);
  const repositories = Array.from({ length: count }, (_, i) => `acme/repo${i + 1}`);
  const root = projectRoot();
  const cli = await ensureTemporalCli();
  const dataDir = mkdtempSync(join(tmpdir(), 'service-bench-code-change-'));
  const plan = planDevServer(parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8')), root, { dataDir, port: await freePort(), headless: true });
  const server = await startDevServer(cli, plan);
  const world = await startCodeChangeWorld(plan.address, { repositories, taskQueue: 'bench-code-change', env: { LOG_LEVEL: 'ERROR' } });
  const started = Date.now();
  try {
    const key = world.tracker.state.createIssue({ projectKey: 'FD', issueType: 'Feature', summary: 'Benchmark feature', labels: ['service:managed', 'service:yolo'] }).key;
    await world.at(key, 'human_review_gate', 'the human review gate', () => true, 1_800_000);
    const toReview = Date.now() - started;
    world.person.check(repositories[0]!, key, 'build', 'failure', 'test failed: expected 2, got 3');
    await world.at(key, 'human_review_gate', 'the CI fix', (v) => (v.station_attempts as Attempt[]).some((a) => a.station === 'attempt_ci_fix' && a.status === 'succeeded'), 1_800_000);
    for (const repository of repositories) world.person.check(repository, key, 'build', 'success');
    for (const repository of repositories) world.person.review(repository, key, 'APPROVED', 'Looks good.');
    for (const repository of repositories) world.person.merge(repository, key);
    await world.at(key, 'done', 'completion', () => true, 600_000);
    const total = Date.now() - started;

    const view = await world.execution(key);
    const attempts = view.station_attempts as Attempt[];
    const rows = attempts.map((a) => {
      const ms = a.finished_at ? Date.parse(a.finished_at) - Date.parse(a.started_at) : NaN;
      const input = a.usage?.input_tokens ?? 0;
      const output = a.usage?.output_tokens ?? 0;
      return { station: `${a.station}${a.visit > 1 ? ` #${a.visit}` : ''}`, status: a.status, ms, input, output, usd: (input * priceIn + output * priceOut) / 1e6 };
    });
    console.log(`code-change flow benchmark: ${count} repositories, ${rows.length} station attempts, ticket ${key}`);
    console.log(`${'station'.padEnd(28)} ${'status'.padEnd(10)} ${'wall ms'.padStart(8)} ${'tokens in'.padStart(10)} ${'tokens out'.padStart(10)} ${'usd'.padStart(8)}`);
    for (const row of rows) {
      console.log(`${row.station.padEnd(28)} ${row.status.padEnd(10)} ${String(row.ms).padStart(8)} ${String(row.input).padStart(10)} ${String(row.output).padStart(10)} ${row.usd.toFixed(4).padStart(8)}`);
    }
    const sum = (pick: (row: (typeof rows)[number]) => number) => rows.reduce((acc, row) => acc + (Number.isFinite(pick(row)) ? pick(row) : 0), 0);
    console.log(`stations ${sum((r) => r.ms)} ms of ${total} ms wall (to the review gate ${toReview} ms); tokens ${sum((r) => r.input)} in, ${sum((r) => r.output)} out; ${sum((r) => r.usd).toFixed(4)} USD at ${priceIn}/${priceOut} USD per million tokens (simulated model: token counts are estimates)`);
  } finally {
    await world.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
