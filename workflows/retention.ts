import { trimJournal } from './effect-journal';
import type { TicketWorkflowSettings } from './observation';
import type { TicketState } from './ticket-state';

/**
 * Retention on continue-as-new (SPEC 2.3): old timeline entries and finished effects go; pending, running, retryable
 * and indeterminate effects never do. Cursors stay offsets into the whole history and keys are never reused.
 */
export function applyRetention(state: TicketState, retention: TicketWorkflowSettings['retention']): { timeline: number; effects: number } {
  const excess = Math.max(0, state.timeline.entries.length - retention.timeline_entries);
  if (excess > 0) {
    state.timeline.entries.splice(0, excess);
    state.timeline.trimmed += excess;
  }
  return { timeline: excess, effects: trimJournal(state.effects, retention.terminal_effects) };
}
