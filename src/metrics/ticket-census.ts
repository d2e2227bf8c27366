import type { Client, Connection } from '@temporalio/client';
import { searchAttributes } from '../../workflows/messages';
import type { ServiceMetrics } from './service-metrics';

/** One open ticket as Temporal visibility shows it (its search attributes). */
export interface CensusEntry {
  workflowType: string;
  status: string;
  position: string;
  blocked: boolean;
}

export interface CensusRow {
  labels: { workflow_type: string; status: string; position: string; blocked: 'true' | 'false' };
  count: number;
}

/** Groups the open tickets into the label sets of service_tickets. Pure: the listing happens elsewhere. */
export function censusRows(entries: Iterable<CensusEntry>): CensusRow[] {
  const rows = new Map<string, CensusRow>();
  for (const entry of entries) {
    const labels = { workflow_type: entry.workflowType, status: entry.status, position: entry.position, blocked: entry.blocked ? 'true' as const : 'false' as const };
    const key = JSON.stringify(labels);
    const row = rows.get(key);
    if (row) row.count += 1;
    else rows.set(key, { labels, count: 1 });
  }
  return [...rows.values()];
}

export interface TicketCensusOptions {
  /** Lists the open tickets; rejects when visibility cannot be read. Must settle in bounded time (a deadline). */
  list: () => Promise<Iterable<CensusEntry>>;
  /** A count younger than this is served again: several Prometheus servers or a short interval cost one listing. */
  maxAgeMs?: number;
  /** How long a scrape waits for a recount before it is answered with the previous count (the recount goes on). */
  waitMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

export interface TicketCensus {
  /** Recounts unless the last count is younger than maxAgeMs; the registry calls it when service_tickets is scraped. */
  count(): Promise<void>;
  /**
   * No more counts; resolves when the listing in flight has settled (within its deadline), so nothing uses the
   * connection after it is closed.
   */
  stop(): Promise<void>;
}

/**
 * Keeps service_tickets current when it is scraped. The gauge is recounted from visibility at most every maxAgeMs;
 * a listing that fails keeps the last count and leaves service_ticket_census_timestamp_seconds behind, which an
 * alert can see. Concurrent scrapes share one listing.
 */
export function ticketCensus(metrics: Pick<ServiceMetrics, 'tickets' | 'ticketCensusTimestamp'>, options: TicketCensusOptions): TicketCensus {
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const now = options.now ?? Date.now;
  let stopped = false;
  let countedAt = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | undefined;
  const recount = async () => {
    const entries = await options.list();
    metrics.tickets.reset();
    for (const row of censusRows(entries)) metrics.tickets.set(row.labels, row.count);
    countedAt = now();
    metrics.ticketCensusTimestamp.set(countedAt / 1000);
  };
  return {
    async count() {
      if (stopped || now() - countedAt < maxAgeMs) return;
      running ??= recount().catch((error: unknown) => options.onError?.(error)).finally(() => { running = undefined; });
      // A slow visibility store must not make the whole scrape time out: Prometheus would lose every other family too.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise<void>((resolve) => { timer = setTimeout(resolve, options.waitMs ?? 3_000).unref(); })]);
      clearTimeout(timer);
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/**
 * The open ticket workflows of this deployment's task queue from visibility (another deployment sharing the
 * namespace is not counted); executions without the ticket attributes (the poller, the registry) are skipped. All
 * page requests share one deadline: without it the client retries an unreachable server in the background, and a
 * retry that fires after the gateway closed its connection crashes the process (a cancelled call does not stop the
 * retry timer either; a deadline ends the call for good).
 */
export async function openTicketsFromVisibility(connection: Connection, client: Client, taskQueue: string, deadlineMs = 10_000): Promise<CensusEntry[]> {
  const query = `ExecutionStatus = 'Running' AND TaskQueue = ${JSON.stringify(taskQueue)}`;
  return connection.withDeadline(Date.now() + deadlineMs, async () => {
    const entries: CensusEntry[] = [];
    for await (const execution of client.workflow.list({ query, pageSize: 1000 })) {
      const attributes = execution.typedSearchAttributes;
      const status = attributes.get(searchAttributes.status);
      if (status === undefined) continue;
      entries.push({
        workflowType: attributes.get(searchAttributes.workflowType) ?? 'unknown',
        status,
        position: attributes.get(searchAttributes.node) ?? 'unknown',
        blocked: attributes.get(searchAttributes.blocked) ?? false,
      });
    }
    return entries;
  });
}
