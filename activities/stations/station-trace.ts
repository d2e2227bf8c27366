import type { TraceContext } from '../../src/tracing/tracing-config';
import type { StationInput } from '../../workflows/runtime/station-types';
import { currentRepository } from './code-change/code-change-context';
import { parsePullRequestRef } from '../../workflows/vocabulary/pull-request-ref';

/** The newest CI verdict the ticket's ci_evaluator kept (`outputs.ci_evaluator`), or undefined before one. */
export function ciStatusOf(outputs: StationInput['outputs']): 'failed' | 'pending' | 'passed' | undefined {
  const verdict = outputs.ci_evaluator as { failing?: unknown[]; pending?: unknown[] } | undefined;
  if (!verdict || typeof verdict !== 'object') return undefined;
  if ((verdict.failing ?? []).length > 0) return 'failed';
  if ((verdict.pending ?? []).length > 0) return 'pending';
  return 'passed';
}

type TracedInput = Pick<StationInput, 'ticket_key' | 'issue_type' | 'project_key' | 'station' | 'outputs' | 'params' | 'pull_requests' | 'trigger' | 'retry_count'>;

/**
 * The trace attributes (TRACING_TRACE_TAGS / TRACING_TRACE_METADATA) a station knows of the ticket it works for:
 * the ticket, its type and project, the step, the delivery that set the ticket moving (`event_source`,
 * `event_type`), how often it was retried, the last CI verdict, and where the step works on a repository, that
 * repository and its pull request. Pure; exported for tests.
 */
export function stationTraceContext(input: TracedInput): TraceContext {
  const repo = currentRepository(input as StationInput);
  const pull = (input.pull_requests ?? []).map(parsePullRequestRef).find((ref) => ref && (!repo || ref.repository === repo));
  const ciStatus = ciStatusOf(input.outputs);
  return {
    ticket_key: input.ticket_key,
    ...(input.issue_type ? { ticket_type: input.issue_type } : {}),
    project_id: input.project_key,
    workflow_step: input.station,
    ...(repo ? { repo } : {}),
    ...(pull ? { pr_number: pull.number } : {}),
    ...(ciStatus ? { ci_status: ciStatus } : {}),
    ...(input.trigger ? { event_source: input.trigger.source_system, event_type: input.trigger.event } : {}),
    ...(input.retry_count !== undefined ? { retry_count: input.retry_count } : {}),
  };
}
