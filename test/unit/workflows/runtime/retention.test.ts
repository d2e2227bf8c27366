import { describe, expect, it } from 'vitest';
import { createEffect, recordAttempt } from '../../../../workflows/effects/effect-journal';
import { applyRetention } from '../../../../workflows/runtime/retention';
import { initialTicketState } from '../../../../workflows/runtime/ticket-state';
import { appendTimeline, pageTimeline } from '../../../../workflows/read-model/timeline';

describe('applyRetention', () => {
  it('trims the oldest timeline entries and finished effects, keeping live effects and cursor offsets', () => {
    const state = initialTicketState({ ticket_key: 'P-1', project_key: 'P', issue_type: null, workflow_kind: 'feature' }, 'run', 't');
    for (let i = 0; i < 10; i += 1) appendTimeline(state.timeline, { kind: 'effect', occurred_at: 't', status: 's', summary: `#${i + 1}`, details: {} });
    const done = createEffect(state.effects, { ticket_key: 'P-1', run_id: 'run', node: 'n', operation: { kind: 'tracker.comment', issue_key: 'P-1', body: 'x' }, required: false, now: 't' });
    recordAttempt(done, { attempt: 1, status: 'succeeded', evidence: null, error: null, retry_after_ms: null, started_at: 't', finished_at: 't', trigger: 'workflow' });
    const live = createEffect(state.effects, { ticket_key: 'P-1', run_id: 'run', node: 'n', operation: { kind: 'tracker.comment', issue_key: 'P-1', body: 'y' }, required: true, now: 't' });

    expect(applyRetention(state, { timeline_entries: 4, terminal_effects: 0 })).toEqual({ timeline: 6, effects: 1 });
    expect(state.timeline.entries.map((e) => e.event_id)).toEqual([7, 8, 9, 10]);
    expect(pageTimeline(state.timeline, 8, 10).entries.map((e) => e.event_id)).toEqual([9, 10]);
    expect(pageTimeline(state.timeline, 0, 2)).toMatchObject({ total: 10, next_cursor: 8 });
    expect(Object.keys(state.effects.records)).toEqual([live.idempotency_key]);
  });
});
