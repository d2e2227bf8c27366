import { condition, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { buildExecutionView } from './execution-view';
import { memoChanges, readModelSnapshot, snapshotOfMemoKeys, type MemoSnapshot } from './read-model-memo';
import type { TicketState } from './ticket-state';

/**
 * Keeps the read model in the memo equal to the workflow's state at the end of every workflow task (activation).
 *
 * The SDK evaluates blocked conditions after each job of an activation and again until none unblocks, just before
 * it completes the activation. A coroutine waiting on "the read model changed" therefore runs, and upserts, after the
 * last change an activation makes, whichever handler, station or timer made it. So when the server holds no pending
 * workflow task, the memo describes the current state; the gateway relies on that (src/temporal/ticket-workflows.ts).
 *
 * `flush` upserts at once, for the end of the run: a command after the workflow's completion would be dropped.
 */
export function startReadModelPublisher(state: TicketState, workflowId: string): { flush: () => void } {
  let published: MemoSnapshot | undefined = snapshotOfMemoKeys(workflowInfo().memo);
  let pending: Record<string, unknown> | undefined;
  let next: MemoSnapshot | undefined;
  const changed = () => {
    next = readModelSnapshot(buildExecutionView(state, workflowId), state.timeline, published);
    pending = memoChanges(published, next);
    return pending !== undefined;
  };
  const flush = () => {
    if (!changed()) return;
    upsertMemo(pending!);
    published = next;
  };
  void (async () => {
    for (;;) {
      await condition(changed);
      flush();
    }
  })();
  return { flush };
}
