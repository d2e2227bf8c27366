/**
 * "No activity retrying without end" (issue 31, point 3), read from Temporal's own view of every open workflow once
 * a seed's faults are cleared: the tickets' and the poller's. A fault makes an attempt fail; once the injectors are
 * empty, the next attempt of an activity that failed only because of a fault succeeds. One that is still failing a
 * grace period later fails for a reason of its own (a bug, a request the vendor will never accept), and a real
 * deployment would retry it for as long as its retry policy allows while the ticket stands still.
 */
import type { Violation } from './invariants';

export interface PendingActivity {
  workflowId: string;
  activity: string;
  attempt: number;
  /** The last attempt's failure, as Temporal recorded it. */
  lastFailure?: string;
}

/** From this attempt on, an activity still pending after the grace period is retrying without end. */
export const ENDLESS_RETRY_ATTEMPT = 3;

/** Whether any pending activity is a candidate (the harness then waits out the grace period and looks again). */
export function retryingActivities(pending: PendingActivity[]): PendingActivity[] {
  return pending.filter((activity) => activity.attempt >= ENDLESS_RETRY_ATTEMPT);
}

/**
 * The verdict on what is still pending after the grace period. Pure.
 * The ticket is named when the workflow is a ticket's (`ticket-<KEY>`); the poller's workflows have none.
 */
export function checkNoEndlessRetries(pendingAfterGrace: PendingActivity[], graceSeconds: number): Violation[] {
  return retryingActivities(pendingAfterGrace).map((activity) => {
    const ticket = /^ticket-(.+)$/.exec(activity.workflowId)?.[1];
    return {
      invariant: 'no activity retries without end',
      ...(ticket ? { ticket } : {}),
      write: activity.activity,
      detail: `${activity.workflowId}: ${activity.activity} is at attempt ${activity.attempt} ${graceSeconds} s after the faults were cleared`
        + (activity.lastFailure ? `; last failure: ${activity.lastFailure.slice(0, 300)}` : ''),
    };
  });
}
