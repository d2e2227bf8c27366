import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  /** Workflows held in the worker's cache; read from the worker when scraped (set by the worker process only). */
  cachedWorkflows: Gauge;
}

export function createServiceMetrics(options: { defaultMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'service_process_' });
  const registers = [registry];
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
    cachedWorkflows: new Gauge({ name: 'service_worker_cached_workflows', help: 'Ticket workflows held in the worker\'s workflow cache (a query or task of one not held replays its history)', registers }),
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
  metrics.migrationEligibility.set(-1);
  return metrics;
}
