import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createGatewayApp } from '../../../src/gateway/app';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';

/** Every route the gateway serves, read from Express's own router (so a new route without documentation fails). */
function servedRoutes(): string[] {
  const app = createGatewayApp({
    config: loadServiceConfig({ TRACKER_WEBHOOK_SECRET: 'unit-tracker-secret', SCMHOST_WEBHOOK_SECRET: 'unit-scmhost-secret' }).config!, workflows: {} as TicketWorkflowsPort, metrics: createServiceMetrics(),
    logger: createLogger({ level: 'error', write: () => undefined }),
  });
  const routes: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) for (const method of Object.keys(layer.route.methods)) routes.push(`${method} ${layer.route.path}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as any).router.stack);
  return routes.map((r) => r.replace(/:(\w+)/g, '{$1}')).sort();
}

describe('docs/openapi.yaml', () => {
  it('documents exactly the routes the gateway serves', () => {
    const doc = parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`)).sort();
    expect(documented).toEqual(servedRoutes());
  });
});
