import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BlockingCode } from '../../workflows/runtime/blocking';

/**
 * The metric families of SPEC 4.5. The gateway and the worker each expose one registry with all families, so a
 * dashboard finds every name on either port (zero where that process has nothing to count).
 */
export const WORKFLOW_TYPES = ['feature', 'bug', 'task_takeover'] as const;
export const WEBHOOK_SOURCES = {
  tracker: ['issue_created', 'issue_updated', 'issue_commented'],
  scmhost: ['pull_request', 'pull_request_review', 'check_run', 'issue_comment'],
  gitlab: ['merge_request', 'note', 'pipeline', 'push'],
} as const;
/** SPEC 3.2's blocking codes, so every reason has a series (at 0) before the first block of that kind. */
export const BLOCKING_REASONS = [
  'missing_project_config', 'invalid_repo_assignment', 'unrecognized_command', 'conflicting_evidence', 'effect_unresolved',
  'invalid_station_result', 'missing_workflow_route', 'ci_fix_limit', 'invalid_model_policy', 'station_not_available',
  'station_failed', 'retry_bound_exhausted', 'pull_request_closed', 'escalated', 'budget_exhausted', 'stopped',
] as const satisfies readonly BlockingCode[];
// A blocking code added to workflows/runtime/blocking.ts and missing here fails the typecheck.
const everyBlockingReason: [Exclude<BlockingCode, (typeof BLOCKING_REASONS)[number]>] extends [never] ? true : never = true;
void everyBlockingReason;

export interface ServiceMetrics {
  registry: Registry;
  workflowsStarted: Counter<'type'>;
  workflowsCompleted: Counter<'type'>;
  workflowsFailed: Counter<'type'>;
  ciFixAttempts: Counter;
  agentDuration: Histogram;
  phaseDuration: Histogram<'phase'>;
  webhooksReceived: Counter<'source' | 'event'>;
  webhooksProcessed: Counter<'source' | 'event'>;
  webhooksFailed: Counter<'source' | 'event'>;
  webhooksIgnored: Counter<'source' | 'reason'>;
  externalApiLatency: Histogram<'service'>;
  readModelLatency: Histogram<'route'>;
  /** Read API answers by where they came from: the workflow's memo (no worker) or a query (the worker, maybe a replay). */
  readModelAnswers: Counter<'route' | 'source'>;
  waitingAge: Histogram;
  retryCount: Gauge;
  driftState: Gauge;
  blockedState: Gauge;
  migrationEligibility: Gauge;
  /** Model tokens (input plus output) spent by stations, by stage (issue 17: budgets). */
  tokensSpent: Counter<'stage'>;
  /**
   * After each station attempt that spent tokens: the share of its ticket's budget (scope ticket) and of its stage's
   * budget (scope stage) the ticket has used; only budgets that have a limit are observed (issue 32: nearly exhausted).
   */
  tokenBudgetUsed: Histogram<'scope'>;
  /** Workflows held in the worker's cache; read from the worker when scraped (set by the worker process only). */
  cachedWorkflows: Gauge;
  /** Webhook answers by HTTP status: 5xx (503 when Temporal is unreachable) means the provider has to redeliver. */
  webhookResponses: Counter<'source' | 'code'>;
  /**
   * Webhook bodies refused before their signature could be checked, by reason: a cap of the pending-body budget
   * (route_pending_bodies, pending_bodies, pending_bytes) or too_large (issue 41 point 4).
   */
  webhookBodiesRefused: Counter<'source' | 'reason'>;
  /** Bytes held right now by webhook bodies not yet authenticated (bounded by SERVICE_GATEWAY_MAX_PENDING_BODY_MIB). */
  webhookPendingBodyBytes: Gauge;
  /** Tickets that entered the blocked state, by blocking code (counted by the worker that ran the block). */
  ticketsBlocked: Counter<'reason'>;
  /** Provider mutations attempted by the effect runner, by operation kind and the attempt's outcome. */
  effectAttempts: Counter<'kind' | 'status'>;
  /** Station activity runs by station and outcome (`error` when the activity threw: retried or blocked). */
  stationRuns: Counter<'station' | 'outcome'>;
  stationDuration: Histogram<'station'>;
  /** 1 while the worker has a poll outstanding on the task queue (sampled when scraped; set by the worker only). */
  workerPolling: Gauge<'poller'>;
  /** Open tickets by workflow type, status and position (node), counted from Temporal visibility (gateway only). */
  tickets: Gauge<'workflow_type' | 'status' | 'position' | 'blocked'>;
  /** When the gateway last counted the open tickets (unix seconds); stale when visibility is failing. */
  ticketCensusTimestamp: Gauge;
}

