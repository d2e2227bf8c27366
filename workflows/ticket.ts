import { allHandlersFinished, condition, continueAsNew, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { jsonBytesExceed } from './runtime/bounded-json';
import type { EffectContext } from './effects/effect-runner';
import { legacyTicketRun } from './runtime/legacy-ticket';
import { observeSignal } from './messages';
import type { TicketWorkflowInput } from './ledger/observation';
import { recordObservation } from './ledger/record-observation';
import { applyRetention } from './runtime/retention';
import { initialRuntime, initialTicketState, type TicketState } from './runtime/ticket-state';
import { startReadModelPublisher } from './read-model/read-model-publisher';
import { registerReadAndReplayHandlers } from './read-model/read-and-replay-handlers';
import { registerMigrationUpdate } from './registry/migration-update';
import { isStopRequest } from './runtime/kill-switch';
import { holdInboxBehindQuestion, QUEUE_BEHIND_QUESTION_PATCH } from './runtime/inbox-drain';
import { SKIP_GATE_REEVALUATES_PATCH } from './runtime/step';
import { nowIso } from './runtime/clock';
import { forInbox, settingsOf } from './runtime/ticket-settings';
import { createTicketDriver } from './runtime/ticket-driver';
import { createCommandHandler, TRUSTED_YOLO_AT_START_PATCH } from './runtime/intake';


/** The marker that tells a ticket run by the station runtime from one started by the v0.1 build (replayed as such). */
export const STATION_RUNTIME_PATCH = 'station-runtime';
export { SKIP_GATE_REEVALUATES_PATCH };
/** Runs that keep the read model in their memo (workflows/read-model/read-model-publisher.ts); older runs answer by query. */
export const READ_MODEL_PATCH = 'read-model-memo';
export { TRUSTED_YOLO_AT_START_PATCH };

/**
 * One long-lived workflow per managed ticket (workflow id `ticket-<KEY>`). Tickets started by the v0.1 build (no
 * `station-runtime` marker in their history, or carried state without a pinned definition) keep running the v0.1
 * code, so their histories replay unchanged; every other ticket walks its pinned definition.
 */
export async function ticketWorkflow(input: TicketWorkflowInput, carried?: TicketState): Promise<void> {
  if (!patched(STATION_RUNTIME_PATCH) || (carried !== undefined && carried.definition === undefined)) return legacyTicketRun(input, carried);
  return stationRuntimeRun(input, carried);
}

/**
 * The station interpreter (DESIGN 5, 6): every delivery arrives as an `observe` signal and is decided by the ledger
 * at once; accepted ones become commands only where the pinned definition's node accepts them; stations are
 * activities that return an outcome and the writes they want, which run here as journaled, idempotent effects.
 */
async function stationRuntimeRun(input: TicketWorkflowInput, carried?: TicketState): Promise<void> {
  const info = workflowInfo();
  const settings = settingsOf(input);
  const state: TicketState = carried ?? {
    ...initialTicketState(input, info.firstExecutionRunId, nowIso()),
    definition: input.definition ?? null,
    runtime: initialRuntime(nowIso()),
    artifacts: {},
    outputs: {},
    station_attempts: [],
  };
  const ticketKey = input.ticket_key;
  const effects: EffectContext = { journal: state.effects, timeline: state.timeline, ticketKey, runId: state.run_id, now: nowIso };
  const driver = createTicketDriver(input, state, settings, effects);
  const { runtime, publish, timeline, decide, act } = driver;
  const handleAccepted = createCommandHandler(input, state, driver);
  // True only while the main loop waits for a delivery or a command: no station, effect or timer of its own runs.
  let idle = false;
  const readModel = patched(READ_MODEL_PATCH) ? startReadModelPublisher(state, info.workflowId, () => idle) : undefined;

  driver.begin(carried !== undefined, info.runId);

  setHandler(observeSignal, (observation) => {
    const verdict = recordObservation(state, observation, nowIso());
    if (verdict.decision === 'accepted' || verdict.decision === 'conflict') state.inbox.push({ observation: forInbox(observation), decision: verdict.decision, reason: verdict.reason });
    if (verdict.decision === 'accepted' && driver.isStationRunning() && observation.ticket_key === ticketKey && isStopRequest(observation)) driver.stopRequests.push(observation);
  });
  registerReadAndReplayHandlers(state, info.workflowId, effects, settings.effect_timeout_seconds, nowIso);
  registerMigrationUpdate(state, {
    isIdle: () => idle, now: nowIso,
    onApplied: ({ target_node, renames }) => {
      driver.setDefinition(state.definition!.body);
      driver.decideNow({ type: 'migrated', target_node, renames });
      publish();
    },
  });

  // Temporal suggests continue-as-new for large histories; a deployment may ask sooner; the state must stay a payload.
  const historyIsLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= settings.history_event_limit;
  const canAct = () => !state.checkpoint.is_blocked && !state.checkpoint.is_paused && runtime.ended === null;

  publish();
  for (;;) {
    for (let next = state.inbox.shift(); next !== undefined; next = state.inbox.shift()) {
      if (next.decision === 'accepted') await handleAccepted(next.observation);
      else await decide({ type: 'conflict', reason: next.reason });
      publish();
      // After a `?` the rest waits until the answer is posted (patched: histories from before judged it at the station).
      if (holdInboxBehindQuestion(canAct() && runtime.request?.kind === 'question', state.inbox) && patched(QUEUE_BEHIND_QUESTION_PATCH)) break;
    }
    if (runtime.ended === 'completed' && state.inbox.length === 0) {
      await condition(allHandlersFinished);
      readModel?.flush();
      return;
    }
    if (historyIsLong() || jsonBytesExceed(state, settings.state_byte_limit)) {
      await condition(allHandlersFinished);
      const trimmed = applyRetention(state, settings.retention, settings.state_byte_limit);
      timeline({
        kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
        summary: `Continuing as new after ${workflowInfo().historyLength} history events; retention trimmed ${trimmed.timeline} timeline entries and ${trimmed.effects} finished effects`,
        details: { ...trimmed, history_length: workflowInfo().historyLength, queued_commands: state.inbox.length },
      });
      // The inbox is state: commands that arrived meanwhile travel along and are handled by the next run.
      await continueAsNew<typeof ticketWorkflow>(input, state);
    }
    if (canAct()) {
      await act();
      publish();
      continue;
    }
    idle = true;
    await condition(() => state.inbox.length > 0 || canAct() || historyIsLong());
    idle = false;
  }
}
