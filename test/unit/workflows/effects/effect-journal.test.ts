import { describe, expect, it } from 'vitest';
import {
  backoffMs, createEffect, EFFECT_RETRY, emptyJournal, isReplayable, recordAttempt, shouldRetry, trimJournal, unresolvedRequired,
} from '../../../../workflows/effects/effect-journal';
import type { EffectAttempt, EffectStatus } from '../../../../workflows/effects/effect-types';

const comment = { kind: 'tracker.comment' as const, issue_key: 'PROJ-1', body: 'hello' };

function attempt(status: Exclude<EffectStatus, 'pending' | 'running'>, n = 1): EffectAttempt {
  return { attempt: n, status, evidence: null, error: null, retry_after_ms: null, started_at: 't', finished_at: 't', trigger: 'workflow' };
}

describe('effect journal', () => {
  it('derives keys from ticket, run, node, operation and a per-slot sequence', () => {
    const journal = emptyJournal();
    const a = createEffect(journal, { ticket_key: 'PROJ-1', run_id: 'run-1', node: 'intake', operation: comment, required: false, now: 't' });
    const b = createEffect(journal, { ticket_key: 'PROJ-1', run_id: 'run-1', node: 'intake', operation: comment, required: false, now: 't' });
    const c = createEffect(journal, { ticket_key: 'PROJ-1', run_id: 'run-1', node: 'intake', operation: { kind: 'tracker.labels', issue_key: 'PROJ-1', add: ['x'], remove: [] }, required: false, now: 't' });
    expect([a.idempotency_key, b.idempotency_key, c.idempotency_key]).toEqual([
      'PROJ-1:run-1:intake:tracker_comment:1', 'PROJ-1:run-1:intake:tracker_comment:2', 'PROJ-1:run-1:intake:tracker_labels:1',
    ]);
    expect(a.status).toBe('pending');
  });

  it('gives the same keys when the same actions are replayed from a carried journal', () => {
    const first = emptyJournal();
    createEffect(first, { ticket_key: 'P-1', run_id: 'r', node: 'n', operation: comment, required: false, now: 't' });
    const carried = JSON.parse(JSON.stringify(first));
    expect(createEffect(carried, { ticket_key: 'P-1', run_id: 'r', node: 'n', operation: comment, required: false, now: 't' }).idempotency_key).toBe('P-1:r:n:tracker_comment:2');
  });

  it('retries retryable and indeterminate outcomes up to the bound, never terminal ones', () => {
    const journal = emptyJournal();
    const record = createEffect(journal, { ticket_key: 'P-1', run_id: 'r', node: 'n', operation: comment, required: true, now: 't' });
    recordAttempt(record, attempt('indeterminate'));
    expect(shouldRetry(record)).toBe(true);
    for (let n = 2; n <= EFFECT_RETRY.maxAttempts; n += 1) recordAttempt(record, attempt('retryable_failure', n));
    expect(shouldRetry(record)).toBe(false);
    expect(unresolvedRequired(journal)).toEqual([record]);
    recordAttempt(record, attempt('terminal_failure', 7));
    expect(shouldRetry(record)).toBe(false);
    expect(unresolvedRequired(journal)).toEqual([]);
  });

  it('backs off exponentially within bounds, and longer when Retry-After asks', () => {
    expect([1, 2, 3, 10].map((n) => backoffMs(n, null))).toEqual([2_000, 4_000, 8_000, EFFECT_RETRY.maxMs]);
    expect(backoffMs(1, 30_000)).toBe(30_000);
  });

  it('replays only failures that need correction', () => {
    expect((['terminal_failure', 'precondition_failure'] as EffectStatus[]).every(isReplayable)).toBe(true);
    expect((['pending', 'running', 'succeeded', 'retryable_failure', 'indeterminate'] as EffectStatus[]).some(isReplayable)).toBe(false);
  });

  it('trims old finished effects on retention but never live ones, and never reuses a key', () => {
    const journal = emptyJournal();
    const records = Array.from({ length: 4 }, () => createEffect(journal, { ticket_key: 'P-1', run_id: 'r', node: 'n', operation: comment, required: false, now: 't' }));
    recordAttempt(records[0]!, attempt('succeeded'));
    recordAttempt(records[1]!, attempt('terminal_failure'));
    recordAttempt(records[2]!, attempt('indeterminate'));
    expect(trimJournal(journal, 1)).toBe(1);
    expect(journal.order).toEqual([records[1]!.idempotency_key, records[2]!.idempotency_key, records[3]!.idempotency_key]);
    expect(createEffect(journal, { ticket_key: 'P-1', run_id: 'r', node: 'n', operation: comment, required: false, now: 't' }).idempotency_key).toBe('P-1:r:n:tracker_comment:5');
  });
});
