import { describe, expect, it } from 'vitest';
import { createEffect } from '../../../../workflows/effects/effect-journal';
import { buildExecutionView } from '../../../../workflows/read-model/execution-view';
import {
  BUSY_HEADER, executionViewFromMemo, memoChanges, READ_MODEL_KEY, readModelSnapshot, snapshotOfMemoKeys, timelinePageFromMemo, type MemoSnapshot,
} from '../../../../workflows/read-model/read-model-memo';
import { applyRetention } from '../../../../workflows/runtime/retention';
import { initialTicketState, type TicketState } from '../../../../workflows/runtime/ticket-state';
import { appendTimeline, pageTimeline } from '../../../../workflows/read-model/timeline';

function ticket(): TicketState {
  return initialTicketState({ ticket_key: 'P-1', project_key: 'P', issue_type: null, workflow_kind: 'feature' }, 'run-1', '2026-11-27T09:00:00.000Z');
}

function addEntries(state: TicketState, count: number): void {
  for (let i = 0; i < count; i += 1) {
    appendTimeline(state.timeline, { kind: 'observation_decision', occurred_at: 't', status: 'accepted', summary: `delivery ${state.timeline.next_event_id}`, details: { n: i } });
  }
}

/**
 * What the server keeps after an upsert: the keys merged in, and the keys whose value is null or [] removed (the
 * server's rule). Values travel as JSON, as the default payload converter sends them.
 */
function serverMerge(memo: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...memo };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) delete merged[key];
    else merged[key] = JSON.parse(JSON.stringify(value));
  }
  return merged;
}

/** Publishes the state as the workflow's publisher does and returns the memo the server then holds. */
function publisher() {
  let published: MemoSnapshot | undefined;
  let memo: Record<string, unknown> = {};
  const upserts: Array<Record<string, unknown>> = [];
  return {
    publish(state: TicketState) {
      const next = readModelSnapshot(buildExecutionView(state, 'ticket-P-1'), state.timeline, published);
      const changes = memoChanges(published, next);
      published = next;
      if (changes) {
        upserts.push(changes);
        memo = serverMerge(memo, changes);
      }
      return memo;
    },
    upserts,
  };
}

