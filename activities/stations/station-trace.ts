import type { TraceContext } from '../../src/tracing/tracing-config';
import type { StationInput } from '../../workflows/station-types';
import { currentRepository, parsePullRequestRef } from './delivery/delivery-context';

/**
 * The trace attributes (TRACING_TRACE_TAGS / TRACING_TRACE_METADATA) a station knows of the ticket it works for:
 * the ticket, its type and project, the step, and where the step works on a repository, that repository and its
 * pull request. Pure; exported for tests.
 */
export function stationTraceContext(input: Pick<StationInput, 'ticket_key' | 'issue_type' | 'project_key' | 'station' | 'outputs' | 'params' | 'pull_requests'>): TraceContext {
  const repo = currentRepository(input as StationInput);
  const pull = (input.pull_requests ?? []).map(parsePullRequestRef).find((ref) => ref && (!repo || ref.repository === repo));
  return {
    ticket_key: input.ticket_key,
    ...(input.issue_type ? { ticket_type: input.issue_type } : {}),
    project_id: input.project_key,
    workflow_step: input.station,
    ...(repo ? { repo } : {}),
    ...(pull ? { pr_number: pull.number } : {}),
  };
}
