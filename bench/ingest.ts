/**
 * bench/ingest: signed tracker webhooks over loopback into many distinct tickets against a real Temporal dev server
 * (started from temporal-dev.yaml, as `service dev` starts it), a real worker and the real gateway (child processes,
 * as in production), and in the same run the floor: a bare Temporal client making the same signal-with-start and
 * signal calls the gateway makes, the same number at the same offered rate, to the same server and worker (tickets of
 * their own). Prints both latency distributions, their ratio, whether the worker kept up, verifies that every delivery
 * reached its workflow, and ends with one summary line.
 *
 *   npm run bench:ingest -- [--rate 100] [--duration 60] [--tickets 1000] [--burst 1000] [--order floor-first]
 *                           [--profile <dir>] [--temporal-address host:port] [--stack temporal-dev.yaml] [--floor-only]
 *                           [--workers 1] [--cache N] [--heap-growing N]
 *
 * --rate: deliveries offered per second (open loop: a slow answer does not slow the sender); --duration: seconds;
 * --burst N: instead, N deliveries offered at once; --order: floor-first (default) or gateway-first; --profile: CPU
 * profiles of the gateway and the worker (node --cpu-prof) into <dir>; --temporal-address: an already running server
 * instead of a fresh dev server; --stack: another dev stack file (to compare server settings); --floor-only: the bare
 * client alone (no gateway phase); --workers N: N worker processes on the same task queue (as a deployment scales);
 * --cache N and --heap-growing N: the workers' SERVICE_WORKER_MAX_CACHED_WORKFLOWS and SERVICE_WORKER_HEAP_GROWING_PERCENT.
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { commentObservation, issueCreatedObservation, type TrackerIssueFacts } from '../src/ingress/tracker/tracker-observations';
import { planTrackerDelivery } from '../src/ingress/tracker/plan-tracker-delivery';
import { startDevServer, type RunningDevServer } from '../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../src/temporal/dev-stack-config';
import { ensureTemporalCli, projectRoot } from '../src/temporal/temporal-cli-locator';
import { TemporalTicketWorkflows } from '../src/temporal/ticket-workflows';
import { searchAttributes } from '../workflows/messages';
import type { Observation } from '../workflows/ledger/observation';
import { freePort } from '../test/helpers/free-port';
import { numberOption, option, startServiceProcess } from './bench-process';

const SECRET = 'bench-secret';
const TOKEN = 'bench-operator-token';
const TASK_QUEUE = 'bench-ingest';

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere or once it exited. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** What each process of the run spent on CPU during a phase: on two cores, where the time goes when answers slow. */
function cpuMeter(processes: Record<string, number | undefined>): () => string {
  const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, pid === undefined ? undefined : cpuSeconds(pid)]));
  const ownBefore = process.cpuUsage();
  const began = performance.now();
  return () => {
    const seconds = (performance.now() - began) / 1000;
    const own = process.cpuUsage(ownBefore);
    const parts = Object.entries(processes).flatMap(([name, pid]) => {
      const start = before[name];
      const end = cpuSeconds(pid);
      return start === undefined || end === undefined ? [] : [`${name} ${(end - start).toFixed(1)} s (${Math.round((100 * (end - start)) / seconds)}%)`];
    });
    parts.push(`bench ${((own.user + own.system) / 1e6).toFixed(1)} s (${Math.round((own.user + own.system) / 1e4 / seconds)}%)`);
    return `CPU over ${seconds.toFixed(0)} s: ${parts.join(', ')}`;
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Delivery {
  key: string;
  index: number;
  /** The tracker webhook body (what the gateway gets). */
  body: string;
  /** The observation the gateway makes of it, and whether it starts the workflow (what the bare client sends). */
  observation: Observation;
  starts: boolean;
}

/** Delivery i goes to ticket i mod tickets: its first is the creation, the rest are comments (a tracker's mix). */
function deliveriesFor(prefix: string, count: number, tickets: number): Delivery[] {
  const now = new Date();
  return Array.from({ length: count }, (_, i) => {
    const t = i % tickets;
    const key = `${prefix}-${t + 1}`;
    const fields = { summary: `Bench ${key}`, labels: ['service:managed'], issuetype: { name: 'Feature' }, project: { key: prefix }, created: '2026-11-23T07:00:00.000+0000', updated: '2026-11-23T07:00:00.000+0000' };
    const issue = { id: String(50_000 + t), key, fields };
    const facts: TrackerIssueFacts = { id: issue.id, key, issueType: 'Feature', summary: fields.summary, labels: fields.labels, created: fields.created, updated: fields.updated };
    const context = { source: 'webhook' as const, receivedAt: now };
    if (i < tickets) {
      return { key, index: i, body: JSON.stringify({ webhookEvent: 'jira:issue_created', timestamp: Date.now(), issue }), observation: issueCreatedObservation(facts, context), starts: true };
    }
    const comment = { id: String(900_000 + i), body: `comment ${i} on ${key}`, author: { emailAddress: 'bench@example.com' }, created: '2026-11-23T07:10:00.000+0000', updated: '2026-11-23T07:10:00.000+0000' };
    const observation = commentObservation(facts, { id: comment.id, body: comment.body, author: comment.author.emailAddress, created: comment.created, updated: comment.updated }, context);
    return { key, index: i, body: JSON.stringify({ webhookEvent: 'comment_created', issue, comment }), observation, starts: false };
  });
}

interface PhaseResult {
  name: string;
  /** CPU seconds per process while the deliveries were offered and answered. */
  cpu: string;
  latencies: number[];
  failures: number;
  statuses: Map<string, number>;
  seconds: number;
  /** performance.now() at which each delivery was answered. */
  ackedAt: number[];
  /** The indexes of the deliveries answered 200 (the gateway) or accepted (the bare client). */
  acknowledged: Set<number>;
}

/**
 * Offers the deliveries open loop: delivery i is sent at start + i / rate (all at once in a burst), whatever the
 * answers to earlier ones; latency is from the send to the answer.
 */
async function offer(name: string, deliveries: Delivery[], rate: number | undefined, send: (d: Delivery) => Promise<string>, processes: Record<string, number | undefined>): Promise<PhaseResult> {
  const result: PhaseResult = { name, cpu: '', latencies: [], failures: 0, statuses: new Map(), seconds: 0, ackedAt: [], acknowledged: new Set() };
  const cpu = cpuMeter(processes);
  const began = performance.now();
  const pending: Array<Promise<void>> = [];
  for (const delivery of deliveries) {
    if (rate !== undefined) {
      const wait = began + (delivery.index * 1000) / rate - performance.now();
      if (wait > 1) await sleep(wait);
    }
    pending.push((async () => {
      const started = performance.now();
      const status = await send(delivery).catch((error: unknown) => `error: ${(error as Error).name}`);
      const done = performance.now();
      result.latencies.push(done - started);
      result.ackedAt[delivery.index] = done;
      result.statuses.set(status, (result.statuses.get(status) ?? 0) + 1);
      if (status !== 'ok' && status !== '200') result.failures += 1;
      else result.acknowledged.add(delivery.index);
    })());
  }
  await Promise.all(pending);
  result.seconds = (performance.now() - began) / 1000;
  result.cpu = cpu();
  return result;
}

async function observationsReceived(api: string, key: string): Promise<number> {
  const response = await fetch(`${api}/api/v1/workflows/${key}/execution`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return response.status === 200 ? ((await response.json()) as { observations_received: number }).observations_received : 0;
}

/**
 * Every acknowledged delivery must have reached its ticket's workflow (an unacknowledged one is the provider's to send
 * again, and is counted as failed); waits up to `timeoutMs` in all for the worker.
 */
async function verify(api: string, deliveries: Delivery[], acknowledged: Set<number>, timeoutMs: number): Promise<{ expected: number; recorded: number; seconds: number }> {
  const expected = new Map<string, number>();
  for (const d of deliveries) if (acknowledged.has(d.index)) expected.set(d.key, (expected.get(d.key) ?? 0) + 1);
  const began = performance.now();
  const deadline = Date.now() + timeoutMs;
  const keys = [...expected.keys()];
  let recorded = 0;
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      const want = expected.get(key)!;
      let seen = 0;
      for (;;) {
        seen = await observationsReceived(api, key).catch(() => 0);
        if (seen >= want || Date.now() > deadline) break;
        await sleep(200);
      }
      recorded += Math.min(seen, want);
    }
  }));
  return { expected: acknowledged.size, recorded, seconds: (performance.now() - began) / 1000 };
}

