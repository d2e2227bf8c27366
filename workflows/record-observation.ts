import type { Observation } from './observation';
import type { TicketState } from './ticket-state';
import { appendTimeline, type TimelineEntry } from './timeline';

function describe(observation: Observation): string {
  const what = `${observation.source_system} ${observation.event}`;
  const resource = `${observation.resource.kind} ${observation.resource.id}`;
  return `${what} on ${resource} received from the ${observation.source}`;
}

/**
 * Records a delivery on the timeline and as the ticket's latest evidence. Deciding accepted / duplicate / stale /
 * conflict is the observation ledger's job; until it exists every delivery is recorded as received, not decided.
 */
export function recordObservation(state: TicketState, observation: Observation, processedAt: string): TimelineEntry {
  state.observations_received += 1;
  state.last_observation = {
    observation_id: observation.delivery_identity,
    source_system: observation.source_system,
    event: observation.event,
    observed_at: observation.observed_at,
    received_at: observation.received_at,
    conflicting: false,
  };
  return appendTimeline(state.timeline, {
    kind: 'observation_received',
    occurred_at: processedAt,
    status: 'recorded',
    summary: describe(observation),
    details: {
      delivery_identity: observation.delivery_identity,
      source: observation.source,
      source_system: observation.source_system,
      event: observation.event,
      resource: observation.resource,
      revision: observation.revision,
      observed_at: observation.observed_at,
      received_at: observation.received_at,
      processed_at: processedAt,
      facts: observation.facts,
    },
  });
}
