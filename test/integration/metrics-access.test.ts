/**
 * /metrics kept off the internet, with the real `service gateway` and `service worker` processes: the gateway's on a
 * port of its own (the public port answers 404), and both behind SERVICE_METRICS_TOKEN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port';
import { startWorld, type World } from '../helpers/start-world';

const TOKEN = 'metrics-access-scrape-token-01234';

describe('metrics off the public port, behind a token', () => {
  let world: World;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    world = await startWorld({
      name: 'metrics-access',
      env: { SERVICE_POLL_INTERVAL_SECONDS: '0', SERVICE_METRICS_TOKEN: TOKEN, SERVICE_GATEWAY_METRICS_HOST: '127.0.0.1', SERVICE_GATEWAY_METRICS_PORT: String(metricsPort) },
    });
  }, 120_000);

  afterAll(async () => {
    if (world) expect(await world.stack.stop()).toEqual([0, 0]);
    await world?.close();
  });

  it('the gateway: 404 on the public port, 401 without the token on its metrics port, the families with it', async () => {
    const onPublic = await fetch(`${world.stack.api}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(onPublic.status).toBe(404);
    const apart = `http://127.0.0.1:${metricsPort}/metrics`;
    expect((await fetch(apart)).status).toBe(401);
    expect((await fetch(`${apart}?token=${TOKEN}`)).status).toBe(401);
    const allowed = await fetch(apart, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('service_webhook_responses_total');
    // The webhooks and the probes stay on the public port.
    expect((await fetch(`${world.stack.api}/api/v1/health/live`)).status).toBe(200);
  });

  it('the worker: 401 without the token, the families with it; its probes need none', async () => {
    const refused = await fetch(world.stack.workerMetricsUrl);
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain('service_');
    const allowed = await fetch(world.stack.workerMetricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('service_worker_polling');
    expect((await fetch(world.stack.workerMetricsUrl.replace(/\/metrics$/, '/health/live'))).status).toBe(200);
  });
});
