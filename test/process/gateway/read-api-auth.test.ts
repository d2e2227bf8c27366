import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { listen, type ListeningServer } from '../../../src/http/listen';

// The HTTP contract of the guard, without Temporal: a port that must never be reached when auth fails.
const unreachable = new Proxy({}, {
  get: () => () => Promise.reject(new Error('must not be called')),
}) as TicketWorkflowsPort;

let server: ListeningServer | undefined;
afterEach(async () => server?.close());

async function gateway(env: NodeJS.ProcessEnv): Promise<string> {
  // Webhook secrets as in production: the gateway refuses to start without them (these tests use no webhook).
  const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: 'unit-tracker-secret', SCMHOST_WEBHOOK_SECRET: 'unit-scmhost-secret', ...env }).config!;
  const app = createGatewayApp({ config, workflows: unreachable, metrics: createServiceMetrics(), logger: createLogger({ level: 'error', write: () => undefined }) });
  server = await listen(createServer(app), '127.0.0.1', 0, 'test gateway');
  return server.url;
}

describe('operator routes', () => {
  it('are disabled with 503 when SERVICE_OPERATOR_TOKEN is unset, even with a header', async () => {
    const url = await gateway({});
    for (const path of ['/api/v1/workflows/A-1/execution', '/api/v1/workflows/A-1/execution/timeline', '/api/v1/org-pulse/workflows/A-1']) {
      const response = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer anything' } });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: { code: 'routes_disabled', message: 'SERVICE_OPERATOR_TOKEN is not set: these routes are disabled' } });
    }
  });

  it('say why a query-string token is refused', async () => {
    const url = await gateway({ SERVICE_OPERATOR_TOKEN: 'sekrit-token' });
    const response = await fetch(`${url}/api/v1/workflows/A-1/execution?token=sekrit-token`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('query string is not accepted');
  });

  it('answer 404 with JSON for unknown routes', async () => {
    const url = await gateway({});
    const response = await fetch(`${url}/api/v1/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'no route for GET /api/v1/nothing' } });
  });
});
