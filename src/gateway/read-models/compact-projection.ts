import type { ExecutionView } from '../../../workflows/read-model/execution-view';

/** An observation with no news for this long is reported stale (REFERENCE: one hour). */
export const OBSERVATION_STALE_AFTER_MS = 60 * 60 * 1000;

export function isObservationStale(view: ExecutionView, now: Date): boolean | null {
  if (!view.last_observation) return null;
  return now.getTime() - Date.parse(view.last_observation.received_at) > OBSERVATION_STALE_AFTER_MS;
}

/** The execution view as served: the workflow's projection plus freshness, which depends on the reader's clock. */
export function servedExecutionView(view: ExecutionView, now: Date): ExecutionView & { last_observation: (ExecutionView['last_observation'] & { stale: boolean }) | null } {
  return {
    ...view,
    last_observation: view.last_observation ? { ...view.last_observation, stale: isObservationStale(view, now) === true } : null,
  };
}

export interface CompactProjection {
  schema_version: '1.0';
  run_id: string;
  ticket_key: string;
  status: ExecutionView['status'];
  current_position: string;
  workflow: string | null;
  workflow_revision: number | null;
  waiting_code: string | null;
  waiting_since: string | null;
  blocking_reason: string | null;
  retry_count: number;
  observation_available: boolean;
  observation_stale: boolean | null;
  observation_conflicting: boolean | null;
  migration_eligible: boolean | null;
  migration_incompatibilities: string[] | null;
}

/** The org-pulse projection of REFERENCE "Read models", for dashboards that poll many tickets. */
export function compactProjection(view: ExecutionView, now: Date): CompactProjection {
  return {
    schema_version: '1.0',
    run_id: view.run_id,
    ticket_key: view.ticket_key,
    status: view.status,
    current_position: view.current_position,
    workflow: view.definition?.name ?? view.workflow_type,
    workflow_revision: view.definition?.revision ?? null,
    waiting_code: view.waiting?.code ?? null,
    waiting_since: view.waiting?.since ?? null,
    blocking_reason: view.blocking?.message ?? null,
    retry_count: view.retry_count,
    observation_available: view.last_observation !== null,
    observation_stale: isObservationStale(view, now),
    observation_conflicting: view.last_observation?.conflicting ?? null,
    migration_eligible: view.migration?.eligible ?? null,
    migration_incompatibilities: view.migration?.incompatibilities ?? null,
  };
}
