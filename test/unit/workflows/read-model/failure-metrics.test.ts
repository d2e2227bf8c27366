import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState } from '@temporalio/common';
import { ContinueAsNew } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { failsExecution, WorkflowFailureCounter } from '../../../../workflows/read-model/failure-metrics';

const activityFailure = (cause: Error) => new ActivityFailure('activity failed', 'runStation', 'a-1', RetryState.NON_RETRYABLE_FAILURE, undefined, cause);

async function failedKinds(error: unknown, args: unknown[]): Promise<string[]> {
  const failed: string[] = [];
  const counter = new WorkflowFailureCounter({ workflowFailed: (kind) => failed.push(kind) });
  await expect(counter.execute({ args, headers: {} }, async () => { throw error; })).rejects.toBe(error);
  return failed;
}

describe('counting ticket workflows that end failed', () => {
  it('counts a Temporal failure thrown out of a ticket workflow under its kind, and passes the error on', async () => {
    expect(await failedKinds(activityFailure(ApplicationFailure.nonRetryable('station broke')), [{ workflow_kind: 'bug' }])).toEqual(['bug']);
    expect(await failedKinds(ApplicationFailure.create({ message: 'invalid input' }), [{ workflow_kind: 'feature' }, { carried: true }])).toEqual(['feature']);
  });

  it('does not count what does not end the run failed: a cancellation, continue-as-new, a plain error (task retried)', async () => {
    expect(failsExecution(new CancelledFailure('stopped'))).toBe(false);
    expect(failsExecution(activityFailure(new CancelledFailure('stopped')))).toBe(false);
    expect(failsExecution(new Error('a bug: the workflow task fails and is retried'))).toBe(false);
    expect(await failedKinds(new CancelledFailure('stopped'), [{ workflow_kind: 'bug' }])).toEqual([]);
    expect(await failedKinds(new TypeError('x is undefined'), [{ workflow_kind: 'bug' }])).toEqual([]);
    expect(failsExecution(Object.create(ContinueAsNew.prototype))).toBe(false);
  });

  it('counts nothing for workflows that are not tickets (the poller, the definition registry)', async () => {
    expect(await failedKinds(ApplicationFailure.create({ message: 'x' }), [{ interval_seconds: 60 }])).toEqual([]);
    expect(await failedKinds(ApplicationFailure.create({ message: 'x' }), [])).toEqual([]);
  });

  it('returns what the workflow returns when it does not throw', async () => {
    const counter = new WorkflowFailureCounter({ workflowFailed: () => { throw new Error('not expected'); } });
    expect(await counter.execute({ args: [{ workflow_kind: 'bug' }], headers: {} }, async () => 'done')).toBe('done');
  });
});
