import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { answerMetrics, metricsAccess } from '../../../src/metrics/metrics-endpoint';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';

const TOKEN = 'worker-scrape-token-abcdef0123';

describe('metricsAccess', () => {
  it('lets anyone in without a token, and with one only its bearer', () => {
    expect(metricsAccess(undefined, undefined)).toEqual({ allowed: true });
    expect(metricsAccess(`Bearer ${TOKEN}`, TOKEN)).toEqual({ allowed: true });
    expect(metricsAccess(`bearer   ${TOKEN}  `, TOKEN)).toEqual({ allowed: true });
    expect(metricsAccess(undefined, TOKEN)).toMatchObject({ allowed: false, message: expect.stringContaining('missing Authorization: Bearer header') });
    for (const header of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', `Token ${TOKEN}`, TOKEN]) {
      expect(metricsAccess(header, TOKEN).allowed, header).toBe(false);
    }
  });
});

describe('answerMetrics on a plain Node server (the worker\'s metrics port)', () => {
  let server: ListeningServer | undefined;
  afterEach(async () => server?.close());

  it('refuses a scrape without the token before it collects anything, and answers the registry with it', async () => {
    const metrics = createServiceMetrics();
    let collected = 0;
    server = await listen(createServer((req, res) => { void answerMetrics(req, res, { registry: metrics.registry, token: TOKEN, beforeCollect: () => { collected += 1; } }); }), '127.0.0.1', 0, 'test worker metrics');
    const refused = await fetch(`${server.url}/metrics?token=${TOKEN}`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('SERVICE_METRICS_TOKEN is set') } });
    expect(collected).toBe(0);
    const allowed = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('service_worker_cached_workflows');
    expect(collected).toBe(1);
  });
});
