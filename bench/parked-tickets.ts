/**
 * bench/parked-tickets: many ticket workflows parked (blocked at intake, waiting for a person, as a ticket of a
 * project without `service.repos` is) on a real Temporal dev server (temporal-dev.yaml), with the real worker,
 * gateway and the tracker simulator (webhooks and the poller's REST reads). Reports:
 *   - the worker's resident memory (now and peak) with every ticket parked;
 *   - the read API's p50/p99 for `execution` and `timeline` of random tickets, and how many were answered from the
 *     workflow's memo (no worker) and how many by a query (a ticket not in the worker's cache is replayed);
 *   - the time from a comment on a cold (long untouched) ticket to its decision on the ticket's workflow;
 *   - history events per idle ticket across poller runs (target 0 when nothing changed), per hour at the default
 *     120 s poll interval.
 *
 *   npm run bench:parked -- [--tickets 1000] [--reads 200] [--polls 3] [--overlap 60] [--cache N] [--worker-node-options "..."] [--temporal-address host:port]
 *
 * --cache N: the worker's workflow cache size (SERVICE_WORKER_MAX_CACHED_WORKFLOWS); without it, the service's default.
 * --worker-node-options "...": NODE_OPTIONS of the worker process (e.g. "--max-old-space-size=512").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../src/config/service-config';
import { pollerScheduleId } from '../src/poller/poller-schedule';
import { startTrackerSimulator } from '../src/sandbox/tracker-simulator/tracker-simulator';
import { startDevServer, type RunningDevServer } from '../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../src/temporal/dev-stack-config';
import { ensureTemporalCli, projectRoot } from '../src/temporal/temporal-cli-locator';
import { ticketWorkflowId } from '../workflows/messages';
import { freePort } from '../test/helpers/free-port';
import { option, startServiceProcess, wholeNumberOption } from './bench-process';

const SECRET = 'bench-parked-secret';
const TOKEN = 'bench-parked-token';
const TASK_QUEUE = 'bench-parked';
const PROJECT = 'PRK';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/** How many workflows the worker holds in its cache, from its own metrics. */
async function cachedWorkflows(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^service_worker_cached_workflows (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** The gateway's count of read answers by route and source (memo or query). */
async function readAnswers(api: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${api}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^service_read_model_answers_total\{route="(\w+)",source="(\w+)"\} (\d+)/gm)) counts[`${match[1]} ${match[2]}`] = Number(match[3]);
  return counts;
}

async function timed(url: string): Promise<{ ms: number; status: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  const body = (await response.json()) as Record<string, unknown>;
  return { ms: performance.now() - started, status: response.status, body };
}

/** Workflow tasks waiting on the task queue (the server's approximate backlog of its normal, not sticky, queue). */
async function workflowTaskBacklog(client: Client): Promise<number> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace, taskQueue: { name: TASK_QUEUE }, taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, reportStats: true,
  });
  return Number(response.stats?.approximateBacklogCount ?? 0);
}

/**
 * Waits until the parking has settled: blocking a ticket writes to the tracker (its label and comment), and the
 * tracker's webhooks of those writes come back through the gateway to each ticket's workflow, where they are decided.
 * With thousands of tickets they arrive long after the last ticket blocked; measuring reads or memory before they are
 * done measures the drain, not parked tickets. Returns how long the drain took, in seconds.
 */
async function settle(client: Client, webhooks: { flush(): Promise<void>; readonly deliveries: unknown[] }): Promise<number> {
  const started = performance.now();
  for (let quiet = 0; quiet < 3;) {
    if (performance.now() - started > 3_600_000) throw new Error('the returning webhooks were not all decided within an hour');
    const seen = webhooks.deliveries.length;
    await webhooks.flush();
    await sleep(1_000);
    quiet = webhooks.deliveries.length === seen && (await workflowTaskBacklog(client)) === 0 ? quiet + 1 : 0;
  }
  return (performance.now() - started) / 1000;
}