/**
 * A worker registers the search attributes before it polls, but on a server with SQL visibility (not the dev server)
 * a start that sets them fails ("no mapping defined") until the frontend's namespace cache has refreshed, about 2 s
 * later: the bench waits for that, so that it measures ingest and not a worker's first seconds.
 */
async function searchAttributesUsable(connection: Connection, timeoutMs: number): Promise<void> {
  const query = `${searchAttributes.ticketKey.name} = "probe" AND ${searchAttributes.workflowType.name} = "probe"`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.listWorkflowExecutions({ namespace: 'default', query, pageSize: 1 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the search attributes were not usable within ${timeoutMs / 1000} s: ${(error as Error).message}`);
      await sleep(200);
    }
  }
}

function describe(result: PhaseResult): { p50: number; p99: number; max: number; line: string } {
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  const max = sorted.at(-1) ?? NaN;
  const statuses = [...result.statuses.entries()].map(([s, n]) => `${s}:${n}`).join(' ');
  const line = `  ${result.name.padEnd(8)} ${result.latencies.length} sent in ${result.seconds.toFixed(1)} s (${(result.latencies.length / result.seconds).toFixed(1)}/s), `
    + `latency p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms; answers ${statuses}`;
  return { p50, p99, max, line: `${line}\n           ${result.cpu}` };
}

async function main(): Promise<void> {
  const tickets = numberOption('tickets', 1000);
  const burst = option('burst') === undefined ? undefined : numberOption('burst', 1000);
  const rate = numberOption('rate', 100);
  const duration = numberOption('duration', 60);
  const order = option('order') ?? 'floor-first';
  if (order !== 'floor-first' && order !== 'gateway-first') throw new Error('--order must be floor-first or gateway-first');
  const profileDir = option('profile');
  const workerCount = numberOption('workers', 1);
  const cache = option('cache') === undefined ? undefined : numberOption('cache', 0, 2);
  const heapGrowing = option('heap-growing') === undefined ? undefined : numberOption('heap-growing', 0, 0);
  const count = burst ?? Math.round(rate * duration);
  const offered = burst === undefined ? rate : undefined;

  const root = projectRoot();
  let server: RunningDevServer | undefined;
  let dataDir: string | undefined;
  let address = option('temporal-address');
  if (!address) {
    const cli = await ensureTemporalCli();
    dataDir = mkdtempSync(join(tmpdir(), 'service-bench-'));
    const plan = planDevServer(parseDevStackConfig(readFileSync(resolve(option('stack') ?? join(root, 'temporal-dev.yaml')), 'utf8')), root, { dataDir, port: await freePort(), headless: true });
    server = await startDevServer(cli, plan);
    address = plan.address;
  }
  const gatewayPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    TEMPORAL_ADDRESS: address, SERVICE_TASK_QUEUE: TASK_QUEUE, TRACKER_WEBHOOK_SECRET: SECRET, SCMHOST_WEBHOOK_SECRET: `${SECRET}-unused`, SERVICE_OPERATOR_TOKEN: TOKEN,
    SERVICE_GATEWAY_HOST: '127.0.0.1', SERVICE_GATEWAY_PORT: String(gatewayPort), SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
    SERVICE_POLL_INTERVAL_SECONDS: '0', LOG_LEVEL: 'ERROR',
    ...(cache === undefined ? {} : { SERVICE_WORKER_MAX_CACHED_WORKFLOWS: String(cache) }),
    ...(heapGrowing === undefined ? {} : { SERVICE_WORKER_HEAP_GROWING_PERCENT: String(heapGrowing) }),
  };
  const workerEnv = async (): Promise<NodeJS.ProcessEnv> => ({ ...env, SERVICE_WORKER_METRICS_PORT: String(await freePort()) });
  // Node 20 refuses --cpu-prof in NODE_OPTIONS: the flags go on the command line of each child.
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
  if (profileDir) mkdirSync(resolve(profileDir), { recursive: true });
  // All at once, as a deployment's replicas start: against a server without the search attributes (not a dev server
  // started here) each worker registers them, and they must not trip over each other.
  const starting = [
    startServiceProcess(root, 'gateway', env, /gateway listening on/, nodeArgs),
    ...Array.from({ length: workerCount }, async () => startServiceProcess(root, 'worker', await workerEnv(), /worker polling task queue/, nodeArgs)),
  ];
  const [gateway, ...workers] = await Promise.all(starting).catch(async (error: unknown) => {
    // Neither the dev server nor a child that did start may outlive a failed start.
    for (const child of await Promise.allSettled(starting)) if (child.status === 'fulfilled') child.value.kill('SIGKILL');
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }) as [ChildProcess, ...ChildProcess[]];
  const workerPids = Object.fromEntries(workers.map((w, i) => [workers.length === 1 ? 'worker' : `worker${i + 1}`, w.pid]));
  const api = `http://127.0.0.1:${gatewayPort}`;
  const connection = await Connection.connect({ address });
  await searchAttributesUsable(connection, 30_000);
  // The same port the gateway uses (signal-with-start for a creation, a signal otherwise), with no HTTP, signature
  // check, parsing or redaction in front of it: the floor the gateway cannot go below.
  const bare = new TemporalTicketWorkflows(connection, 'default', TASK_QUEUE);
  try {
    const viaGateway = deliveriesFor('GW', count, tickets);
    const viaClient = deliveriesFor('BF', count, tickets);
    const sendGateway = async (d: Delivery) => {
      const response = await fetch(`${api}/api/v1/webhooks/tracker`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature': `sha256=${createHmac('sha256', SECRET).update(d.body).digest('hex')}` },
        body: d.body,
      });
      const text = await response.text();
      // 200 with `ignored` (no workflow for a comment whose ticket's creation failed) reached no workflow either.
      const ignored = response.status === 200 ? (JSON.parse(text) as { ignored?: string }).ignored : undefined;
      return ignored ? '200-ignored' : String(response.status);
    };
    const sendBare = async (d: Delivery) => {
      if (d.starts) {
        const plan = planTrackerDelivery(d.observation);
        if (plan.action !== 'start') throw new Error(`a creation that does not start: ${plan.action}`);
        await bare.startOrSignal({ ticket_key: d.key, project_key: 'BF', issue_type: 'Feature', workflow_kind: plan.workflow_kind }, d.observation);
        return 'ok';
      }
      return (await bare.signal(d.key, d.observation)) === 'signalled' ? 'ok' : 'not_found';
    };
    const mode = burst === undefined ? `${rate}/s for ${duration} s` : `a burst of ${burst} at once`;
    console.log(`bench/ingest: ${count} deliveries into ${tickets} tickets, ${mode}, against ${server ? 'a fresh dev server (temporal-dev.yaml)' : address}, ${workerCount} worker${workerCount === 1 ? '' : 's'}`);

    const runFloor = async () => {
      const floor = await offer('floor', viaClient, offered, sendBare, { server: server?.process.pid, ...workerPids });
      const verified = await verify(api, viaClient, floor.acknowledged, 120_000);
      return { floor, verified };
    };
    const runGateway = async () => {
      const result = await offer('gateway', viaGateway, offered, sendGateway, { server: server?.process.pid, ...workerPids, gateway: gateway.pid });
      // The worker keeps up: how long after its acknowledgement the last delivery shows on its ticket's workflow.
      const last = viaGateway.at(-1)!;
      const wanted = viaGateway.filter((d) => d.key === last.key && result.acknowledged.has(d.index)).length;
      while ((await observationsReceived(api, last.key).catch(() => 0)) < wanted && performance.now() - result.ackedAt[last.index]! < 120_000) await sleep(20);
      const lag = (performance.now() - result.ackedAt[last.index]!) / 1000;
      const verified = await verify(api, viaGateway, result.acknowledged, 120_000);
      return { result, lag, verified };
    };
    if (process.argv.includes('--floor-only')) {
      const { floor, verified } = await runFloor();
      const f = describe(floor);
      console.log(f.line);
      console.log(`SUMMARY ingest-floor ${burst === undefined ? `rate=${rate}/s duration=${duration}s` : `burst=${burst}`} tickets=${tickets} deliveries=${count}: `
        + `floor p50=${f.p50.toFixed(0)}ms p99=${f.p99.toFixed(0)}ms max=${f.max.toFixed(0)}ms failed=${floor.failures} | lost=${verified.expected - verified.recorded}`);
      return;
    }
    let floorRun: Awaited<ReturnType<typeof runFloor>>;
    let gatewayRun: Awaited<ReturnType<typeof runGateway>>;
    if (order === 'floor-first') {
      floorRun = await runFloor();
      gatewayRun = await runGateway();
    } else {
      gatewayRun = await runGateway();
      floorRun = await runFloor();
    }
    const g = describe(gatewayRun.result);
    const f = describe(floorRun.floor);
    console.log(g.line);
    console.log(f.line);
    console.log(`  ratio    gateway/floor p50 ${(g.p50 / f.p50).toFixed(2)}x, p99 ${(g.p99 / f.p99).toFixed(2)}x`);
    console.log(`  worker   last gateway delivery on its workflow ${gatewayRun.lag.toFixed(2)} s after its acknowledgement`);
    console.log(`  verified gateway ${gatewayRun.verified.recorded}/${gatewayRun.verified.expected}, floor ${floorRun.verified.recorded}/${floorRun.verified.expected} acknowledged deliveries recorded by their workflows`);
    const lost = (gatewayRun.verified.expected - gatewayRun.verified.recorded) + (floorRun.verified.expected - floorRun.verified.recorded);
    const fiveHundreds = [...gatewayRun.result.statuses.entries()].filter(([s]) => s.startsWith('5')).reduce((n, [, c]) => n + c, 0);
    console.log(`SUMMARY ingest ${burst === undefined ? `rate=${rate}/s duration=${duration}s` : `burst=${burst}`} tickets=${tickets} deliveries=${count}: `
      + `gateway p50=${g.p50.toFixed(0)}ms p99=${g.p99.toFixed(0)}ms max=${g.max.toFixed(0)}ms 5xx=${fiveHundreds} failed=${gatewayRun.result.failures} | `
      + `floor p50=${f.p50.toFixed(0)}ms p99=${f.p99.toFixed(0)}ms max=${f.max.toFixed(0)}ms failed=${floorRun.floor.failures} | `
      + `p99 ratio=${(g.p99 / f.p99).toFixed(2)} | last decided +${gatewayRun.lag.toFixed(2)}s | lost=${lost}`);
    if (gatewayRun.result.failures > 0 || floorRun.floor.failures > 0 || lost > 0) process.exitCode = 1;
  } finally {
    await connection.close();
    for (const child of [gateway, ...workers]) child.kill('SIGINT');
    await Promise.all([gateway, ...workers].map((child) => new Promise((r) => child.once('exit', r))));
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
