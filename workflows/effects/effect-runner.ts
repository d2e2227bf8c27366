import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { EffectActivities } from '../../activities/effect-activities';
import { backoffMs, createEffect, EFFECT_RETRY, recordAttempt, shouldRetry, type EffectJournal } from './effect-journal';
import type { EffectAttemptResult, EffectOperation, EffectRecord } from './effect-types';
import { appendTimeline, type TimelineState } from '../read-model/timeline';

export interface EffectContext {
  journal: EffectJournal;
  timeline: TimelineState;
  ticketKey: string;
  runId: string;
  now: () => string;
}

/**
 * One attempt is one activity call with no Temporal-level retries: the workflow retries, so that every attempt is
 * recorded with its evidence and a retry always goes through the activity's look-for-the-earlier-write step.
 */
function effectActivities(timeoutSeconds: number) {
  return proxyActivities<EffectActivities>({
    startToCloseTimeout: `${timeoutSeconds}s`,
    retry: { maximumAttempts: 1 },
  });
}

/** The Temporal UI shows the summary on the activity: which write, for which ticket, without opening JSON. */
function effectActivitiesWithSummary(timeoutSeconds: number, summary: string) {
  return proxyActivities<EffectActivities>({ startToCloseTimeout: `${timeoutSeconds}s`, retry: { maximumAttempts: 1 }, summary });
}

async function attempt(context: EffectContext, record: EffectRecord, trigger: 'workflow' | 'replay', timeoutSeconds: number, summary?: string): Promise<void> {
  const started = context.now();
  record.status = 'running';
  const number = (record.attempts.at(-1)?.attempt ?? 0) + 1;
  let result: EffectAttemptResult;
  try {
    const activities = summary === undefined ? effectActivities(timeoutSeconds) : effectActivitiesWithSummary(timeoutSeconds, `${summary} (attempt ${number})`);
    result = await activities.performEffect({ idempotency_key: record.idempotency_key, attempt: number, operation: record.operation });
  } catch (error) {
    // The worker died or the activity timed out: the write may or may not have happened.
    const message = error instanceof ActivityFailure ? `${error.message}: ${error.cause?.message ?? 'no detail'}` : String(error);
    result = { status: 'indeterminate', evidence: null, error: message, retry_after_ms: null };
  }
  recordAttempt(record, { ...result, attempt: number, started_at: started, finished_at: context.now(), trigger });
  appendTimeline(context.timeline, {
    kind: 'effect',
    occurred_at: context.now(),
    status: record.status,
    summary: `${record.operation.kind} attempt ${number}: ${record.status}${result.evidence?.adopted ? ' (earlier write adopted)' : ''}`,
    details: { idempotency_key: record.idempotency_key, attempt: number, trigger, evidence: result.evidence, error: result.error },
  });
}

/**
 * Runs the write named by `key` to a resolution. A write that already succeeded under this key is not repeated; one
 * that failed earlier (the ticket blocked on it, then service:retry) gets a fresh round of attempts, each of which
 * looks for the earlier write first.
 */
export async function runKeyedEffect(
  context: EffectContext,
  input: { key: string; node: string; operation: EffectOperation; required: boolean; timeoutSeconds: number; summary: string },
): Promise<EffectRecord> {
  const record = context.journal.records[input.key]
    ?? createEffect(context.journal, { ticket_key: context.ticketKey, run_id: context.runId, node: input.node, operation: input.operation, required: input.required, now: context.now(), key: input.key });
  if (record.status === 'succeeded') return record;
  for (let round = 1; ; round += 1) {
    await attempt(context, record, 'workflow', input.timeoutSeconds, input.summary);
    const retryable = record.status === 'retryable_failure' || record.status === 'indeterminate';
    if (!retryable || round >= EFFECT_RETRY.maxAttempts) return record;
    await sleep(backoffMs(round, record.attempts.at(-1)?.retry_after_ms ?? null));
  }
}

/** Runs an effect to a resolution: succeeded, a terminal or precondition failure, or retries exhausted. */
export async function runEffect(
  context: EffectContext,
  input: { node: string; operation: EffectOperation; required: boolean; timeoutSeconds: number },
): Promise<EffectRecord> {
  const record = createEffect(context.journal, { ticket_key: context.ticketKey, run_id: context.runId, node: input.node, operation: input.operation, required: input.required, now: context.now() });
  for (;;) {
    await attempt(context, record, 'workflow', input.timeoutSeconds);
    if (!shouldRetry(record)) return record;
    await sleep(backoffMs(record.attempts.length, record.attempts.at(-1)?.retry_after_ms ?? null));
  }
}

/** An operator's replay: one more attempt of a terminal effect under the same key; it never moves the workflow. */
export async function replayEffect(context: EffectContext, record: EffectRecord, timeoutSeconds: number): Promise<EffectRecord> {
  await attempt(context, record, 'replay', timeoutSeconds);
  return record;
}
