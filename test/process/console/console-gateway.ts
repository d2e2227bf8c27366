import { createServer } from 'node:http';
import { createGatewayApp } from '../../../src/gateway/app';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { listen, type ListeningServer } from '../../../src/http/listen';
import type { ListedTicket } from '../../../src/console/board/listed-ticket';
import { boardTicketOf } from '../../../src/console/board/board-ticket';
import type { ConsoleDefinitionsPort } from '../../../src/console/console-definitions';
import type { TimelineEntry } from '../../../workflows/read-model/timeline';

export const TOKEN = 'console-unit-token';

/**
 * The gateway app with the console over in-memory ports: the listed tickets, their views (from `listed`) and
 * timelines. Writes to the workflows port fail the test.
 */
export async function consoleGateway(listed: ListedTicket[], timelines: Record<string, TimelineEntry[]> = {}, env: NodeJS.ProcessEnv = {}, definitions?: ConsoleDefinitionsPort): Promise<ListeningServer> {
  const config = loadServiceConfig({
    TRACKER_WEBHOOK_SECRET: 'unit-tracker-secret', SCMHOST_WEBHOOK_SECRET: 'unit-scmhost-secret', SERVICE_OPERATOR_TOKEN: TOKEN,
    TRACKER_BASE_URL: 'https://tracker.example', TEMPORAL_UI_URL: 'http://127.0.0.1:8233', ...env,
  }).config!;
  const byKey = new Map(listed.map((t) => [t.ticketKey, t]));
  const workflows = new Proxy({
    execution: async (key: string) => byKey.get(key)?.view,
    timeline: async (key: string, cursor: number, limit: number) => {
      if (!byKey.has(key)) return undefined;
      const entries = timelines[key] ?? [];
      const page = entries.slice(cursor, cursor + limit);
      return { schema_version: '1.0' as const, entries: page, next_cursor: cursor + page.length < entries.length ? cursor + page.length : null, total: entries.length };
    },
  }, { get: (target, name) => (name in target ? target[name as keyof typeof target] : () => Promise.reject(new Error(`the console must not call ${String(name)}`))) }) as unknown as TicketWorkflowsPort;
  const app = createGatewayApp({
    config, workflows, metrics: createServiceMetrics(), logger: createLogger({ level: 'error', write: () => undefined }),
    console: { tickets: { list: async () => ({ tickets: listed.map(boardTicketOf), listedAt: new Date(Date.now() - 2_000) }), get: async (key) => byKey.get(key) }, definitions, budgets: { ticket: 100_000, stage: 40_000, stages: {} } },
  });
  return listen(createServer(app), '127.0.0.1', 0, 'console test gateway');
}

export const bearer = { authorization: `Bearer ${TOKEN}` };
