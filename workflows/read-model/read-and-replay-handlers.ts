import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import { isReplayable, listEffects } from '../effects/effect-journal';
import { replayEffect, type EffectContext } from '../effects/effect-runner';
import { buildExecutionView } from './execution-view';
import { effectQuery, effectsQuery, executionQuery, replayEffectUpdate, timelineQuery } from '../messages';
import type { TicketState } from '../runtime/ticket-state';
import { appendTimeline, pageTimeline } from './timeline';

/**
 * The read API's queries and the operator's effect replay (SPEC 2.1-2.3), the same for every ticket workflow. Replay
 * is an Update whose validator refuses unknown and non-terminal effects before anything is written to history.
 */
export function registerReadAndReplayHandlers(state: TicketState, workflowId: string, effects: EffectContext, effectTimeoutSeconds: number, now: () => string): void {
  setHandler(executionQuery, () => buildExecutionView(state, workflowId));
  setHandler(timelineQuery, ({ cursor, limit }) => pageTimeline(state.timeline, cursor, limit));
  setHandler(effectsQuery, () => listEffects(state.effects));
  setHandler(effectQuery, (key) => state.effects.records[key] ?? null);
  setHandler(replayEffectUpdate, async ({ idempotency_key, requested_by }) => {
    const record = state.effects.records[idempotency_key]!;
    appendTimeline(state.timeline, {
      kind: 'operator_action', occurred_at: now(), status: 'replay_requested',
      summary: `Operator replay of ${record.operation.kind} (${idempotency_key})`, details: { idempotency_key, requested_by, previous_status: record.status },
    });
    return replayEffect(effects, record, effectTimeoutSeconds);
  }, {
    validator: ({ idempotency_key }) => {
      const record = state.effects.records[idempotency_key];
      if (!record) throw ApplicationFailure.nonRetryable(`no effect ${idempotency_key} in this workflow`, 'EffectNotFound');
      if (!isReplayable(record.status)) {
        throw ApplicationFailure.nonRetryable(`effect ${idempotency_key} is ${record.status}; only a terminal failure can be replayed`, 'EffectNotReplayable');
      }
    },
  });
}