describe('the read model in the memo', () => {
  it('gives back the execution view the query gives, null and empty fields included', () => {
    const state = ticket();
    const memo = publisher().publish(state);
    const view = buildExecutionView(state, 'ticket-P-1');
    expect(view.last_observation).toBeNull();
    expect(view.recent_events).toEqual([]);
    expect(memo).not.toHaveProperty('execution.recent_events');
    expect(executionViewFromMemo(memo)).toEqual(view);
  });

  it('upserts only the keys a change touched, and removes a key whose value became null', () => {
    const state = ticket();
    const pub = publisher();
    pub.publish(state);
    expect(pub.publish(state)).toBeDefined();
    expect(pub.upserts).toHaveLength(1);

    state.observations_received += 1;
    state.waiting = { code: 'awaiting_approval', message: 'approve the PRD', since: 't', recovery: null };
    pub.publish(state);
    expect(Object.keys(pub.upserts[1]!).sort()).toEqual(['execution.observations_received', 'execution.waiting']);

    state.waiting = null;
    const memo = pub.publish(state);
    expect(pub.upserts[2]).toEqual({ 'execution.waiting': null });
    expect(memo).not.toHaveProperty('execution.waiting');
    expect(executionViewFromMemo(memo)?.waiting).toBeNull();
  });

  it('writes only the newest timeline chunk when entries are appended', () => {
    const state = ticket();
    const pub = publisher();
    addEntries(state, 23);
    pub.publish(state);
    addEntries(state, 1);
    pub.publish(state);
    expect(Object.keys(pub.upserts[1]!).sort()).toEqual([READ_MODEL_KEY, 'timeline.2']);
    expect((pub.upserts[1]!['timeline.2'] as unknown[]).length).toBe(4);
  });

  it('answers the pages pageTimeline answers within the entries it keeps, and none before them', () => {
    const state = ticket();
    const pub = publisher();
    for (const grow of [0, 1, 9, 1, 30, 17, 40]) {
      addEntries(state, grow);
      const memo = pub.publish(state);
      const total = state.timeline.entries.length;
      for (const [cursor, limit] of [[0, 50], [0, 10], [total - 41, 50], [total - 5, 2], [total, 50], [total + 3, 5], [0, 500]] as const) {
        const page = timelinePageFromMemo(memo, Math.max(0, cursor), limit);
        if (page) expect(page).toEqual(pageTimeline(state.timeline, Math.max(0, cursor), limit));
        else expect(Math.max(0, cursor)).toBeLessThan(total - 40);
      }
    }
    const memo = pub.publish(state);
    // 98 entries: the memo keeps offsets 50 to 97 (chunks 5 to 9); older pages are the query's.
    expect(timelinePageFromMemo(memo, 0, 50)).toBeUndefined();
    expect(timelinePageFromMemo(memo, 50, 50)?.entries.map((e) => e.event_id)).toEqual(Array.from({ length: 48 }, (_, i) => 51 + i));
    const dropped = Object.keys(memo).filter((key) => key.startsWith('timeline.'));
    expect(dropped.sort()).toEqual(['timeline.5', 'timeline.6', 'timeline.7', 'timeline.8', 'timeline.9']);
  });

  it('keeps the offsets of a timeline that retention trimmed', () => {
    const state = ticket();
    addEntries(state, 27);
    applyRetention(state, { timeline_entries: 4, terminal_effects: 0 });
    const memo = publisher().publish(state);
    for (const cursor of [0, 10, 23, 25, 27]) expect(timelinePageFromMemo(memo, cursor, 50)).toEqual(pageTimeline(state.timeline, cursor, 50));
  });

  it('is not served when it is missing, of another version, or lacks a required field', () => {
    const state = ticket();
    const memo = publisher().publish(state);
    expect(executionViewFromMemo(undefined)).toBeUndefined();
    expect(timelinePageFromMemo({}, 0, 50)).toBeUndefined();
    expect(executionViewFromMemo({ ...memo, [READ_MODEL_KEY]: { version: 2, timeline: { total: 0, trimmed: 0, first: 0 } } })).toBeUndefined();
    // A busy workflow marks the memo instead of keeping it current: its keys are left as they were, and not served.
    expect(executionViewFromMemo({ ...memo, [READ_MODEL_KEY]: BUSY_HEADER })).toBeUndefined();
    expect(timelinePageFromMemo({ ...memo, [READ_MODEL_KEY]: BUSY_HEADER }, 0, 50)).toBeUndefined();
    const { ['execution.status']: _status, ...withoutStatus } = memo;
    expect(executionViewFromMemo(withoutStatus)).toBeUndefined();
  });

  it('rewrites the keys a memo carried from an earlier run, and removes those the state no longer has', () => {
    const state = ticket();
    createEffect(state.effects, { ticket_key: 'P-1', run_id: 'run-1', node: 'n', operation: { kind: 'tracker.comment', issue_key: 'P-1', body: 'x' }, required: false, now: 't' });
    addEntries(state, 3);
    const carried = { 'execution.status': 'waiting', 'timeline.7': [{ event_id: 71 }], [READ_MODEL_KEY]: { version: 1 }, other: 'kept' };
    const before = snapshotOfMemoKeys(carried);
    const changes = memoChanges(before, readModelSnapshot(buildExecutionView(state, 'ticket-P-1'), state.timeline))!;
    expect(changes['timeline.7']).toBeUndefined();
    expect('timeline.7' in changes).toBe(true);
    expect(changes['execution.status']).toBe('waiting');
    expect(changes).not.toHaveProperty('other');
    expect(executionViewFromMemo(serverMerge(carried, changes))).toEqual(buildExecutionView(state, 'ticket-P-1'));
  });
});
