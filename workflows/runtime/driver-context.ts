import { setCurrentDetails } from '@temporalio/workflow';
import { currentDetails } from '../read-model/execution-view';
import type { TicketWorkflowInput, TicketWorkflowSettings } from '../ledger/observation';
import { initialRuntime, type Runtime, type TicketState } from './ticket-state';
import { publishSearchAttributes, searchAttributeSnapshot } from '../read-model/ticket-search-attributes';
import { appendTimeline } from '../read-model/timeline';
import { nowIso } from './clock';

export type TicketSettings = Required<TicketWorkflowSettings>;

/**
 * What the parts of the ticket driver (./ticket-driver.ts) share: the run's input and settings, the parts of the state
 * they write in place, and how the ticket's readers (search attributes, current details, timeline) learn of it.
 */
export function createDriverContext(input: TicketWorkflowInput, state: TicketState, settings: TicketSettings) {
  const runtime: Runtime = (state.runtime ??= initialRuntime(nowIso()));
  const artifacts = (state.artifacts ??= {});
  const outputs = (state.outputs ??= {});
  const attempts = (state.station_attempts ??= []);
  const ticketKey = input.ticket_key;

  let published = '';
  const publish = () => {
    const snapshot = searchAttributeSnapshot(state);
    if (snapshot !== published) {
      publishSearchAttributes(state);
      published = snapshot;
    }
    setCurrentDetails(currentDetails(state));
  };
  const timeline = (entry: Parameters<typeof appendTimeline>[1]) => appendTimeline(state.timeline, entry);
  const visit = () => runtime.visits[state.checkpoint.current_node] ?? 1;

  return { input, state, settings, runtime, artifacts, outputs, attempts, ticketKey, publish, timeline, visit };
}

export type DriverContext = ReturnType<typeof createDriverContext>;
