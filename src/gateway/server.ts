import { Client, Connection } from '@temporalio/client';
import { loadRepositoryRegistry } from '../config/repository-registry';
import type { ServiceConfig } from '../config/service-config';
import { listen, type ListeningServer } from '../http/listen';
import type { Logger } from '../logging/logger';
import { createServiceMetrics } from '../metrics/service-metrics';
import { openTicketsFromVisibility, ticketCensus } from '../metrics/ticket-census';
import { createGatewayApp } from './app';
import { createGatewayServer } from './server-options';
import { listenGatewayMetrics } from './metrics-listener';
import { TemporalTicketWorkflows, ticketSettings } from '../temporal/ticket-workflows';
import { gatewayConnectionOptions } from '../temporal/connection-options';
import { drainServer } from '../http/drain';
import { gatewayReadiness } from '../health/service-readiness';
import { cachedIssueKeys } from '../ingress/tracker/comment-issue';
import { createTrackerClient } from '../providers/tracker/tracker-client';
import { learnTrackerAccountId, loopGuardOf, trackerAccountReport } from '../ingress/loop-guard';
import { requireWebhookSecrets } from '../config/webhook-secrets';
import { TemporalTicketListing } from '../console/ticket-listing';
import { budgetDefaultsFromEnv, type BudgetLimits } from '../budgets/token-budget';

export interface RunningGateway extends ListeningServer {
  stop(): Promise<void>;
}

/** The deployment's token budgets for the console; the worker refuses bad values, the console then shows no limits. */
function consoleBudgets(logger: Logger): BudgetLimits {
  try {
    return budgetDefaultsFromEnv(process.env);
  } catch (error) {
    logger.warn('the console shows no token budgets', { error: (error as Error).message });
    return { ticket: null, stage: null, stages: {} };
  }
}

export async function startGateway(config: ServiceConfig, logger: Logger): Promise<RunningGateway> {
  const registry = loadRepositoryRegistry(process.env);
  // Before anything else: no secret and no opt-in is a configuration error; with the opt-in, say it loudly.
  const unsigned = requireWebhookSecrets(config, registry, process.env);
  if (unsigned) logger.warn(unsigned);
  // Lazy: the gateway starts (and answers its probes) while Temporal is still down. One connection serves the
  // webhooks and the readiness checks, so readiness judges the channel the webhooks use.
  // Its receive limit is raised (CLIENT_CHANNEL_ARGS): a page of the board's listing or the census can pass 4 MiB.
  const connection = Connection.lazy({ ...gatewayConnectionOptions(config.temporal), connectTimeout: 3_000 });
  const workflows = new TemporalTicketWorkflows(connection, config.temporal.namespace, config.temporal.taskQueue, ticketSettings(config));
  let stopRequested = false;
  const ready = gatewayReadiness({ connection, config, stopRequested: () => stopRequested });
  // service_tickets (open tickets by status and position) is recounted from visibility when scraped, at most every 30 s.
  // The registry calls the census only when scraped, by which time it exists.
  const metrics = createServiceMetrics({ defaultMetrics: true, countTickets: () => census.count() });
  const visibility = new Client({ connection, namespace: config.temporal.namespace });
  const census = ticketCensus(metrics, {
    list: () => openTicketsFromVisibility(connection, visibility, config.temporal.taskQueue),
    onError: (error) => logger.warn('open tickets could not be counted from Temporal visibility; service_tickets keeps the last count', { error: (error as Error).message }),
  });
  workflows.onRead = (route, source) => metrics.readModelAnswers.inc({ route, source });
  const { baseUrl, userEmail, apiToken } = config.tracker;
  const onLatency = (service: string, seconds: number) => metrics.externalApiLatency.observe({ service }, seconds);
  // A webhook waits on this lookup: keep it short, and let Jira redeliver (503) rather than hold the request.
  const tracker = baseUrl && userEmail && apiToken
    ? createTrackerClient({ baseUrl, email: userEmail, apiToken, onLatency, timeoutMs: 5_000, retry: { maxAttempts: 2, initialDelayMs: 200, maxDelayMs: 1_000 } })
    : undefined;
  const issueKeys = tracker && cachedIssueKeys(async (id) => (await tracker.getIssue(id)).key);
  const comments = tracker && { adfBodyOf: async (key: string, id: string) => (await tracker.getComment(key, id)).bodyAdf };
  const issueLabels = tracker && { labelsOf: async (key: string) => (await tracker.getIssue(key)).labels };
  const guard = loopGuardOf(config);
  const account = tracker && learnTrackerAccountId(guard, () => tracker.serviceAccountId().then((accountId) => ({ accountId })), trackerAccountReport(logger));
  const definitions = workflows.definitions();
  const listing = config.console.enabled ? new TemporalTicketListing(connection, visibility, config.temporal.taskQueue, {
    onRefreshError: (error) => logger.warn('the console could not read the ticket listing again; the board shows the one it has (and its age) until it is 5 minutes old', { error: (error as Error).message }),
  }) : undefined;
  const consoleReads = listing ? { tickets: listing, definitions: definitions.registry, budgets: consoleBudgets(logger) } : undefined;
  const app = createGatewayApp({ config, workflows, metrics, logger, registry, issueKeys, comments, issueLabels, definitions, guard, ready, console: consoleReads });
  // Timeouts and a connection cap (server-options.ts): what one client can hold on the public port is bounded.
  const listening = await listen(createGatewayServer(app, config.gateway), config.gateway.host, config.gateway.port, 'gateway');
  const metricsApart = await listenGatewayMetrics(config, metrics, ready).catch(async (error: unknown) => { await listening.close(); throw error; });
  logger.info('gateway listening', { url: listening.url, temporal: config.temporal.address, namespace: config.temporal.namespace, ...(metricsApart ? { metrics: `${metricsApart.url}/metrics` } : {}) });
  return {
    ...listening,
    stop: async () => {
      // Readiness answers 503 from here on; the listener closes and the requests in flight are answered.
      stopRequested = true;
      account?.stop();
      // No new ticket counts; one in flight settles within its deadline while the requests drain.
      const censusSettled = census.stop();
      logger.info('gateway stopping: no new connections; answering the requests in flight', { grace_seconds: config.shutdown.graceSeconds });
      if (!(await drainServer(listening.server, config.shutdown.graceSeconds * 1000))) {
        logger.warn('requests still open at the end of the shutdown grace were cut', { grace_seconds: config.shutdown.graceSeconds });
      }
      await censusSettled;
      await metricsApart?.close();
      await workflows.close().catch(() => undefined);
    },
  };
}
