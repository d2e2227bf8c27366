import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { failed, passed, readinessAnswer, type ReadinessAnswer } from '../../../src/health/readiness';

let server: ListeningServer | undefined;
afterEach(async () => server?.close());

async function gateway(ready?: () => Promise<ReadinessAnswer>): Promise<string> {
  const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: 'unit-tracker-secret', SCMHOST_WEBHOOK_SECRET: 'unit-scmhost-secret' }).config!;
  const app = createGatewayApp({ config, workflows: {} as TicketWorkflowsPort, metrics: createServiceMetrics(), logger: createLogger({ level: 'error', write: () => undefined }), ready });
  server = await listen(createServer(app), '127.0.0.1', 0, 'test gateway');
  return server.url;
}

describe('the gateway\'s health routes', () => {
  it('keep /api/v1/health as it was, and answer liveness without checking anything', async () => {
    const url = await gateway(async () => { throw new Error('readiness must not be asked'); });
    const health = await fetch(`${url}/api/v1/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    const live = await fetch(`${url}/api/v1/health/live`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'alive' }]);
    expect(live.headers.get('cache-control')).toBe('no-store');
  });

  it('answer readiness with the probe\'s status code and body', async () => {
    let answer = readinessAnswer([passed('temporal', 'up'), passed('namespace', 'ns'), passed('search_attributes', 'ok')]);
    const url = await gateway(async () => answer);
    const ready = await fetch(`${url}/api/v1/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', failed: [] });
    answer = readinessAnswer([passed('temporal', 'up'), failed('namespace', 'namespace "nope" does not exist')]);
    const unready = await fetch(`${url}/api/v1/health/ready`);
    expect(unready.status).toBe(503);
    expect(await unready.json()).toMatchObject({ status: 'not_ready', failed: [{ name: 'namespace', reason: 'namespace "nope" does not exist' }] });
  });

  it('never claim readiness without a probe', async () => {
    const url = await gateway();
    const ready = await fetch(`${url}/api/v1/health/ready`);
    expect(ready.status).toBe(503);
  });
});
