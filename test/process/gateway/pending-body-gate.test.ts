import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import { PendingBodyBudget } from '../../../src/gateway/pending-body-budget';
import { pendingBodyGate } from '../../../src/gateway/pending-body-gate';
import { RefusalLog, REFUSAL_LOG_INTERVAL_MS } from '../../../src/gateway/refusal-log';
import { createGatewayServer } from '../../../src/gateway/server-options';
import { signHmacSha256 } from '../../../src/gateway/webhook-signature';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics, type ServiceMetrics } from '../../../src/metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';

// While the budget of unauthenticated bodies is full, a signed webhook route is refused before any router runs: the
// answer a flood gets is the same 503 as before, with Retry-After and the connection closed, but costs a lookup.

const SECRET = 'gate-scmhost-secret';
const limits = { maxBodies: 3, maxBodiesPerRoute: 2, maxBytes: 1024 * 1024 };

let server: ListeningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function gateway() {
  const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: 'gate-tracker-secret', SCMHOST_WEBHOOK_SECRET: SECRET }).config!;
  const metrics = createServiceMetrics();
  const records: Array<Record<string, any>> = [];
  const handedOver: string[] = [];
  const workflows = {
    startOrSignal: async () => { handedOver.push('startOrSignal'); return { workflowId: 'w' }; },
    signal: async () => { handedOver.push('signal'); return 'signalled' as const; },
    findTicketByPullRequest: async () => undefined,
  } as unknown as TicketWorkflowsPort;
  const pendingBodies = new PendingBodyBudget(limits);
  const logger = createLogger({ level: 'warn', write: (line) => records.push(JSON.parse(line)) });
  const app = createGatewayApp({ config, workflows, metrics, logger, pendingBodies });
  server = await listen(createGatewayServer(app, config.gateway), '127.0.0.1', 0, 'gated gateway');
  return { url: server.url, metrics, pendingBodies, records, handedOver };
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: any }

function post(url: string, path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function counted(metrics: ServiceMetrics): Promise<Record<string, number>> {
  const refused = (await metrics.webhookBodiesRefused.get()).values.filter((v) => v.value > 0).map((v) => [`refused ${v.labels.source} ${v.labels.reason}`, v.value]);
  const answered = (await metrics.webhookResponses.get()).values.filter((v) => v.value > 0).map((v) => [`answered ${v.labels.source} ${v.labels.code}`, v.value]);
  return Object.fromEntries([...refused, ...answered]);
}

const ping = JSON.stringify({ zen: 'gate' });
const signedPing = { 'x-github-event': 'ping', 'x-hub-signature-256': signHmacSha256(ping, SECRET) };

describe('the pending-body gate in front of the routers', () => {
  it('answers 503 with Retry-After and closes the connection while the route is full, and lets deliveries through again once a slot is free', async () => {
    const { url, metrics, pendingBodies, records } = await gateway();
    // Two bodies of the scmhost route are being read (their senders are slow): the route's cap is reached.
    const held = [pendingBodies.admit('scmhost'), pendingBodies.admit('scmhost')];

    const refused = await post(url, '/api/v1/webhooks/scmhost', ping, signedPing);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('too_many_pending_bodies');
    expect(refused.body.error.message).toContain('SERVICE_GATEWAY_MAX_PENDING_BODIES_PER_ROUTE');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers.connection).toBe('close');
    // Another route has room of its own; the health probe is never gated.
    expect((await post(url, '/api/v1/webhooks/tracker?user_id=x', '{}', { 'x-hub-signature': `sha256=${'0'.repeat(64)}` })).status).toBe(401);
    expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
    expect(await counted(metrics)).toEqual({ 'refused scmhost route_pending_bodies': 1, 'answered scmhost 503': 1, 'answered tracker 401': 1 });
    expect(records.filter((r) => r.code === 'too_many_pending_bodies').map((r) => r.msg)).toEqual(['scmhost webhook rejected']);

    for (const admission of held) if (admission.ok) admission.body.release();
    expect((await post(url, '/api/v1/webhooks/scmhost', ping, signedPing)).status).toBe(200);
  });

  it('refuses on the total cap too, whichever route asks', async () => {
    const { url, metrics, pendingBodies, handedOver } = await gateway();
    const held = [pendingBodies.admit('tracker'), pendingBodies.admit('tracker'), pendingBodies.admit('scmhost')];
    expect(held.every((admission) => admission.ok)).toBe(true);
    const refused = await post(url, '/api/v1/webhooks/scmhost', ping, signedPing);
    expect([refused.status, refused.body.error.code]).toEqual([503, 'too_many_pending_bodies']);
    expect(refused.body.error.message).toContain('SERVICE_GATEWAY_MAX_PENDING_BODIES)');
    expect(await counted(metrics)).toEqual({ 'refused scmhost pending_bodies': 1, 'answered scmhost 503': 1 });
    expect(handedOver).toEqual([]);
  });
});

describe('pendingBodyGate', () => {
  it('answers only POSTs to a signed webhook route whose budget is full, and logs a flood of them as one line', () => {
    const budget = new PendingBodyBudget(limits);
    budget.admit('tracker');
    budget.admit('tracker');
    const records: Array<Record<string, any>> = [];
    const gate = pendingBodyGate(budget, createServiceMetrics(), new RefusalLog(createLogger({ level: 'warn', write: (line) => records.push(JSON.parse(line)) })));
    const written: number[] = [];
    const res = { writeHead: (status: number) => { written.push(status); return res; }, end: () => res };
    const ask = (method: string, url: string) => gate({ method, url, headers: {} } as never, res as never);
    expect(ask('GET', '/api/v1/webhooks/tracker')).toBe(false);
    expect(ask('POST', '/api/v1/webhooks/scmhost')).toBe(false);
    expect(ask('POST', '/api/v1/webhooks/trackers')).toBe(false);
    for (let i = 0; i < 500; i++) expect(ask('POST', '/api/v1/webhooks/tracker?user_id=x')).toBe(true);
    expect(written).toEqual(Array(500).fill(503));
    expect(records.map((r) => [r.msg, r.code, r.cap])).toEqual([['tracker webhook rejected', 'too_many_pending_bodies', 'route_pending_bodies']]);
  });
});

describe('RefusalLog', () => {
  it('writes one line per kind per interval, and the next line says how many were not written', () => {
    const records: Array<Record<string, any>> = [];
    let now = 0;
    const log = new RefusalLog(createLogger({ level: 'warn', write: (line) => records.push(JSON.parse(line)) }), () => now);
    for (let i = 0; i < 300; i++) log.warn('gitlab invalid_token', 'gitlab webhook rejected', { code: 'invalid_token' });
    log.warn('tracker invalid_signature', 'tracker webhook rejected', { code: 'invalid_signature' });
    now = REFUSAL_LOG_INTERVAL_MS - 1;
    log.warn('gitlab invalid_token', 'gitlab webhook rejected', { code: 'invalid_token' });
    now = REFUSAL_LOG_INTERVAL_MS;
    log.warn('gitlab invalid_token', 'gitlab webhook rejected', { code: 'invalid_token' });
    log.warn('gitlab invalid_token', 'gitlab webhook rejected', { code: 'invalid_token' });
    expect(records.map((r) => [r.code, r.unlogged_since_last_line])).toEqual([['invalid_token', undefined], ['invalid_signature', undefined], ['invalid_token', 300]]);
  });
});
