import { createServer, request } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import { gatewayErrorHandler } from '../../../src/gateway/error-handler';
import { webhookResponseCounter } from '../../../src/gateway/webhook-response-counter';
import { signHmacSha256 } from '../../../src/gateway/webhook-signature';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics, type ServiceMetrics } from '../../../src/metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import { fixture } from '../../helpers/fixtures';

// service_webhook_responses_total{source,code} feeds ServiceWebhooksUnavailable and ServiceWebhookServerErrors: every
// answer of a webhook route is counted exactly once, whether the route wrote it or the gateway's error handler did.

type Json = Record<string, any>;
const TRACKER_SECRET = 'unit-tracker-secret';
const SCMHOST_SECRET = 'unit-scmhost-secret';
const quiet = createLogger({ level: 'error', write: () => undefined });

let server: ListeningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function responses(metrics: ServiceMetrics): Promise<Record<string, number>> {
  const values = (await metrics.webhookResponses.get()).values;
  return Object.fromEntries(values.filter((v) => v.value > 0).map((v) => [`${v.labels.source} ${v.labels.code}`, v.value]));
}

/** The whole gateway, with a workflow port that answers `handOver` as given. */
async function gateway(startOrSignal: () => Promise<unknown>) {
  const metrics = createServiceMetrics();
  const workflows = { startOrSignal, signal: startOrSignal, findTicketByPullRequest: async () => undefined } as unknown as TicketWorkflowsPort;
  const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: TRACKER_SECRET, SCMHOST_WEBHOOK_SECRET: SCMHOST_SECRET }).config!;
  server = await listen(createServer(createGatewayApp({ config, workflows, metrics, logger: quiet })), '127.0.0.1', 0, 'test gateway');
  const url = server.url;
  return {
    metrics,
    tracker: async (body: string) => {
      const response = await fetch(`${url}/api/v1/webhooks/tracker`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature': signHmacSha256(body, TRACKER_SECRET) } });
      return { status: response.status, body: await response.json() as Json };
    },
    scmhost: async (body: string) => {
      const response = await fetch(`${url}/api/v1/webhooks/scmhost`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-hub-signature-256': signHmacSha256(body, SCMHOST_SECRET) } });
      return { status: response.status, body: await response.json() as Json };
    },
    /** Declares a body over the limit and sends none of it: refused (413) from the headers, after the signature header. */
    oversized: () => new Promise<number>((resolve, reject) => {
      const headers = { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-hub-signature-256': signHmacSha256('', SCMHOST_SECRET), 'content-length': String(64 * 1024 * 1024) };
      const req = request(`${url}/api/v1/webhooks/scmhost`, { method: 'POST', headers });
      req.on('response', (res) => { res.resume(); resolve(res.statusCode!); req.destroy(); });
      req.on('error', reject);
      req.flushHeaders();
    }),
  };
}

function managedIssue(key: string): string {
  const payload = fixture<Json>('tracker/jira-issue-created.json');
  payload.issue.key = key;
  payload.issue.fields.labels = ['service:managed'];
  return JSON.stringify(payload);
}

describe('webhook answers counted by source and status', () => {
  it('counts a malformed JSON body once as a 400 of its source', async () => {
    const gw = await gateway(async () => ({ workflowId: 'unused' }));
    expect(await gw.tracker('{"webhookEvent": "jira:issue_created",')).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
    expect(await gw.scmhost('not json at all')).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
    expect(await responses(gw.metrics)).toEqual({ 'tracker 400': 1, 'scmhost 400': 1 });
  });

  it('counts a body over the limit once as a 413', async () => {
    const gw = await gateway(async () => ({ workflowId: 'unused' }));
    expect(await gw.oversized()).toBe(413);
    expect(await responses(gw.metrics)).toEqual({ 'scmhost 413': 1 });
  });

  it('counts a hand-over that threw, even with something that is no Error, once as a 500', async () => {
    // A library that rejects with undefined used to make the route's own error path throw (reading .message of it).
    const gw = await gateway(() => Promise.reject(undefined));
    expect(await gw.tracker(managedIssue('RESP-1'))).toMatchObject({ status: 500, body: { error: { code: 'internal_error' } } });
    expect(await responses(gw.metrics)).toEqual({ 'tracker 500': 1 });
  });

  it('counts the accepted deliveries as 200', async () => {
    const gw = await gateway(async () => ({ workflowId: 'ticket-RESP-2' }));
    expect((await gw.tracker(managedIssue('RESP-2'))).status).toBe(200);
    expect(await responses(gw.metrics)).toEqual({ 'tracker 200': 1 });
  });
});

describe('the counter in front of a route, with the gateway error handler behind it', () => {
  async function app(route: express.RequestHandler) {
    const metrics = createServiceMetrics();
    const app = express();
    app.post('/hook', webhookResponseCounter('gitlab', metrics), route);
    app.use(gatewayErrorHandler(quiet));
    server = await listen(createServer(app), '127.0.0.1', 0, 'test app');
    return { metrics, url: `${server.url}/hook` };
  }

  it('counts the 500 of an exception the route did not catch, under the route\'s source', async () => {
    const { metrics, url } = await app(async () => { throw new Error('a bug in a normaliser'); });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 'internal_error', message: 'a bug in a normaliser' } });
    expect(await responses(metrics)).toEqual({ 'gitlab 500': 1 });
  });

  it('counts an answer once when the route throws after answering', async () => {
    const { metrics, url } = await app(async (_req, res) => {
      res.status(202).json({ status: 'queued' });
      throw new Error('after the answer');
    });
    expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await responses(metrics)).toEqual({ 'gitlab 202': 1 });
  });

  it('counts a sender that hung up before any answer as 499', async () => {
    let answer: (() => void) | undefined;
    const { metrics, url } = await app(async (_req, res) => {
      await new Promise<void>((resolve) => { answer = resolve; });
      res.status(202).json({ status: 'queued' });
    });
    const hungUp = new Promise<void>((resolve) => {
      const req = request(url, { method: 'POST' });
      req.on('error', () => resolve());
      req.end('{}');
      const waitForRoute = setInterval(() => { if (answer) { clearInterval(waitForRoute); req.destroy(); } }, 5);
    });
    await hungUp;
    await expect.poll(() => responses(metrics)).toEqual({ 'gitlab 499': 1 });
    answer!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await responses(metrics)).toEqual({ 'gitlab 499': 1 });
  });
});
