import type { TicketState, ExecutionStatus, Checkpoint, StationAttempt, Waiting } from '../runtime/ticket-state';
import { MEANING, whyNotMeaningful, type Trigger } from '../person-commands/command-meaning';
import type { CommandPosition } from '../person-commands/command-types';
import { acceptTable, nodeAccepts, outcomesOf } from '../built-in-definitions/definition-types';
import { rebaseDecision } from '../runtime/rebase-decision';
import { gateTable } from '../runtime/node-traits';
import { commandPositionOf } from '../runtime/command-position';
import { listEffects } from '../effects/effect-journal';
import type { MigrationDecision } from '../registry/migration-messages';
import { RETRY_LABEL } from '../vocabulary/labels';
import { TRIGGER, triggerLabelOf } from '../vocabulary/command-words';

/**
 * The execution view of SPEC 2.1 / REFERENCE "Read models", projected from durable workflow state only (never from
 * current tracker labels). Null means "not available": a ticket of the v0.1 build has no pinned definition, and no
 * migration decision exists until an operator asks for one.
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
  station_attempts: StationAttempt[];
  /** Tokens spent by the ticket's stations so far. */
  tokens_spent: number;
  /** tokens_spent by stage (station), for budgets. */
  tokens_by_stage: Record<string, number>;
  /** The artifacts kept, by name: version, digest and whether a gate approved it (the text: the timeline and ticket). */
  artifacts: Record<string, { version: number; digest: string; approved: boolean; updated_at: string }>;
  /** The most recent effects: key, operation, status and how many attempts (details: the effect API). */
  effects: Array<{ idempotency_key: string; operation: string; status: string; attempts: number; required: boolean }>;
  /** The last migration decision (eligible, incompatibilities, revisions, mapping, applied); null until one exists. */
  migration: MigrationDecision | null;
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
    definition: state.definition ? { name: state.definition.name, revision: state.definition.revision, digest: state.definition.digest } : null,
    permitted_commands: permittedCommands(state),
    next_transitions: state.checkpoint.is_blocked ? [] : outcomesOf(state.definition?.body.nodes[state.checkpoint.current_node]),
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
    station_attempts: (state.station_attempts ?? []).slice(-20),
    tokens_spent: state.runtime?.tokens_spent ?? 0,
    tokens_by_stage: { ...(state.runtime?.tokens_by_stage ?? {}) },
    artifacts: Object.fromEntries(Object.entries(state.artifacts ?? {}).map(([name, a]) => [name, { version: a.version, digest: a.digest, approved: a.approved?.digest === a.digest, updated_at: a.updated_at }])),
    effects: listEffects(state.effects).slice(-20).map((r) => ({ idempotency_key: r.idempotency_key, operation: r.operation.kind, status: r.status, attempts: r.attempts.length, required: r.required })),
    migration: state.migration ?? null,
    retry_count: state.retry_count,
    checkpoint: state.checkpoint,
    started_at: state.started_at,
  };
}

/** Where the ticket stands, as the command boundary judges it (the intake's own reading, ../runtime/command-position.ts). */
function boundaryPositionOf(state: TicketState): CommandPosition {
  const body = state.definition?.body ?? null;
  return commandPositionOf(state, { definition: body, accepts: body ? acceptTable(body) : {}, gates: body ? gateTable(body) : {} });
}

/**
 * Whether one candidate (a trigger id, an entry this build does not know, or service:retry) would do something if it
 * arrived now, beyond being listed where the ticket stands.
 */
function possibleNow(candidate: string, position: CommandPosition, state: TicketState): boolean {
  if (candidate === RETRY_LABEL) return position.is_blocked;
  // A trigger this build has no meaning for (a newer definition's): listed as the definition says.
  if (!Object.hasOwn(MEANING, candidate)) return true;
  const trigger = candidate as Trigger;
  if (whyNotMeaningful(trigger, position) !== undefined) return false;
  switch (trigger) {
    // Regenerating needs the gate to have paused with its artifact shown (workflows/person-commands/command-meaning.ts retryMode).
    case TRIGGER.retryAtPausedGate:
      return position.is_paused;
    // The same judgement `/service rebase` gets when it arrives (merged pull requests have nothing left to rebase).
    case TRIGGER.rebase:
      return rebaseDecision(state.definition?.body ?? null, {
        node: state.checkpoint.current_node, blocked: state.checkpoint.is_blocked, ended: state.runtime?.ended === 'completed',
        pull_requests: state.pull_requests, merged_pull_requests: state.runtime?.merged_pull_requests ?? [],
      }, null).type === 'run';
    default:
      return true;
  }
}

/**
 * What a person may do now (REFERENCE "Read models" `permitted_commands`): of the triggers the pinned definition's
 * node accepts, the ticket-wide switches and service:retry, only those that would do something at this moment, judged
 * by the same rules the command boundary applies (`whyNotMeaningful`, `rebaseDecision`): no `/service rebase` without
 * an open pull request, nothing but service:retry and the switches allowed while blocked, nothing once completed.
 * Judged on trigger ids; listed by label, as people write them (an entry this build does not know, as written).
 */
export function permittedCommands(state: TicketState): string[] {
  if (state.status === 'completed' || state.runtime?.ended === 'completed') return [];
  const node = state.definition?.body.nodes[state.checkpoint.current_node];
  const anywhere = Object.entries(MEANING).filter(([, meaning]) => 'anywhere' in meaning).map(([trigger]) => trigger);
  const candidates = state.checkpoint.is_blocked ? [RETRY_LABEL, ...anywhere] : [...nodeAccepts(node), ...anywhere];
  const position = boundaryPositionOf(state);
  return [...new Set(candidates)].filter((candidate) => possibleNow(candidate, position, state)).map(triggerLabelOf);
}

/**
 * The workflow's current details for the Temporal UI (Markdown): where the ticket stands, what it waits for and how
 * to act, and the last decision, so an operator reads it without opening JSON.
 */
export function currentDetails(state: TicketState): string {
  const definition = state.definition ? `${state.definition.name} r${state.definition.revision}` : 'v0.1 (no pinned definition)';
  const lines = [
    `**${state.input.ticket_key}** — ${state.status} at \`${state.checkpoint.current_node}\` (${definition})`,
  ];
  if (state.waiting) {
    lines.push('', `**Waiting** (${state.waiting.code}): ${state.waiting.message}`);
    if (state.waiting.recovery) lines.push(`**How to act:** ${state.waiting.recovery}`);
  }
  const last = [...state.timeline.entries].reverse().find((entry) => entry.kind === 'transition' || entry.kind === 'command_decision' || entry.kind === 'station_attempt');
  if (last) lines.push('', `**Last decision:** ${last.summary}`);
  const attempt = state.station_attempts?.at(-1);
  if (attempt) lines.push(`**Last station:** ${attempt.station} (visit ${attempt.visit}) ${attempt.status}${attempt.outcome ? ` → ${attempt.outcome}` : ''}`);
  return lines.join('\n');
}
