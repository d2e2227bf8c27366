/**
 * bench/console-board: the console's board (`GET /console/`) with many parked tickets, on a real Temporal dev server
 * (temporal-dev.yaml) and the real gateway process. The tickets are started without a worker, on a task queue nobody
 * polls, each with the search attributes and the read model in the memo that a real ticket publishes
 * (test/helpers/listed-ticket-workflows.ts): the board reads only visibility, so it lists them as real tickets, and
 * 10,000 start in minutes where parking real ones takes a quarter of an hour (bench/parked-tickets.ts). A tenth are
 * terminated (the board's "done"); the rest wait at a gate, run or are blocked.
 *
 * Reports the first request's latency, then p50/p99/max of `--requests` board requests one after another, how old the
 * listing a request was answered from was (the page says when it was read), how long a change (tickets that end) took
 * to show on the board, and the gateway's resident memory.
 *
 *   npm run bench:console -- [--tickets 10000] [--requests 400] [--pause 200] [--changes 3] [--temporal-address host:port] [--gateway-node-options "..."]
 *
 * --temporal-address: a server already running; tickets a run before left there are listed, not started again.
 * --gateway-node-options: node's options for the gateway process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type RunningDevServer } from '../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../src/temporal/dev-stack-config';
import { ensureTemporalCli, projectRoot } from '../src/temporal/temporal-cli-locator';
import { ticketWorkflowId } from '../workflows/messages';
import { freePort } from '../test/helpers/free-port';
import { option, startServiceProcess, wholeNumberOption } from './bench-process';
import { startSyntheticTicket, syntheticMemo, type SyntheticPlace } from '../test/helpers/listed-ticket-workflows';

const SECRET = 'bench-console-secret';
const TOKEN = 'bench-console-token';
const TASK_QUEUE = 'bench-console';
const GROUPS = ['waiting_on_person', 'running', 'blocked', 'done'] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function stats(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/** CPU seconds a process has spent (user and system), from /proc. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

interface BoardAnswer {
  ms: number;
  status: number;
  bytes: number;
  counts: Record<string, number>;
  /** When the listing the page was made from was read (the page says so since the listing is cached). */
  listedAt: number | undefined;
  at: number;
  error?: string;
}

async function board(url: string): Promise<BoardAnswer> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  const ms = performance.now() - started;
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/data-count="(\w+)">(\d+)</g)) counts[match[1]!] = Number(match[2]);
  const listed = /data-listed-at="([^"]+)"/.exec(text)?.[1];
  const error = response.status === 200 ? undefined : /<p class="error">([^<]*)</.exec(text)?.[1] ?? text.slice(0, 200);
  return { ms, status: response.status, bytes: Buffer.byteLength(text), counts, listedAt: listed ? Date.parse(listed) : undefined, at: Date.now(), ...(error ? { error } : {}) };
}

