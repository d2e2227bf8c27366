import type { TicketState, ExecutionStatus, Checkpoint, Waiting } from './ticket-state';
import { listEffects } from './effect-journal';

/**
 * The execution view of SPEC 2.1 / REFERENCE "Read models", projected from durable workflow state only (never from
 * current tracker labels). Null means "not available": definitions, stations, effects and migration decisions are
 * not recorded by this version, so they are null or empty rather than invented.
 */
export interface ExecutionView {
  schema_version: '1.0';
  run_id: string;
  workflow_id: string;
  ticket_key: string;
  workflow_type: string;
  status: ExecutionStatus;
  current_position: string;
  definition: { name: string; revision: number; digest: string } | null;
  permitted_commands: string[];
  next_transitions: Array<{ outcome: string; target: string }>;
  waiting: Waiting | null;
  blocking: { code: string; message: string } | null;
  last_observation: {
    observation_id: string;
    source_system: string;
    event: string;
    observed_at: string | null;
    received_at: string;
    conflicting: boolean;
  } | null;
  observations_received: number;
  /** How the ledger decided the deliveries so far (accepted, duplicate, stale, conflict). */
  observation_decisions: Record<string, number>;
  recent_events: TicketState['recent_events'];
  station_attempts: unknown[];
  /** The most recent effects: key, operation, status and how many attempts (details: the effect API). */
  effects: Array<{ idempotency_key: string; operation: string; status: string; attempts: number; required: boolean }>;
  migration: { eligible: boolean; incompatibilities: string[] } | null;
  retry_count: number;
  checkpoint: Checkpoint;
  started_at: string;
}

export function buildExecutionView(state: TicketState, workflowId: string): ExecutionView {
  return {
    schema_version: '1.0',
    run_id: state.run_id,
    workflow_id: workflowId,
    ticket_key: state.input.ticket_key,
    workflow_type: state.input.workflow_kind,
    status: state.status,
    current_position: state.checkpoint.current_node,
    definition: null,
    permitted_commands: [],
    next_transitions: [],
    waiting: state.waiting,
    blocking: state.checkpoint.is_blocked
      ? { code: state.waiting?.code ?? 'blocked', message: state.checkpoint.last_error ?? 'blocked' }
      : null,
    last_observation: state.last_observation
      ? {
        observation_id: state.last_observation.observation_id,
        source_system: state.last_observation.source_system,
        event: state.last_observation.event,
        observed_at: state.last_observation.observed_at,
        received_at: state.last_observation.received_at,
        conflicting: state.last_observation.conflicting,
      }
      : null,
    observations_received: state.observations_received,
    observation_decisions: { ...state.ledger.counts },
    recent_events: state.recent_events.slice(-20),
    station_attempts: [],
    effects: listEffects(state.effects).slice(-20).map((r) => ({ idempotency_key: r.idempotency_key, operation: r.operation.kind, status: r.status, attempts: r.attempts.length, required: r.required })),
    migration: null,
    retry_count: state.retry_count,
    checkpoint: state.checkpoint,
    started_at: state.started_at,
  };
}
