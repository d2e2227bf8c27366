import { jsonBytesExceed } from './bounded-json';
import { isTerminal, trimJournal } from '../effects/effect-journal';
import type { TicketWorkflowSettings } from '../ledger/observation';
import type { TicketState } from './ticket-state';

/**
 * Retention on continue-as-new (SPEC 2.3): old timeline entries and finished effects go; pending, running, retryable
 * and indeterminate effects never do. Cursors stay offsets into the whole history and keys are never reused.
 */
export function applyRetention(state: TicketState, retention: TicketWorkflowSettings['retention'], byteLimit = Number.POSITIVE_INFINITY): { timeline: number; effects: number } {
  const trimTimeline = (count: number) => {
    state.timeline.entries.splice(0, count);
    state.timeline.trimmed += count;
  };
  let timeline = Math.max(0, state.timeline.entries.length - retention.timeline_entries);
  if (timeline > 0) trimTimeline(timeline);
  let effects = trimJournal(state.effects, retention.terminal_effects);
  // By bytes too: halve what is kept of the timeline and finished effects until the state fits its budget (DESIGN 5).
  // Pending, running and unresolved effects and the inbox stay whole.
  for (let round = 0; round < 12 && jsonBytesExceed(state, byteLimit); round += 1) {
    const drop = Math.ceil(state.timeline.entries.length / 2);
    if (drop > 0) {
      trimTimeline(drop);
      timeline += drop;
    }
    const terminal = state.effects.order.filter((key) => isTerminal(state.effects.records[key]!.status)).length;
    effects += trimJournal(state.effects, Math.floor(terminal / 2));
    if (state.recent_events.length > 20) state.recent_events.splice(0, state.recent_events.length - 20);
  }
  return { timeline, effects };
}