async function completedPolls(client: Client): Promise<number> {
  let n = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowType = "pollWorkflow" AND TaskQueue = "${TASK_QUEUE}" AND ExecutionStatus = "Completed"` })) n += 1;
  return n;
}

/** Triggered with the schedule's own overlap policy: a run triggered with ALLOW_ALL gets no last completion result. */
async function pollNow(client: Client): Promise<void> {
  const before = await completedPolls(client);
  await client.schedule.getHandle(pollerScheduleId(TASK_QUEUE)).trigger(ScheduleOverlapPolicy.SKIP);
  const deadline = Date.now() + 600_000;
  while ((await completedPolls(client)) <= before) {
    if (Date.now() > deadline) throw new Error('a poll did not complete within 10 minutes');
    await sleep(500);
  }
}

async function historyLengths(client: Client, keys: string[]): Promise<Map<string, number>> {
  const lengths = new Map<string, number>();
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      lengths.set(key, (await client.workflow.getHandle(ticketWorkflowId(key)).describe()).historyLength);
    }
  }));
  return lengths;
}

const sum = (lengths: Map<string, number>) => [...lengths.values()].reduce((a, b) => a + b, 0);

/** What an idle ticket got: the event types after `from`, and the signals' event and source. */
async function newEvents(client: Client, key: string, from: number): Promise<string> {
  const history = await client.workflow.getHandle(ticketWorkflowId(key)).fetchHistory();
  return (history.events ?? []).slice(from).map((e) => {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (!signal) return Object.keys(e).find((k) => k.endsWith('EventAttributes'))?.replace('EventAttributes', '') ?? '?';
    const payload = signal.input?.payloads?.[0]?.data;
    const observation = payload ? JSON.parse(Buffer.from(payload).toString()) as { event?: string; source?: string } : {};
    return `signal(${observation.event ?? '?'} from ${observation.source ?? '?'})`;
  }).join(', ');
}

async function main(): Promise<void> {
  const tickets = wholeNumberOption('tickets', 1000, 1);
  const reads = wholeNumberOption('reads', 200, 1);
  const polls = wholeNumberOption('polls', 3, 1);
  const overlap = wholeNumberOption('overlap', 60);
  const workerNodeOptions = option('worker-node-options');
  const cache = option('cache') === undefined ? undefined : wholeNumberOption('cache', 0, 2);
  const root = projectRoot();
  const tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: [PROJECT] });
  let server: RunningDevServer | undefined;
  let dataDir: string | undefined;
  let address = option('temporal-address');
  if (!address) {
    const cli = await ensureTemporalCli();
    dataDir = mkdtempSync(join(tmpdir(), 'service-bench-parked-'));
    const plan = planDevServer(parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8')), root, { dataDir, port: await freePort(), headless: true });
    server = await startDevServer(cli, plan);
    address = plan.address;
  }
  const gatewayPort = await freePort();
  const metricsPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    TEMPORAL_ADDRESS: address, SERVICE_TASK_QUEUE: TASK_QUEUE, TRACKER_WEBHOOK_SECRET: SECRET, SCMHOST_WEBHOOK_SECRET: `${SECRET}-unused`, SERVICE_OPERATOR_TOKEN: TOKEN,
    SERVICE_GATEWAY_HOST: '127.0.0.1', SERVICE_GATEWAY_PORT: String(gatewayPort), SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
    SERVICE_WORKER_METRICS_PORT: String(metricsPort), LOG_LEVEL: 'ERROR',
    ...(cache === undefined ? {} : { SERVICE_WORKER_MAX_CACHED_WORKFLOWS: String(cache) }),
    TRACKER_BASE_URL: tracker.url, TRACKER_USER_EMAIL: 'service@example.com', TRACKER_API_TOKEN: 'bench-parked-tracker-token',
    // The bench triggers the polls itself; the overlap is the production default unless --overlap says otherwise.
    SERVICE_POLL_INTERVAL_SECONDS: '3600', SERVICE_POLL_OVERLAP_SECONDS: String(overlap),
  };
  const [worker, gateway] = await Promise.all([
    startServiceProcess(root, 'worker', { ...env, ...(workerNodeOptions ? { NODE_OPTIONS: workerNodeOptions } : {}) }, /worker polling task queue/),
    startServiceProcess(root, 'gateway', env, /gateway listening on/),
  ]);
  // Ctrl-C would skip the finally below and leave the worker, the gateway and the server running.
  process.once('SIGINT', () => {
    worker.kill('SIGKILL');
    gateway.kill('SIGKILL');
    void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  });
  const api = `http://127.0.0.1:${gatewayPort}`;
  tracker.webhooks.setTarget({ url: `${api}/api/v1/webhooks/tracker`, secret: SECRET });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  try {
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    console.log(`bench/parked-tickets: ${tickets} tickets against ${server ? 'a fresh dev server (temporal-dev.yaml)' : address}, worker cache ${cache ?? `the service's default (${DEFAULT_MAX_CACHED_WORKFLOWS})`}`);
    // Park: each ticket is created in the tracker (its webhook starts the workflow), intake finds the project
    // without service.repos and the ticket blocks, waiting for a person.
    const parkStarted = performance.now();
    const keys: string[] = [];
    for (let i = 0; i < tickets; i += 1) keys.push(tracker.state.createIssue({ projectKey: PROJECT, issueType: 'Feature', summary: `Parked ${i + 1}`, labels: ['service:managed'] }).key);
    await tracker.webhooks.flush();
    const failedWebhooks = tracker.webhooks.deliveries.filter((d) => d.error !== undefined || (d.status !== undefined && d.status >= 300)).length;
    let parked = 0;
    for (const deadline = Date.now() + 3_600_000; Date.now() < deadline;) {
      parked = await client.workflow.count(`WorkflowType = "ticketWorkflow" AND TaskQueue = "${TASK_QUEUE}" AND ServiceBlocked = true`).then((c) => c.count);
      if (parked >= tickets) break;
      await sleep(2_000);
    }
    const parkSeconds = (performance.now() - parkStarted) / 1000;
    console.log(`  parked   ${parked}/${tickets} blocked at intake in ${parkSeconds.toFixed(0)} s (${(tickets / parkSeconds).toFixed(1)} tickets/s; webhooks not answered 2xx: ${failedWebhooks})`);
    const settleSeconds = await settle(client, tracker.webhooks);
    console.log(`  settled  ${settleSeconds.toFixed(0)} s more until the ${tracker.webhooks.deliveries.length - tickets} webhooks of the service's own tracker writes were delivered and decided`);
    const memory = memoryOf(worker.pid!);
    const cachedAfterParking = await cachedWorkflows(metricsUrl);
    console.log(`  worker   RSS ${memory.rssMiB.toFixed(0)} MiB (peak ${memory.peakMiB.toFixed(0)} MiB) with ${parked} parked tickets, ${cachedAfterParking} of them in its workflow cache`);

    // Read API: random tickets, one read at a time (the latency a person or a dashboard sees).
    const pick = () => keys[Math.floor(Math.random() * keys.length)]!;
    const latencies = { execution: [] as number[], timeline: [] as number[] };
    let readErrors = 0;
    const answersBefore = await readAnswers(api);
    for (let i = 0; i < reads; i += 1) {
      const execution = await timed(`${api}/api/v1/workflows/${pick()}/execution`);
      const timeline = await timed(`${api}/api/v1/workflows/${pick()}/execution/timeline?limit=50`);
      if (execution.status !== 200 || timeline.status !== 200) readErrors += 1;
      latencies.execution.push(execution.ms);
      latencies.timeline.push(timeline.ms);
    }
    const stats = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
    };
    const exec = stats(latencies.execution);
    const tl = stats(latencies.timeline);
    const answersAfter = await readAnswers(api);
    const answered = (what: string) => (answersAfter[what] ?? 0) - (answersBefore[what] ?? 0);
    const sources = `memo ${answered('execution memo')}/${answered('timeline memo')}, query ${answered('execution query')}/${answered('timeline query')}`;
    console.log(`  reads    execution p50 ${exec.p50.toFixed(1)} ms p99 ${exec.p99.toFixed(1)} ms max ${exec.max.toFixed(1)} ms; timeline p50 ${tl.p50.toFixed(1)} ms p99 ${tl.p99.toFixed(1)} ms max ${tl.max.toFixed(1)} ms (${reads} each, errors ${readErrors}; answered from ${sources} (execution/timeline))`);
    const after = memoryOf(worker.pid!);
    console.log(`  worker   RSS ${after.rssMiB.toFixed(0)} MiB after the reads (peak ${after.peakMiB.toFixed(0)} MiB), ${await cachedWorkflows(metricsUrl)} workflows in its cache`);

    // Idle cost: a first poll catches up on everything so far; after the overlap nothing changes, and the next polls
    // must write nothing into any ticket's history.
    await pollNow(client);
    await sleep((overlap + 2) * 1000);
    // The catch-up poll may have delivered facts again (decided duplicates): wait until the worker has decided them,
    // or their workflow tasks would be counted against the idle polls below.
    const drainStarted = performance.now();
    for (let quiet = 0; quiet < 3;) {
      await sleep(1_000);
      quiet = (await workflowTaskBacklog(client)) === 0 ? quiet + 1 : 0;
    }
    console.log(`  idle     the catch-up poll's workflow tasks were decided ${((performance.now() - drainStarted) / 1000).toFixed(0)} s after the overlap`);
    const sample = keys.length <= 500 ? keys : Array.from({ length: 500 }, pick);
    const idleStarted = performance.now();
    const before = await historyLengths(client, sample);
    for (let i = 0; i < polls; i += 1) await pollNow(client);
    const afterPolls = await historyLengths(client, sample);
    const idleSeconds = (performance.now() - idleStarted) / 1000;
    const grown = sample.filter((key) => afterPolls.get(key)! > before.get(key)!);
    const added = sum(afterPolls) - sum(before);
    const perTicketPerPoll = added / sample.length / polls;
    for (const key of grown.slice(0, 3)) console.log(`  idle     ${key} got: ${await newEvents(client, key, before.get(key)!)}`);
    console.log(`  idle     ${added} history events (in ${grown.length} tickets) of ${sample.length} idle tickets across ${polls} polls in ${idleSeconds.toFixed(0)} s: `
      + `${perTicketPerPoll.toFixed(2)} per ticket per poll, ${(perTicketPerPoll * 30).toFixed(1)} per ticket per hour at the 120 s default`);

    // A cold ticket (untouched since it parked; the worker may have evicted it): a comment to its decision.
    const cold: number[] = [];
    const decided: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const key = pick();
      const start = (await timed(`${api}/api/v1/workflows/${key}/execution`)).body.observations_received as number;
      const began = performance.now();
      const beganAt = Date.now();
      tracker.state.addComment(key, `a person's note ${i}`);
      for (;;) {
        const seen = (await timed(`${api}/api/v1/workflows/${key}/execution`)).body.observations_received as number;
        if (seen > start || performance.now() - began > 60_000) break;
        await sleep(20);
      }
      cold.push(performance.now() - began);
      // The decision's own time: its timeline entry carries the workflow time of the task that decided it (the
      // server's clock, this machine's), free of how often the loop above reads.
      const entries = ((await timed(`${api}/api/v1/workflows/${key}/execution/timeline?limit=200`)).body.entries ?? []) as Array<{ kind: string; occurred_at: string }>;
      const decision = entries.filter((entry) => entry.kind === 'observation_decision').at(-1);
      if (decision) decided.push(Date.parse(decision.occurred_at) - beganAt);
    }
    const coldStats = stats(cold);
    const decidedStats = stats(decided);
    console.log(`  cold     a comment on a cold ticket seen on the read API in p50 ${coldStats.p50.toFixed(0)} ms, max ${coldStats.max.toFixed(0)} ms; decided (its timeline entry's time) in p50 ${decidedStats.p50.toFixed(0)} ms, max ${decidedStats.max.toFixed(0)} ms (5 tickets, webhook through the gateway to the decision)`);
    const final = memoryOf(worker.pid!);
    console.log(`SUMMARY parked tickets=${parked}/${tickets} cache=${cache ?? DEFAULT_MAX_CACHED_WORKFLOWS} cached=${cachedAfterParking} rss=${final.rssMiB.toFixed(0)}MiB peak=${final.peakMiB.toFixed(0)}MiB | execution p50=${exec.p50.toFixed(0)}ms p99=${exec.p99.toFixed(0)}ms | ${sources} | `
      + `timeline p50=${tl.p50.toFixed(0)}ms p99=${tl.p99.toFixed(0)}ms | cold seen p50=${coldStats.p50.toFixed(0)}ms decided p50=${decidedStats.p50.toFixed(0)}ms | idle events/ticket/hour=${(perTicketPerPoll * 30).toFixed(1)}`);
  } finally {
    await connection.close();
    gateway.kill('SIGINT');
    worker.kill('SIGINT');
    await Promise.all([gateway, worker].map((child) => new Promise((r) => child.once('exit', r))));
    await server?.stop();
    await tracker.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
