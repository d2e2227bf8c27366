import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { EffectActivities } from '../activities/effect-activities';
import { backoffMs, createEffect, recordAttempt, shouldRetry, type EffectJournal } from './effect-journal';
import type { EffectAttemptResult, EffectOperation, EffectRecord } from './effect-types';
import { appendTimeline, type TimelineState } from './timeline';

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

async function attempt(context: EffectContext, record: EffectRecord, trigger: 'workflow' | 'replay', timeoutSeconds: number): Promise<void> {
  const started = context.now();
  record.status = 'running';
  const number = record.attempts.length + 1;
  let result: EffectAttemptResult;
  try {
    result = await effectActivities(timeoutSeconds).performEffect({ idempotency_key: record.idempotency_key, attempt: number, operation: record.operation });
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