export interface ServiceMetricsOptions {
  defaultMetrics?: boolean;
  /** Run when service_tickets is scraped, to recount it (the gateway's census from Temporal visibility). */
  countTickets?: () => Promise<void>;
}

export function createServiceMetrics(options: ServiceMetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'service_process_' });
  const registers = [registry];
  // Both census gauges wait for the same recount: the registry reads its metrics concurrently.
  const census = options.countTickets ? { collect: options.countTickets } : {};
  const metrics: ServiceMetrics = {
    registry,
    workflowsStarted: new Counter({ name: 'service_workflows_started_total', help: 'Ticket workflows started, by workflow type', labelNames: ['type'], registers }),
    workflowsCompleted: new Counter({ name: 'service_workflows_completed_total', help: 'Ticket workflows completed, by workflow type', labelNames: ['type'], registers }),
    workflowsFailed: new Counter({ name: 'service_workflows_failed_total', help: 'Ticket workflows failed, by workflow type', labelNames: ['type'], registers }),
    ciFixAttempts: new Counter({ name: 'service_ci_fix_attempts_total', help: 'CI fix attempts made', registers }),
    agentDuration: new Histogram({ name: 'service_agent_duration_seconds', help: 'Agent execution time', buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800], registers }),
    phaseDuration: new Histogram({ name: 'service_phase_duration_seconds', help: 'Time per workflow phase', labelNames: ['phase'], buckets: [1, 10, 60, 300, 900, 3600, 14400, 86400], registers }),
    webhooksReceived: new Counter({ name: 'service_webhooks_received_total', help: 'Webhook deliveries received', labelNames: ['source', 'event'], registers }),
    webhooksProcessed: new Counter({ name: 'service_webhooks_processed_total', help: 'Webhook deliveries handed to Temporal or deliberately ignored', labelNames: ['source', 'event'], registers }),
    webhooksFailed: new Counter({ name: 'service_webhooks_failed_total', help: 'Webhook deliveries rejected or not handed over', labelNames: ['source', 'event'], registers }),
    webhooksIgnored: new Counter({ name: 'service_webhooks_ignored_total', help: 'Webhook deliveries answered but not forwarded, by reason', labelNames: ['source', 'reason'], registers }),
    externalApiLatency: new Histogram({ name: 'service_external_api_latency_seconds', help: 'Latency of calls to the tracker, the source host and the model', labelNames: ['service'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers }),
    readModelLatency: new Histogram({ name: 'service_read_model_latency_seconds', help: 'Read API latency', labelNames: ['route'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers }),
    readModelAnswers: new Counter({ name: 'service_read_model_answers_total', help: 'Read API answers, by route and source (memo: from the workflow memo; query: by a workflow query)', labelNames: ['route', 'source'], registers }),
    waitingAge: new Histogram({ name: 'service_execution_waiting_age_seconds', help: 'How long executions waited', buckets: [60, 300, 900, 3600, 14400, 86400, 604800], registers }),
    retryCount: new Gauge({ name: 'service_execution_retry_count', help: 'Retry count of the most recently sampled execution', registers }),
    driftState: new Gauge({ name: 'service_execution_drift_state', help: 'Observation drift of the most recently sampled execution (0 fresh, 1 stale, 2 conflicting)', registers }),
    blockedState: new Gauge({ name: 'service_execution_blocked_state', help: 'Whether the most recently sampled execution is blocked (1) or not (0)', registers }),
    migrationEligibility: new Gauge({ name: 'service_execution_migration_eligibility', help: 'Migration eligibility of the most recently sampled execution (1 eligible, 0 not, -1 no decision)', registers }),
    tokensSpent: new Counter({ name: 'service_tokens_spent_total', help: 'Model tokens (input plus output) spent by stations, by stage', labelNames: ['stage'], registers }),
    tokenBudgetUsed: new Histogram({ name: 'service_token_budget_used_ratio', help: 'Share of a token budget (scope ticket or stage) the ticket has used, observed after each station attempt that spent tokens', labelNames: ['scope'], buckets: [0.25, 0.5, 0.8, 0.9, 1], registers }),
    cachedWorkflows: new Gauge({ name: 'service_worker_cached_workflows', help: 'Ticket workflows held in the worker\'s workflow cache (a query or task of one not held replays its history)', registers }),
    webhookResponses: new Counter({ name: 'service_webhook_responses_total', help: 'Webhook answers by source and HTTP status code (499: the sender hung up before any answer)', labelNames: ['source', 'code'], registers }),
    webhookBodiesRefused: new Counter({ name: 'service_webhook_bodies_refused_total', help: 'Webhook bodies refused before their signature could be checked, by source and reason (route_pending_bodies, pending_bodies, pending_bytes, too_large)', labelNames: ['source', 'reason'], registers }),
    webhookPendingBodyBytes: new Gauge({ name: 'service_webhook_pending_body_bytes', help: 'Bytes held by webhook bodies whose signature is not yet checked', registers }),
    ticketsBlocked: new Counter({ name: 'service_tickets_blocked_total', help: 'Tickets that became blocked, by blocking code', labelNames: ['reason'], registers }),
    effectAttempts: new Counter({ name: 'service_effect_attempts_total', help: 'Effect attempts (provider mutations), by operation kind and outcome', labelNames: ['kind', 'status'], registers }),
    stationRuns: new Counter({ name: 'service_station_runs_total', help: 'Station runs, by station and outcome (error: the activity threw)', labelNames: ['station', 'outcome'], registers }),
    stationDuration: new Histogram({ name: 'service_station_duration_seconds', help: 'Station run time, by station', labelNames: ['station'], buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600], registers }),
    workerPolling: new Gauge({ name: 'service_worker_polling', help: 'Whether the worker has a poll outstanding on its task queue (1) or not (0), by poller', labelNames: ['poller'], registers }),
    tickets: new Gauge({ name: 'service_tickets', help: 'Open tickets by workflow type, status, position and blocked flag (Temporal visibility, counted by the gateway)', labelNames: ['workflow_type', 'status', 'position', 'blocked'], registers, ...census }),
    ticketCensusTimestamp: new Gauge({ name: 'service_ticket_census_timestamp_seconds', help: 'When the gateway last counted the open tickets (unix seconds)', registers, ...census }),
  };
  for (const type of WORKFLOW_TYPES) {
    metrics.workflowsStarted.inc({ type }, 0);
    metrics.workflowsCompleted.inc({ type }, 0);
    metrics.workflowsFailed.inc({ type }, 0);
  }
  for (const [source, events] of Object.entries(WEBHOOK_SOURCES)) {
    for (const event of events) {
      metrics.webhooksReceived.inc({ source, event }, 0);
      metrics.webhooksProcessed.inc({ source, event }, 0);
      metrics.webhooksFailed.inc({ source, event }, 0);
    }
  }
  for (const service of ['tracker', 'scmhost', 'llm']) metrics.externalApiLatency.zero({ service });
  for (const scope of ['ticket', 'stage']) metrics.tokenBudgetUsed.zero({ scope });
  // rate() needs a series before the first failure, or the first 503 of a source is lost to the alert.
  for (const source of Object.keys(WEBHOOK_SOURCES)) for (const code of ['500', '503']) metrics.webhookResponses.inc({ source, code }, 0);
  // The signed routes are the ones whose bodies are read before they are authenticated.
  for (const source of ['tracker', 'scmhost']) {
    for (const reason of ['route_pending_bodies', 'pending_bodies', 'pending_bytes', 'too_large']) metrics.webhookBodiesRefused.inc({ source, reason }, 0);
  }
  for (const reason of BLOCKING_REASONS) metrics.ticketsBlocked.inc({ reason }, 0);
  metrics.migrationEligibility.set(-1);
  return metrics;
}
