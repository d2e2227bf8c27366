import { workflowInfo } from '@temporalio/workflow';
import { runKeyedEffect, type EffectContext } from './effects/effect-runner';
import type { EffectOperation, EffectRecord } from './effects/effect-types';
import { emptyTimeline } from './read-model/timeline';

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

/** What each write came to, in order: the Temporal UI shows it as the workflow's result. */
export interface EndedTicketReplyResult {
  idempotency_key: string;
  status: EffectRecord['status'];
}

/**
 * Each write goes through the effect runner every ticket uses (runKeyedEffect: its attempts, backoff and the look for
 * an earlier write), with a journal and a timeline of this workflow's own.
 */
export async function endedTicketReplyWorkflow(input: EndedTicketReplyInput): Promise<EndedTicketReplyResult[]> {
  const context: EffectContext = {
    journal: { records: {}, order: [], sequence: {} },
    timeline: emptyTimeline(),
    ticketKey: input.ticket_key,
    runId: workflowInfo().runId,
    now: () => new Date().toISOString(),
  };
  const results: EndedTicketReplyResult[] = [];
  for (const [index, operation] of input.operations.entries()) {
    const record = await runKeyedEffect(context, {
      key: `${input.idempotency_key}:${index}`, node: 'ended', operation, required: false, timeoutSeconds: 60,
      summary: `${operation.kind} on ${input.ticket_key}, whose workflow has ended`,
    });
    results.push({ idempotency_key: record.idempotency_key, status: record.status });
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
