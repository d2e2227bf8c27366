import { describe, expect, it } from 'vitest';
import { fnv1a, jsonBytes, jsonBytesExceed, preview, truncateStrings } from '../../../../workflows/runtime/bounded-json';
import { recordAttempt, createEffect, emptyJournal } from '../../../../workflows/effects/effect-journal';
import { appendTimeline, emptyTimeline } from '../../../../workflows/read-model/timeline';

describe('keeping workflow state small', () => {
  it('previews long text with its length and fingerprint', () => {
    expect(preview('short', 10)).toBe('short');
    const long = 'x'.repeat(5_000);
    expect(preview(long, 10)).toBe(`xxxxxxxxxx… [5000 characters, fnv1a ${fnv1a(long)}]`);
    expect(fnv1a('a')).not.toBe(fnv1a('b'));
    expect(truncateStrings({ a: ['y'.repeat(50)], n: 1 }, 4)).toEqual({ a: [preview('y'.repeat(50), 4)], n: 1 });
    expect(jsonBytes({ é: 'ü' })).toBe(JSON.stringify({ é: 'ü' }).length + 2);
  });

  it('decides "over the state budget" as the byte count does, at and around the limit', () => {
    for (const value of [{ text: 'a'.repeat(40) }, { text: 'é'.repeat(40) }, { text: '€'.repeat(40) }, { text: 'a€é'.repeat(13) }]) {
      const bytes = jsonBytes(value);
      for (const limit of [0, 1, Math.floor(bytes / 3), bytes - 1, bytes, bytes + 1, bytes * 3, Number.POSITIVE_INFINITY]) {
        expect(jsonBytesExceed(value, limit), `${JSON.stringify(value)} against ${limit}`).toBe(bytes > limit);
      }
    }
  });

  it('keeps timeline details to previews', () => {
    const timeline = emptyTimeline();
    const entry = appendTimeline(timeline, { kind: 'observation_decision', occurred_at: 'now', status: 'accepted', summary: 's', details: { facts: { comment: { body: 'z'.repeat(3_000_000) } } } });
    expect(jsonBytes(entry)).toBeLessThan(1_000);
  });

  it('keeps a preview of a succeeded write and the whole body of a failed one (it may be replayed)', () => {
    const journal = emptyJournal();
    const body = 'b'.repeat(100_000);
    const ok = createEffect(journal, { ticket_key: 'T-1', run_id: 'r', node: 'n', operation: { kind: 'tracker.comment', issue_key: 'T-1', body }, required: false, now: 'now', key: 'k1' });
    const failed = createEffect(journal, { ticket_key: 'T-1', run_id: 'r', node: 'n', operation: { kind: 'tracker.comment', issue_key: 'T-1', body }, required: false, now: 'now', key: 'k2' });
    const attempt = { attempt: 1, started_at: 'a', finished_at: 'b', trigger: 'workflow' as const, evidence: null, error: null, retry_after_ms: null };
    recordAttempt(ok, { ...attempt, status: 'succeeded' });
    recordAttempt(failed, { ...attempt, status: 'terminal_failure', error: 'HTTP 400' });
    expect(jsonBytes(ok)).toBeLessThan(2_000);
    expect(failed.operation).toMatchObject({ body });
    expect(Object.keys(journal.records)).toEqual(['k1', 'k2']);
  });
});
