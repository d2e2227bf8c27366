import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import { PendingBodyBudget } from '../../../src/gateway/pending-body-budget';
import { createGatewayServer } from '../../../src/gateway/server-options';
import { signHmacSha256 } from '../../../src/gateway/webhook-signature';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { parseRepositoryRegistry } from '../../../src/config/repository-registry';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';

// Issue 41 point 4: hundreds of forged deliveries at once, slow and large, on every webhook route. Before the budget
// each held its whole body until the signature could be checked at the end (60 connections: 600 MB of RSS, 200:
// 1.75 GB, and /api/v1/health silent for 5 s). The gateway here is the real app on the server the process uses
// (createGatewayServer); the attacker is a child process, so its work neither slows the probes nor counts in RSS.

const SECRET = 'flood-scmhost-secret';
const MIB = 1024 * 1024;
const HELPERS = join(__dirname, '..', '..', 'helpers');
/**
 * 100 connections per route, 300 in all, each replaced 100 ms after it is answered or cut; half send 9 MiB bodies at
 * 2 MiB/s each (together more than the gateway admits: the budget fills in about two seconds), half trickle.
 */
const PER_ROUTE = 100;
const ATTACK_SECONDS = 5;
/**
 * What the gateway's RSS may grow by under the attack: the bodies' budget (64 MiB) plus 128 MiB for everything the
 * budget does not count: 300 connections' socket and parser buffers, refused chunks not yet collected (a Buffer's
 * memory returns only at a garbage collection), V8's own growth. Measured: 160-166 MiB. Without the budget each of
 * the 150 large senders would hold up to its route's limit (8 or 4 MiB): about a gigabyte.
 */
const RSS_GROWTH_BOUND = 64 * MIB + 128 * MIB;
/**
 * Bounds that fail the incident (health silent for 5 s) on a loaded CI machine; the speed figures themselves, against
 * the 200 ms, come from `npm run bench:flood` (docs/benchmarks.md), not from this test. With the whole suite
 * and other builds on the same two cores, probes here took a median of 610 ms and at worst 1.2 s.
 */
const HEALTH_MEDIAN_MS = 1_000;
const HEALTH_WORST_MS = 3_000;

const registry = parseRepositoryRegistry([
  'connections:',
  '  main: { provider: gitlab, base_url: https://gitlab.example.com, credential_env: GL_FLOOD_TOKEN, webhook_secret_env: GL_FLOOD_HOOK }',
  'repositories:',
  '  api: { provider: gitlab, connection: main, namespace: acme/platform/api }',
].join('\n'));

let server: ListeningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});

async function gateway() {
  vi.stubEnv('GL_FLOOD_HOOK', 'flood-gitlab-secret');
  const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: 'flood-tracker-secret', SCMHOST_WEBHOOK_SECRET: SECRET }).config!;
  const metrics = createServiceMetrics();
  const pendingBodies = new PendingBodyBudget(config.gateway.pendingBodies, (bytes) => metrics.webhookPendingBodyBytes.set(bytes));
  const workflows = {
    startOrSignal: async () => ({ workflowId: 'unused' }),
    signal: async () => 'signalled' as const,
    findTicketByPullRequest: async () => undefined,
  } as unknown as TicketWorkflowsPort;
  const app = createGatewayApp({ config, workflows, metrics, logger: createLogger({ level: 'error', write: () => undefined }), registry, pendingBodies });
  server = await listen(createGatewayServer(app, config.gateway), '127.0.0.1', 0, 'flooded gateway');
  return { url: server.url, metrics, pendingBodies, limits: config.gateway.pendingBodies };
}

function runChild<T>(file: string, argument: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(HELPERS, file), JSON.stringify(argument)], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${file} failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as T);
    });
  });
}

async function refusedCount(metrics: ReturnType<typeof createServiceMetrics>, reason: string): Promise<number> {
  const values = (await metrics.webhookBodiesRefused.get()).values;
  return values.filter((v) => v.labels.reason === reason).reduce((sum, v) => sum + v.value, 0);
}

describe('a flood of forged webhook bodies', () => {
  it('leaves the gateway within its memory bound and /api/v1/health answering throughout', async () => {
    const { url, metrics, pendingBodies, limits } = await gateway();
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peakRss = baseline;
    let peakHeld = 0;
    const sampling = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      peakHeld = Math.max(peakHeld, pendingBodies.heldBytes);
    }, 20);
    // The probes and the attack come from processes of their own: the gateway's process does nothing but serve.
    const [answers, probes] = await Promise.all([
      runChild<Record<string, Record<string, number>>>('webhook-flood-attacker.cjs', { url, seconds: ATTACK_SECONDS, perRoute: PER_ROUTE, fastMiBPerSecond: 2, pauseMs: 100 }),
      runChild<Array<{ at: number; ms: number; status?: number; error?: string }>>('health-prober.cjs', { url, seconds: ATTACK_SECONDS, everyMs: 50 }),
    ]).finally(() => clearInterval(sampling));

    // Every probe was answered 200 while 300 connections attacked (none refused, none timed out).
    // The prober asks again as soon as it is answered: a slow gateway means few probes, never a gap without one.
    expect(probes.length).toBeGreaterThanOrEqual(3);
    expect(probes.filter((p) => p.status !== 200)).toEqual([]);
    const times = probes.map((p) => p.ms).sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    const summary = `${probes.length} probes: median ${median.toFixed(0)} ms, slowest ${times.at(-1)!.toFixed(0)} ms`;
    expect(median, summary).toBeLessThan(HEALTH_MEDIAN_MS);
    expect(times.at(-1)!, summary).toBeLessThan(HEALTH_WORST_MS);

    // Memory: the bodies never held more than their budget, and the process grew by no more than the stated bound.
    expect(pendingBodies.peakBytes).toBeLessThanOrEqual(limits.maxBytes);
    expect(peakHeld).toBeLessThanOrEqual(limits.maxBytes);
    expect(peakRss - baseline, `RSS grew by ${((peakRss - baseline) / MIB).toFixed(0)} MiB`).toBeLessThan(RSS_GROWTH_BOUND);

    // The attack really reached the caps: refusals for capacity, each with Retry-After, on both signed routes.
    for (const route of ['tracker', 'scmhost']) {
      const codes = Object.keys(answers[route] ?? {});
      expect(codes, route).toContain('503 too_many_pending_bodies retry-after');
      expect(codes.filter((code) => code.includes('no-retry-after')), route).toEqual([]);
    }
    // GitLab's token is refused from the headers (a connection still open when the attack ends is counted as cut).
    expect(Object.keys(answers.gitlab ?? {}).filter((code) => code !== 'cut')).toEqual(['401 invalid_token']);
    expect(await refusedCount(metrics, 'route_pending_bodies')).toBeGreaterThan(0);
    expect(await refusedCount(metrics, 'pending_bytes') + await refusedCount(metrics, 'too_large')).toBeGreaterThan(0);

    // Afterwards nothing is held and an authentic delivery goes through.
    await expect.poll(() => pendingBodies.heldBytes, { timeout: 5_000 }).toBe(0);
    expect(pendingBodies.pendingBodies).toBe(0);
    const ping = JSON.stringify({ zen: 'still here' });
    const answer = await fetch(`${url}/api/v1/webhooks/scmhost`, { method: 'POST', body: ping, headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-hub-signature-256': signHmacSha256(ping, SECRET) } });
    expect(answer.status).toBe(200);
  }, 60_000);
});
