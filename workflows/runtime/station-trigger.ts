import type { StationTrigger } from './station-types';
import type { LastObservation, Runtime } from './ticket-state';

/**
 * What a station's traces name as its `event_source` and `event_type`: the delivery of the last command the ticket
 * acted on. Before any command (a ticket's first stations) it is the last delivery the ticket accepted, usually its
 * creation; a workflow started without one (by an operator) has none.
 */
export function stationTrigger(runtime: Pick<Runtime, 'trigger'>, lastAccepted: LastObservation | null): StationTrigger | undefined {
  if (runtime.trigger) return runtime.trigger;
  return lastAccepted ? { source_system: lastAccepted.source_system, event: lastAccepted.event } : undefined;
}
