/**
 * bench/ingest: signed tracker webhooks over loopback into many distinct tickets against a real Temporal dev server,
 * a real worker and the real gateway (child processes, as in production). Prints acknowledgements per second and
 * p50/p99 acknowledgement latency, then verifies that every delivery reached its ticket's workflow.
 *
 *   npm run bench:ingest -- [--tickets 200] [--comments 4] [--concurrency 32]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../src/temporal/dev-stack-config';
import { ensureTemporalCli, projectRoot } from '../src/temporal/temporal-cli-locator';

const SECRET = 'bench-secret';
const TOKEN = 'bench-operator-token';

function arg(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number`);
  return value;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function startProcess(root: string, command: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), command], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`service ${command} exited (${code}): ${output}`)));
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function payloadFor(key: string, index: number, commentId?: number): Record<string, unknown> {
  const issue = { id: String(50_000 + index), key, fields: { summary: `Bench ${key}`, labels: ['service:managed'], issuetype: { name: 'Feature' }, project: { key: 'BEN' }, created: '2026-11-23T07:00:00.000+0000', updated: '2026-11-23T07:00:00.000+0000' } };
  if (commentId === undefined) return { webhookEvent: 'jira:issue_created', timestamp: Date.now(), issue };
  return {
    webhookEvent: 'comment_created',
    issue,
    comment: { id: String(commentId), body: `comment ${commentId} on ${key}`, author: { emailAddress: 'bench@example.com' }, created: '2026-11-23T07:10:00.000+0000', updated: '2026-11-23T07:10:00.000+0000' },
  };
}

async function main(): Promise<void> {
  const tickets = arg('tickets', 200);
  const comments = arg('comments', 4);
  const concurrency = arg('concurrency', 32);
  const root = projectRoot();
  const cli = await ensureTemporalCli();
  const dataDir = mkdtempSync(join(tmpdir(), 'service-bench-'));
  const plan = planDevServer(parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8')), root, { dataDir, port: await freePort(), headless: true });
  const server = await startDevServer(cli, plan);
  const gatewayPort = await freePort();
  const env = {
    TEMPORAL_ADDRESS: plan.address, SERVICE_TASK_QUEUE: 'bench-ingest', TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_OPERATOR_TOKEN: TOKEN,
    SERVICE_GATEWAY_HOST: '127.0.0.1', SERVICE_GATEWAY_PORT: String(gatewayPort), SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
    SERVICE_WORKER_METRICS_PORT: String(await freePort()), SERVICE_POLL_INTERVAL_SECONDS: '0', LOG_LEVEL: 'ERROR',
  };
  const [worker, gateway] = await Promise.all([
    startProcess(root, 'worker', env, /worker polling task queue/),
    startProcess(root, 'gateway', env, /gateway listening on/),
  ]);
  const api = `http://127.0.0.1:${gatewayPort}`;
  try {
    // Creations first (each starts a workflow), then comments: the mix a tracker produces.
    const creations = Array.from({ length: tickets }, (_, i) => ({ key: `BEN-${i + 1}`, body: JSON.stringify(payloadFor(`BEN-${i + 1}`, i)) }));
    const commentJobs = Array.from({ length: tickets * comments }, (_, j) => {
      const i = j % tickets;
      return { key: `BEN-${i + 1}`, body: JSON.stringify(payloadFor(`BEN-${i + 1}`, i, 900_000 + j)) };
    });
    const latencies: number[] = [];
    let failures = 0;
    const send = async (jobs: Array<{ key: string; body: string }>) => {
      let next = 0;
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < jobs.length) {
          const job = jobs[next++]!;
          const started = performance.now();
          const response = await fetch(`${api}/api/v1/webhooks/tracker`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-hub-signature': `sha256=${createHmac('sha256', SECRET).update(job.body).digest('hex')}` },
            body: job.body,
          });
          await response.arrayBuffer();
          latencies.push(performance.now() - started);
          if (response.status !== 200) failures += 1;
        }
      }));
    };
    const began = performance.now();
    await send(creations);
    await send(commentJobs);
    const seconds = (performance.now() - began) / 1000;
    const sorted = [...latencies].sort((a, b) => a - b);
    const total = creations.length + commentJobs.length;

    // Every delivery must have reached its workflow: each ticket's timeline holds 1 + comments decisions.
    const verifyStarted = performance.now();
    let missing = 0;
    for (let i = 1; i <= tickets; i += 1) {
      let seen = 0;
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const response = await fetch(`${api}/api/v1/workflows/BEN-${i}/execution`, { headers: { authorization: `Bearer ${TOKEN}` } });
        seen = response.status === 200 ? ((await response.json()) as { observations_received: number }).observations_received : 0;
        if (seen >= 1 + comments) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      missing += Math.max(0, 1 + comments - seen);
    }
    console.log(`bench/ingest: ${total} signed webhooks into ${tickets} tickets, concurrency ${concurrency}`);
    console.log(`  acknowledged: ${total - failures} (non-200: ${failures})`);
    console.log(`  throughput:   ${(total / seconds).toFixed(1)} acknowledgements/s over ${seconds.toFixed(2)} s`);
    console.log(`  latency:      p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`);
    console.log(`  verified:     ${tickets * (1 + comments) - missing}/${tickets * (1 + comments)} deliveries recorded by their workflows (checked in ${((performance.now() - verifyStarted) / 1000).toFixed(1)} s)`);
    if (failures > 0 || missing > 0) process.exitCode = 1;
  } finally {
    gateway.kill('SIGINT');
    worker.kill('SIGINT');
    await Promise.all([gateway, worker].map((child) => new Promise((r) => child.once('exit', r))));
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
