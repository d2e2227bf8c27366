import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { Observation } from '../ledger/observation';
import { STOP_LABEL } from '../vocabulary/labels';
import { isStopComment } from '../person-commands/command-service-verbs';
import { TRIGGER } from '../vocabulary/command-words';

export { STOP_LABEL };

/**
 * The kill switch (issue 17; DESIGN 6 "Budgets and the kill switch"): the label `service:stop` or the comment
 * `/service stop` cancels the running station within seconds and leaves the ticket blocked with `stopped`.
 *
 * Observations are handled one at a time after the station returns, so a stop that arrives while a station runs is
 * noticed by the signal handler instead (`isStopRequest`) and handed to `runStoppable`, which cancels the station's
 * scope once the request is found to count. Activities heartbeat and honour the cancellation; container stations
 * remove their container.
 */

export const KILL_SWITCH_PATCH = 'kill-switch';

/** Whether an observation asks to stop the ticket (before the command boundary judges it where it stands). */
export function isStopRequest(observation: Observation): boolean {
  if (observation.facts.label_change?.added.includes(STOP_LABEL)) return true;
  const comment = observation.facts.comment;
  if (!comment || !['issue_commented', 'issue_comment', 'note'].includes(observation.event)) return false;
  return isStopComment(comment.body);
}

/** The trigger a stop request is (the label or the comment), as the command boundary judges it. */
export function stopTriggerOf(observation: Observation): typeof TRIGGER.stopLabel | typeof TRIGGER.stopCommand {
  return observation.facts.label_change?.added.includes(STOP_LABEL) ? TRIGGER.stopLabel : TRIGGER.stopCommand;
}

export interface StoppableRun<T> {
  /** The station's own result; absent when it was cancelled. */
  value?: T;
  /** The stop request that cancelled it (the station may still have returned, e.g. timed out while cancelling). */
  stoppedBy?: Observation;
}

/**
 * Runs `work` in a cancellation scope of its own while watching `pending` (stop requests that arrived meanwhile);
 * the first request `counts` accepts cancels the scope. A request that does not count is dropped here: the command
 * boundary records why when it reaches the observation.
 */
export async function runStoppable<T>(work: () => Promise<T>, pending: Observation[], counts: (request: Observation) => Promise<boolean>): Promise<StoppableRun<T>> {
  const scope = new CancellationScope();
  let finished = false;
  let stoppedBy: Observation | undefined;
  const running = scope.run(work).finally(() => {
    finished = true;
  });
  const watcher = (async () => {
    while (!finished && stoppedBy === undefined) {
      await condition(() => finished || pending.length > 0);
      const request = pending.shift();
      if (finished || !request) return;
      if (await counts(request)) {
        stoppedBy = request;
        scope.cancel();
      }
    }
  })();
  try {
    const value = await running;
    await watcher;
    return stoppedBy ? { value, stoppedBy } : { value };
  } catch (error) {
    await watcher;
    if (stoppedBy && isCancellation(error)) return { stoppedBy };
    throw error;
  } finally {
    pending.length = 0;
  }
}