async function main(): Promise<void> {
  const tickets = wholeNumberOption('tickets', 10_000, 10);
  const requests = wholeNumberOption('requests', 400, 1);
  const pause = wholeNumberOption('pause', 200);
  const changes = wholeNumberOption('changes', 3);
  const root = projectRoot();
  let server: RunningDevServer | undefined;
  let dataDir: string | undefined;
  let address = option('temporal-address');
  if (!address) {
    const cli = await ensureTemporalCli();
    dataDir = mkdtempSync(join(tmpdir(), 'service-bench-console-'));
    const plan = planDevServer(parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8')), root, { dataDir, port: await freePort(), headless: true });
    server = await startDevServer(cli, plan);
    address = plan.address;
  }
  const gatewayPort = await freePort();
  const gateway = await startServiceProcess(root, 'gateway', {
    TEMPORAL_ADDRESS: address, SERVICE_TASK_QUEUE: TASK_QUEUE, TRACKER_WEBHOOK_SECRET: SECRET, SCMHOST_WEBHOOK_SECRET: `${SECRET}-unused`, SERVICE_OPERATOR_TOKEN: TOKEN,
    SERVICE_GATEWAY_HOST: '127.0.0.1', SERVICE_GATEWAY_PORT: String(gatewayPort), LOG_LEVEL: 'ERROR',
  }, /gateway listening on/, (option('gateway-node-options') ?? '').split(' ').filter(Boolean));
  process.once('SIGINT', () => {
    gateway.kill('SIGKILL');
    void (server?.stop() ?? Promise.resolve()).finally(() => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
  const boardUrl = `http://127.0.0.1:${gatewayPort}/console/`;
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  try {
    const memoBytes = Buffer.byteLength(JSON.stringify(syntheticMemo('BRD-1', 'gate')));
    console.log(`bench/console-board: ${tickets} tickets against ${server ? 'a fresh dev server (temporal-dev.yaml)' : address}, memo about ${(memoBytes / 1024).toFixed(1)} KiB each`);
    const places: SyntheticPlace[] = ['gate', 'gate', 'gate', 'gate', 'running', 'running', 'blocked', 'blocked', 'blocked', 'running'];
    const keys = Array.from({ length: tickets }, (_, i) => `BRD-${i + 1}`);
    const placeOf = (i: number) => places[i % places.length]!;
    const base = `WorkflowType = "ticketWorkflow" AND TaskQueue = "${TASK_QUEUE}"`;
    const count = async (where: string) => (await client.workflow.count(`${base} AND ${where}`)).count;
    const already = await count('ExecutionStatus != "ContinuedAsNew"');
    if (already >= tickets) {
      // --temporal-address of a server a run before left behind: its tickets are parked already.
      console.log(`  parked   ${already} tickets of an earlier run are listed already: not started again`);
    } else {
      const startedAt = performance.now();
      await inParallel(keys.map((key, i) => ({ key, i })), 16, ({ key, i }) => startSyntheticTicket(client, TASK_QUEUE, key, placeOf(i)));
      // Every tenth ticket ends (terminated): the board's "done".
      const ended = keys.filter((_, i) => i % 10 === 9);
      await inParallel(ended, 16, async (key) => { await client.workflow.getHandle(ticketWorkflowId(key)).terminate('bench: ended'); });
      const startSeconds = (performance.now() - startedAt) / 1000;
      for (const deadline = Date.now() + 600_000; ;) {
        const [running, closed] = await Promise.all([count('ExecutionStatus = "Running"'), count('ExecutionStatus = "Terminated"')]);
        if (running === tickets - ended.length && closed === ended.length) break;
        if (Date.now() > deadline) throw new Error(`visibility shows ${running} running and ${closed} ended, not ${tickets - ended.length} and ${ended.length}`);
        await sleep(1_000);
      }
      console.log(`  parked   ${tickets} tickets started and ${ended.length} of them terminated in ${startSeconds.toFixed(0)} s (${(tickets / startSeconds).toFixed(0)}/s), all in visibility`);
    }
    // What the board should count, from visibility itself.
    const expected: Record<string, number> = {
      waiting_on_person: await count('ExecutionStatus = "Running" AND ServiceStatus = "waiting"'),
      running: await count('ExecutionStatus = "Running" AND ServiceStatus = "running"'),
      blocked: await count('ExecutionStatus = "Running" AND ServiceStatus = "blocked"'),
      done: await count('ExecutionStatus != "Running" AND ExecutionStatus != "ContinuedAsNew"'),
    };

    const first = await board(boardUrl);
    const afterFirst = memoryOf(gateway.pid!);
    const countsText = (counts: Record<string, number>) => GROUPS.map((g) => `${g} ${counts[g] ?? '?'}`).join(', ');
    console.log(`  first    ${first.status} in ${first.ms.toFixed(0)} ms, ${(first.bytes / 1024).toFixed(0)} KiB: ${first.error ?? countsText(first.counts)} (expected ${countsText(expected)})`);
    console.log(`  gateway  RSS ${afterFirst.rssMiB.toFixed(0)} MiB (peak ${afterFirst.peakMiB.toFixed(0)} MiB) after the first request`);

    // Requests one after another; every requests/(changes+1) requests a few running tickets end, and the time until
    // the board counts them in "done" is taken.
    const answers: BoardAnswer[] = [];
    const seenAfter: number[] = [];
    const cpuBefore = { gateway: cpuSecondsOf(gateway.pid!), server: server?.process.pid ? cpuSecondsOf(server.process.pid) : NaN, at: performance.now() };
    const running: string[] = [];
    for await (const execution of client.workflow.list({ query: `${base} AND ExecutionStatus = "Running" AND ServiceStatus = "running"`, pageSize: 100 })) {
      running.push(execution.workflowId);
      if (running.length >= changes * 5) break;
    }
    let pending: { at: number; done: number } | undefined;
    let changed = 0;
    for (let i = 0; i < requests; i += 1) {
      if (!pending && changed < changes && i >= ((changed + 1) * requests) / (changes + 1)) {
        const batch = running.splice(0, 5);
        const done = (answers.at(-1)?.counts.done ?? expected.done ?? 0) + batch.length;
        await Promise.all(batch.map((workflowId) => client.workflow.getHandle(workflowId).terminate('bench: a change')));
        pending = { at: Date.now(), done };
        changed += 1;
      }
      const answer = await board(boardUrl);
      answers.push(answer);
      if (pending && (answer.counts.done ?? 0) >= pending.done) {
        seenAfter.push(answer.at - pending.at);
        pending = undefined;
      }
      if (pause > 0) await sleep(pause);
    }
    const cpu = { gateway: cpuSecondsOf(gateway.pid!) - cpuBefore.gateway, server: server?.process.pid ? cpuSecondsOf(server.process.pid) - cpuBefore.server : NaN, seconds: (performance.now() - cpuBefore.at) / 1000 };
    const latency = stats(answers.map((a) => a.ms));
    const failed = answers.filter((a) => a.status !== 200);
    const ages = answers.filter((a) => a.listedAt !== undefined).map((a) => a.at - a.listedAt!);
    const age = stats(ages);
    const final = memoryOf(gateway.pid!);
    console.log(`  board    p50 ${latency.p50.toFixed(1)} ms p99 ${latency.p99.toFixed(1)} ms max ${latency.max.toFixed(1)} ms over ${requests} requests (${pause} ms apart), ${failed.length} not 200${failed[0] ? ` (${failed[0].status}: ${failed[0].error})` : ''}, ${(answers.at(-1)!.bytes / 1024).toFixed(0)} KiB a page`);
    console.log(`  stale    ${ages.length > 0 ? `listing age when answered p50 ${(age.p50 / 1000).toFixed(1)} s p99 ${(age.p99 / 1000).toFixed(1)} s max ${(age.max / 1000).toFixed(1)} s` : 'the page does not say when its listing was read'}; `
      + `a change (5 tickets ended) shown after ${seenAfter.length > 0 ? seenAfter.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ') : 'never'}${pending ? ` (${changes - seenAfter.length} not seen by the last request)` : ''}`);
    // The slowest answers, and whether each was the first from a newly read listing (the board is made again then).
    const slowest = answers.map((a, i) => ({ ms: a.ms, fresh: i > 0 && a.listedAt !== answers[i - 1]!.listedAt })).sort((a, b) => b.ms - a.ms).slice(0, 5);
    const listings = new Set(answers.map((a) => a.listedAt)).size;
    console.log(`  slowest  ${slowest.map((a) => `${a.ms.toFixed(0)} ms${a.fresh ? ' (new listing)' : ''}`).join(', ')}; ${listings} listings served`);
    console.log(`  gateway  RSS ${final.rssMiB.toFixed(0)} MiB (peak ${final.peakMiB.toFixed(0)} MiB) after the requests`);
    console.log(`  cpu      during the ${cpu.seconds.toFixed(0)} s of requests: gateway ${cpu.gateway.toFixed(1)} s, Temporal server ${Number.isNaN(cpu.server) ? 'not measured (--temporal-address)' : `${cpu.server.toFixed(1)} s`}; load average ${(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])}`);
    const all = await board(`${boardUrl}?all=1`);
    console.log(`  all      ?all=1: ${all.status} in ${all.ms.toFixed(0)} ms, ${(all.bytes / 1024).toFixed(0)} KiB`);
    console.log(`SUMMARY console board tickets=${tickets} first=${first.ms.toFixed(0)}ms p50=${latency.p50.toFixed(0)}ms p99=${latency.p99.toFixed(0)}ms max=${latency.max.toFixed(0)}ms failed=${failed.length}/${requests} `
      + `age_p99=${ages.length > 0 ? `${(age.p99 / 1000).toFixed(1)}s` : 'n/a'} change_seen=${seenAfter.map((ms) => `${(ms / 1000).toFixed(1)}s`).join('/') || 'never'} rss=${final.rssMiB.toFixed(0)}MiB peak=${final.peakMiB.toFixed(0)}MiB`);
  } finally {
    await connection.close();
    if (gateway.exitCode === null) {
      gateway.kill('SIGINT');
      await new Promise((r) => gateway.once('exit', r));
    }
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
