/**
 * /metrics off the public port: with SERVICE_METRICS_TOKEN a scrape needs `Authorization: Bearer <token>`; with
 * SERVICE_GATEWAY_METRICS_PORT the public app does not serve /metrics at all, the metrics listener does. Real HTTP.
 */
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createGatewayApp } from '../../../src/gateway/app';
import { listenGatewayMetrics } from '../../../src/gateway/metrics-listener';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import { failed, passed, readinessAnswer, type ReadinessAnswer } from '../../../src/health/readiness';

const TOKEN = 'metrics-scrape-token-0123456789';
const SECRETS = { TRACKER_WEBHOOK_SECRET: 'unit-tracker-secret', SCMHOST_WEBHOOK_SECRET: 'unit-scmhost-secret' };

const servers: Array<Pick<ListeningServer, 'close'>> = [];
afterEach(async () => { await Promise.all(servers.splice(0).map((server) => server.close())); });

async function gateway(env: NodeJS.ProcessEnv): Promise<{ url: string; metricsUrl?: string }> {
  const config = loadServiceConfig({ ...SECRETS, ...env }).config!;
  const metrics = createServiceMetrics();
  const app = createGatewayApp({ config, workflows: {} as TicketWorkflowsPort, metrics, logger: createLogger({ level: 'error', write: () => undefined }) });
  const server = await listen(createServer(app), '127.0.0.1', 0, 'test gateway');
  servers.push(server);
  const apart = await listenGatewayMetrics(config, metrics);
  if (apart) servers.push(apart);
  return { url: server.url, metricsUrl: apart?.url };
}

const scrape = (url: string, authorization?: string) => fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} });

describe('the gateway\'s /metrics', () => {
  it('with SERVICE_METRICS_TOKEN: 401 without the token, with another one or with it in the query string; 200 with it', async () => {
    const { url } = await gateway({ SERVICE_METRICS_TOKEN: TOKEN });
    for (const attempt of [scrape(url), scrape(url, 'Bearer not-the-token'), scrape(url, `Basic ${TOKEN}`), fetch(`${url}/metrics?token=${TOKEN}`)]) {
      const answer = await attempt;
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const body = await answer.text();
      expect(body).not.toContain('service_');
      expect(body).not.toContain(TOKEN);
    }
    const allowed = await scrape(url, `Bearer ${TOKEN}`);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('service_webhook_responses_total');
  });

  it('without a token and without a metrics port it stays where it was: open on the public port', async () => {
    const { url, metricsUrl } = await gateway({});
    expect(metricsUrl).toBeUndefined();
    expect((await scrape(url)).status).toBe(200);
  });

  it('with SERVICE_GATEWAY_METRICS_PORT: the public port answers 404, the metrics listener serves it (and nothing else)', async () => {
    const { url, metricsUrl } = await gateway({ SERVICE_GATEWAY_METRICS_HOST: '127.0.0.1', SERVICE_GATEWAY_METRICS_PORT: '0' });
    const publicAnswer = await scrape(url);
    expect(publicAnswer.status).toBe(404);
    expect(await publicAnswer.json()).toEqual({ error: { code: 'not_found', message: 'no route for GET /metrics' } });
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const apart = await scrape(metricsUrl!);
    expect(apart.status).toBe(200);
    expect(await apart.text()).toContain('service_webhook_responses_total');
    const other = await fetch(`${metricsUrl!}/api/v1/webhooks/tracker`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    // The webhooks stay on the public port.
    expect((await fetch(`${url}/api/v1/webhooks/tracker`, { method: 'POST', body: '{}' })).status).toBe(401);
  });

  it('with SERVICE_GATEWAY_METRICS_PORT: the metrics listener answers the health probes as the public port does, without the token', async () => {
    const config = loadServiceConfig({ ...SECRETS, SERVICE_GATEWAY_METRICS_HOST: '127.0.0.1', SERVICE_GATEWAY_METRICS_PORT: '0', SERVICE_METRICS_TOKEN: TOKEN }).config!;
    let readiness: ReadinessAnswer = readinessAnswer([passed('temporal', 'reachable')]);
    const apart = (await listenGatewayMetrics(config, createServiceMetrics(), async () => readiness))!;
    servers.push(apart);
    const health = await fetch(`${apart.url}/api/v1/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    const live = await fetch(`${apart.url}/api/v1/health/live`);
    expect([live.status, live.headers.get('cache-control'), await live.json()]).toEqual([200, 'no-store', { status: 'alive' }]);
    expect((await fetch(`${apart.url}/api/v1/health/ready`)).status).toBe(200);
    readiness = readinessAnswer([failed('temporal', 'connection refused')]);
    const notReady = await fetch(`${apart.url}/api/v1/health/ready`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ failed: [{ name: 'temporal' }] });
    // Probes read; nothing else of the public API is served here.
    expect((await fetch(`${apart.url}/api/v1/health`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${apart.url}/api/v1/workflows/ABC-1/execution`)).status).toBe(404);
  });

  it('both: the metrics listener asks for the token too', async () => {
    const { metricsUrl } = await gateway({ SERVICE_GATEWAY_METRICS_PORT: '0', SERVICE_GATEWAY_METRICS_HOST: '127.0.0.1', SERVICE_METRICS_TOKEN: TOKEN });
    expect((await scrape(metricsUrl!)).status).toBe(401);
    expect((await scrape(metricsUrl!, `Bearer ${TOKEN}`)).status).toBe(200);
  });
});

describe('the metrics settings', () => {
  it('refuse a metrics host without its port, and a metrics port that is the public one', () => {
    expect(loadServiceConfig({ SERVICE_GATEWAY_METRICS_HOST: '10.0.0.5' }).problems).toEqual([
      'SERVICE_GATEWAY_METRICS_HOST is set but SERVICE_GATEWAY_METRICS_PORT is not: set the port that serves the gateway\'s /metrics apart from the public port, or unset the host',
    ]);
    expect(loadServiceConfig({ SERVICE_GATEWAY_PORT: '9000', SERVICE_GATEWAY_METRICS_PORT: '9000' }).problems).toEqual([
      'SERVICE_GATEWAY_METRICS_PORT is the public port (SERVICE_GATEWAY_PORT 9000): choose another port, one that is not reachable from the internet',
    ]);
    expect(loadServiceConfig({ SERVICE_GATEWAY_METRICS_PORT: '9100' }).config?.gateway.metrics).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(loadServiceConfig({}).config?.gateway.metrics).toBeUndefined();
  });
});
