/**
 * bench/webhook-flood: the gateway under a flood of forged webhook bodies (issue 41 point 4), with its figures. The
 * gateway is the real app on the server the process uses (createGatewayServer), in this process and doing nothing
 * else; the attacker (test/helpers/webhook-flood-attacker.cjs) and the health prober (test/helpers/health-prober.cjs)
 * are processes of their own. Prints the health probes' distribution, the RSS growth, the peak of bytes held by
 * unauthenticated bodies and the answers by route, then one summary line that says whether the targets held:
 * every probe answered 200 within 200 ms, held bytes within the budget, RSS growth within 192 MiB. A second prober
 * asks the same probe on the gateway's metrics port apart (SERVICE_GATEWAY_METRICS_PORT), which the flood does not
 * reach: same process, its own accept queue and its own thread (src/gateway/probe-thread.ts).
 *
 *   npm run bench:flood -- [--seconds 10] [--per-route 100] [--fast-mib 2] [--pause 100] [--probe-every 50] [--rounds 1]
 *
 * --per-route: connections at once on each of the three webhook routes (half send 9 MiB chunked at --fast-mib MiB/s
 * each, 0 meaning as fast as the gateway reads; half trickle a declared 4 MiB); --pause: ms before an answered
 * connection is replaced; --rounds: attacks one after another on the same gateway (each reported). A CPU profile of
 * the gateway: `node --cpu-prof --cpu-prof-dir <dir> dist-bench/bench/webhook-flood.js ...`.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createGatewayApp } from '../src/gateway/app';
import { PendingBodyBudget } from '../src/gateway/pending-body-budget';
import { createGatewayServer } from '../src/gateway/server-options';
import { listenGatewayMetrics } from '../src/gateway/metrics-listener';
import { listen } from '../src/http/listen';
import { parseRepositoryRegistry } from '../src/config/repository-registry';
import { loadServiceConfig } from '../src/config/service-config';
import { createLogger } from '../src/logging/logger';
import { createServiceMetrics } from '../src/metrics/service-metrics';
import type { TicketWorkflowsPort } from '../src/temporal/ticket-workflows';

const MIB = 1024 * 1024;
const HEALTH_TARGET_MS = 200;
const RSS_GROWTH_TARGET = 192 * MIB;
const HELPERS = resolve(__dirname, '..', '..', 'test', 'helpers');

function numberOption(name: string, fallback: number, min = 0): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number of at least ${min}`);
  return value;
}

function runChild<T>(file: string, argument: Record<string, unknown>, timeoutMs: number, niceness = 0): Promise<T> {
  const command = [process.execPath, join(HELPERS, file), JSON.stringify(argument)];
  const [program, ...args] = niceness > 0 ? ['nice', '-n', String(niceness), ...command] : command;
  return new Promise((resolveChild, reject) => {
    execFile(program!, args, { timeout: timeoutMs, maxBuffer: 16 * MIB }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${file} failed: ${error.message}\n${stderr}`));
      resolveChild(JSON.parse(stdout) as T);
    });
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

type Probe = { ms: number; status?: number; error?: string };

async function main(): Promise<void> {
  const seconds = numberOption('seconds', 10, 1);
  const perRoute = numberOption('per-route', 100, 1);
  const fastMiBPerSecond = numberOption('fast-mib', 2);
  const pauseMs = numberOption('pause', 100);
  const everyMs = numberOption('probe-every', 50, 1);
  const rounds = numberOption('rounds', 1, 1);
  const attackerNice = numberOption('attacker-nice', 19);

  process.env.GL_FLOOD_HOOK = 'flood-gitlab-secret';
  // The metrics port apart (SERVICE_GATEWAY_METRICS_PORT) answers the health probes too: probed beside the public port.
  const loaded = loadServiceConfig({
    TRACKER_WEBHOOK_SECRET: 'flood-tracker-secret', SCMHOST_WEBHOOK_SECRET: 'flood-scmhost-secret',
    SERVICE_GATEWAY_METRICS_HOST: '127.0.0.1', SERVICE_GATEWAY_METRICS_PORT: '0',
  });
  if (!loaded.config) throw new Error('the bench configuration did not load');
  const config = loaded.config;
  const registry = parseRepositoryRegistry([
    'connections:',
    '  main: { provider: gitlab, base_url: https://gitlab.example.com, credential_env: GL_FLOOD_TOKEN, webhook_secret_env: GL_FLOOD_HOOK }',
    'repositories:',
    '  api: { provider: gitlab, connection: main, namespace: acme/platform/api }',
  ].join('\n'));
  const metrics = createServiceMetrics();
  const pendingBodies = new PendingBodyBudget(config.gateway.pendingBodies, (bytes) => metrics.webhookPendingBodyBytes.set(bytes));
  // Nothing forged gets past its signature, so the workflows are never asked; an answer that reached them would be
  // a hole, and shows as an error here.
  const unreachable = async () => { throw new Error('a forged delivery reached the workflows'); };
  const workflows = { startOrSignal: unreachable, signal: unreachable, findTicketByPullRequest: unreachable } as unknown as TicketWorkflowsPort;
  // The gateway logs at the level it runs at (info), into nothing: each line is built as in production.
  const app = createGatewayApp({ config, workflows, metrics, logger: createLogger({ level: 'info', write: () => undefined }), registry, pendingBodies });
  const server = await listen(createGatewayServer(app, config.gateway), '127.0.0.1', 0, 'flooded gateway');
  const apart = (await listenGatewayMetrics(config, metrics))!;
  const limits = config.gateway.pendingBodies;
  console.log(`gateway ${server.url}: ${perRoute} connections per route for ${seconds} s, fast senders at ${fastMiBPerSecond || 'full'} MiB/s, replaced after ${pauseMs} ms; budget ${limits.maxBodiesPerRoute} bodies per route, ${limits.maxBodies} in all, ${limits.maxBytes / MIB} MiB`);

  let allHeld = true;
  let apartHeld = true;
  try {
    for (let round = 1; round <= rounds; round++) {
      global.gc?.();
      const baseline = process.memoryUsage().rss;
      const cpuBefore = process.cpuUsage();
      let peakRss = baseline;
      let lag = 0;
      let last = performance.now();
      const sampling = setInterval(() => {
        const now = performance.now();
        lag = Math.max(lag, now - last - 20);
        last = now;
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }, 20);
      const timeoutMs = (seconds + 60) * 1000;
      const [answers, probes, apartProbes] = await Promise.all([
        runChild<Record<string, Record<string, number>>>('webhook-flood-attacker.cjs', { url: server.url, seconds, perRoute, fastMiBPerSecond, pauseMs }, timeoutMs, attackerNice),
        runChild<Probe[]>('health-prober.cjs', { url: server.url, seconds, everyMs }, timeoutMs),
        runChild<Probe[]>('health-prober.cjs', { url: apart.url, seconds, everyMs }, timeoutMs),
      ]).finally(() => clearInterval(sampling));
      const cpu = process.cpuUsage(cpuBefore);
      const times = probes.map((p) => p.ms).sort((a, b) => a - b);
      const failed = probes.filter((p) => p.status !== 200).length;
      const growth = peakRss - baseline;
      const held = round === 1 ? pendingBodies.peakBytes : undefined;
      const ok = failed === 0 && times.at(-1)! < HEALTH_TARGET_MS && pendingBodies.peakBytes <= limits.maxBytes && growth < RSS_GROWTH_TARGET;
      allHeld &&= ok;
      console.log(`round ${round}:`);
      console.log(`  health: ${probes.length} probes, ${failed} not answered 200; p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, slowest ${times.at(-1)!.toFixed(1)} ms (target: every probe under ${HEALTH_TARGET_MS} ms)`);
      const apartTimes = apartProbes.map((p) => p.ms).sort((a, b) => a - b);
      const apartFailed = apartProbes.filter((p) => p.status !== 200).length;
      apartHeld &&= apartFailed === 0 && apartTimes.at(-1)! < HEALTH_TARGET_MS;
      console.log(`  health on the metrics port apart: ${apartProbes.length} probes, ${apartFailed} not answered 200; p50 ${percentile(apartTimes, 50).toFixed(1)} ms, p95 ${percentile(apartTimes, 95).toFixed(1)} ms, p99 ${percentile(apartTimes, 99).toFixed(1)} ms, slowest ${apartTimes.at(-1)!.toFixed(1)} ms`);
      console.log(`  gateway event loop: longest stall ${lag.toFixed(0)} ms; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s in the round (${(cpu.system / 1e6).toFixed(1)} s in the kernel)`);
      console.log(`  memory: RSS grew ${(growth / MIB).toFixed(0)} MiB (target under ${RSS_GROWTH_TARGET / MIB} MiB); unauthenticated bodies held at most ${(pendingBodies.peakBytes / MIB).toFixed(1)} MiB${held === undefined ? ' since start' : ''} (budget ${limits.maxBytes / MIB} MiB)`);
      for (const [route, codes] of Object.entries(answers)) {
        console.log(`  ${route}: ${Object.entries(codes).map(([code, n]) => `${n} × ${code}`).join(', ')}`);
      }
    }
  } finally {
    await server.close();
    await apart.close();
  }
  console.log(`webhook-flood: ${rounds} round(s) of ${3 * perRoute} connections: ${allHeld ? 'every target held' : 'a target was missed'}; on the metrics port apart ${apartHeld ? 'every probe was' : 'not every probe was'} answered 200 under ${HEALTH_TARGET_MS} ms`);
  process.exitCode = allHeld ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : String(error));
  process.exitCode = 2;
});
