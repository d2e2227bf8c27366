import type { Observation } from './observation';
import { applyObservation, type LedgerVerdict } from './observation-ledger';
import type { QueuedEvent, TicketState } from '../runtime/ticket-state';
import { appendTimeline } from '../read-model/timeline';

export const RECENT_EVENTS_LIMIT = 200;

function describe(observation: Observation): string {
  return `${observation.source_system} ${observation.event} on ${observation.resource.kind} ${observation.resource.id} from the ${observation.source}`;
}

function eventStatus(verdict: LedgerVerdict): QueuedEvent['status'] {
  if (verdict.decision === 'duplicate') return 'duplicate';
  // A conflict could not be processed safely: the event failed and waits for an operator.
  if (verdict.decision === 'conflict') return 'failed';
  return 'completed';
}

/**
 * Runs one delivery through the ledger and records the decision: a timeline entry with the reason, the queued
 * event's completion (SPEC 2.7) and, for accepted or conflicting facts, the ticket's latest evidence.
 *
 * An accepted changelog leaves here carrying only the label operations still in force: the observation's
 * `label_change` is narrowed in place, so whatever reads commands from it never acts on an addition that a later
 * accepted removal already withdrew (or the reverse).
 */
export function recordObservation(state: TicketState, observation: Observation, processedAt: string): LedgerVerdict {
  const verdict = applyObservation(state.ledger, observation);
  if (verdict.decision === 'accepted' && verdict.label_change) observation.facts.label_change = verdict.label_change;
  state.observations_received += 1;
  if (verdict.decision === 'accepted' || verdict.decision === 'conflict') {
    state.last_observation = {
      observation_id: observation.delivery_identity,
      source_system: observation.source_system,
      event: observation.event,
      observed_at: observation.observed_at,
      received_at: observation.received_at,
      conflicting: verdict.decision === 'conflict',
    };
  }
  const queued: QueuedEvent = {
    delivery_identity: observation.delivery_identity,
    source: observation.source,
    source_system: observation.source_system,
    event: observation.event,
    created_at: observation.received_at,
    completed_at: processedAt,
    status: eventStatus(verdict),
    decision: verdict.decision,
  };
  state.recent_events.push(queued);
  if (state.recent_events.length > RECENT_EVENTS_LIMIT) state.recent_events.splice(0, state.recent_events.length - RECENT_EVENTS_LIMIT);
  appendTimeline(state.timeline, {
    kind: 'observation_decision',
    occurred_at: processedAt,
    status: verdict.decision,
    summary: `${verdict.decision}: ${describe(observation)}`,
    details: {
      reason: verdict.reason,
      ...(verdict.superseded ? { superseded: verdict.superseded } : {}),
      delivery_identity: observation.delivery_identity,
      source: observation.source,
      source_system: observation.source_system,
      event: observation.event,
      resource: observation.resource,
      revision: observation.revision,
      observed_at: observation.observed_at,
      received_at: observation.received_at,
      processed_at: processedAt,
      event_status: queued.status,
      facts: observation.facts,
    },
  });
  return verdict;
}
