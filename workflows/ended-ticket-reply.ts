import { proxyActivities, sleep } from '@temporalio/workflow';
import type { EffectActivities } from '../activities/effect-activities';
import type { EffectAttemptResult, EffectOperation } from './effects/effect-types';

/**
 * The answer to a person's request on a ticket whose workflow has ended ("Every command gets an answer", issue 43):
 * the ticket's own workflow can no longer write, so the ingress starts this one, with a workflow id made of the ticket,
 * the request and where it was written, so that the webhook and the poller seeing the same request (and every
 * later repetition of it) start it once. Its writes are effects like any other: an idempotency key each, the earlier
 * write looked for before a retry.
 */
export interface EndedTicketReplyInput {
  ticket_key: string;
  /** The stem of the effects' idempotency keys; the n-th operation's key is `<stem>:<n>`. */
  idempotency_key: string;
  operations: EffectOperation[];
}

const ATTEMPTS = 5;

const { performEffect } = proxyActivities<EffectActivities>({ startToCloseTimeout: '60 seconds', retry: { maximumAttempts: 1 } });

export async function endedTicketReplyWorkflow(input: EndedTicketReplyInput): Promise<EffectAttemptResult[]> {
  const results: EffectAttemptResult[] = [];
  for (const [index, operation] of input.operations.entries()) {
    let result: EffectAttemptResult = { status: 'indeterminate', evidence: null, error: 'not attempted', retry_after_ms: null };
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        result = await performEffect({ idempotency_key: `${input.idempotency_key}:${index}`, attempt, operation });
      } catch (error) {
        result = { status: 'indeterminate', evidence: null, error: String(error), retry_after_ms: null };
      }
      if (result.status !== 'retryable_failure' && result.status !== 'indeterminate') break;
      await sleep(result.retry_after_ms ?? 2_000 * 2 ** (attempt - 1));
    }
    results.push(result);
  }
  return results;
}

/** How the ticket's last run ended, as the gateway read it from Temporal (src/ingress/ended-ticket-reply.ts). */
export interface EndedRun {
  /** Temporal's status name of the ticket's last run: COMPLETED, TERMINATED, FAILED, CANCELLED, TIMED_OUT. */
  status: string;
  closed_at: string | null;
}

export interface EndedTicketReplyPlan {
  /** One per ticket, request and place: a repeated request is answered once. */
  workflow_id: string;
  input: EndedTicketReplyInput;
}
