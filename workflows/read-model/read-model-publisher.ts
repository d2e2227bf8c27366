import { condition, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { buildExecutionView } from './execution-view';
import { BUSY_HEADER, memoChanges, READ_MODEL_KEY, readModelSnapshot, snapshotOfMemoKeys, type MemoSnapshot } from './read-model-memo';
import type { TicketState } from '../runtime/ticket-state';

/**
 * Keeps the read model in the memo equal to the workflow's state at the end of every workflow task (activation).
 *
 * The SDK evaluates blocked conditions after each job of an activation and again until none unblocks, just before
 * it completes the activation. A coroutine waiting on "the read model changed" therefore runs, and upserts, after the
 * last change an activation makes, whichever handler, station or timer made it. So when the server holds no pending
 * workflow task, the memo describes the current state; the gateway relies on that (src/temporal/ticket-workflows.ts).
 *
 * While the workflow is busy (a station, an effect or a timer of its own under way, `isIdle` false) its state changes
 * at every workflow task, and each upsert costs the server a visibility write. Then only a `busy` mark is written,
 * once, and the gateway asks the workflow by query (it is usually in the worker's cache then); when the workflow is
 * idle again the whole change is written. Parked tickets, the reads that matter, are idle.
 *
 * `flush` upserts at once, for the end of the run: a command after the workflow's completion would be dropped.
 */
export function startReadModelPublisher(state: TicketState, workflowId: string, isIdle: () => boolean): { flush: () => void } {
  let published: MemoSnapshot | undefined = snapshotOfMemoKeys(workflowInfo().memo);
  let pending: Record<string, unknown> | undefined;
  let next: MemoSnapshot | undefined;
  const busyText = JSON.stringify(BUSY_HEADER);
  const changed = (atEnd = false) => {
    if (!isIdle() && !atEnd) {
      if (published?.texts.get(READ_MODEL_KEY) === busyText) return false;
      next = { texts: new Map([...(published?.texts ?? []), [READ_MODEL_KEY, busyText]]), chunkSignatures: published?.chunkSignatures ?? new Map() };
      pending = { [READ_MODEL_KEY]: BUSY_HEADER };
      return true;
    }
    next = readModelSnapshot(buildExecutionView(state, workflowId), state.timeline, published);
    pending = memoChanges(published, next);
    return pending !== undefined;
  };
  const flush = (atEnd = false) => {
    if (!changed(atEnd)) return;
    upsertMemo(pending!);
    published = next;
  };
  void (async () => {
    for (;;) {
      await condition(changed);
      flush();
    }
  })();
  return { flush: () => flush(true) };
}
