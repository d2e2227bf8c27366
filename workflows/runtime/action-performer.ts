import { proxySinks } from '@temporalio/workflow';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import { applyPosition } from './position';
import type { Action } from './step-types';
import { nowIso } from './clock';
import type { DriverContext } from './driver-context';
import type { BlockReporter } from './block-reporter';
import type { Returned, StationRecords } from './station-records';
import type { StationRunner } from './station-runner';
import type { TicketTransitions } from './ticket-transitions';
import type { TicketWrites } from './ticket-writes';
import type { AnsweredDelivery, InPlaceCommands } from './in-place-commands';
import { clearReviewResponseState } from './blocking';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();

/** The parts of the driver the actions of a step are carried out with. */
export interface ActionParts {
  runStation: StationRunner['runStation'];
  effect: TicketWrites['effect'];
  recordAttempt: StationRecords['recordAttempt'];
  keepResult: StationRecords['keepResult'];
  enterAt: TicketTransitions['enterAt'];
  gateWaiting: TicketTransitions['gateWaiting'];
  complete: TicketTransitions['complete'];
  leaveBlock: TicketTransitions['leaveBlock'];
  block: BlockReporter['block'];
  refuse: InPlaceCommands['refuse'];
  editDraft: InPlaceCommands['editDraft'];
}

/** The actions that only change the ticket's state (the timeline, the position): carried out without a pause. */
export type NowAction = Extract<Action, { type: 'record' | 'set_position' }>;

export function isNowAction(action: Action): action is NowAction {
  return action.type === 'record' || action.type === 'set_position';
}

/** What a step's actions are carried out with besides the driver: the station result or the delivery in hand. */
export interface InHand {
  returned?: Returned;
  delivery?: AnsweredDelivery;
}

/** An action that answers a delivery, performed without one: a bug of the driver's caller, not of the ticket. */
function deliveryOf(action: Action, inHand: InHand): AnsweredDelivery {
  if (!inHand.delivery) throw new Error(`the step planned ${action.type}, which answers a delivery, but none is in hand`);
  return inHand.delivery;
}

/** Carries out the actions of a step (./step-types.ts `Action`), one at a time, with the parts of the driver. */
export function createActionPerformer(
  context: Pick<DriverContext, 'state' | 'runtime' | 'artifacts' | 'outputs' | 'publish' | 'timeline'>,
  { runStation, effect, recordAttempt, keepResult, enterAt, gateWaiting, complete, leaveBlock, block, refuse, editDraft }: ActionParts,
) {
  const { state, runtime, artifacts, outputs, publish, timeline } = context;

  /** Carries out an action that only changes the ticket's state: at once, with no I/O and no pause. */
  const performNow = (action: NowAction): void => {
    if (action.type === 'set_position') applyPosition(state.checkpoint, runtime, action.position);
    else timeline({ kind: action.kind, occurred_at: nowIso(), status: action.status, summary: action.summary, details: action.details });
  };

  /** Carries out one action of a step; false when a required write failed (the ticket is blocked, the step ends). */
  const perform = async (action: Exclude<Action, { type: 'then' }>, inHand: InHand = {}): Promise<boolean> => {
    const { returned } = inHand;
    switch (action.type) {
      case 'run_station':
        await runStation(action.node, action.visit, action.spec, action.params);
        break;
      case 'effect':
        if (!(await effect(action.name, action.operation, action.required, action)) && action.required) return false;
        break;
      case 'record_attempt': {
        const { base, result } = returned!;
        recordAttempt({
          ...base, status: action.status, outcome: result.outcome, summary: result.summary ?? null, error: action.error, effects: result.effects?.length ?? 0,
          usage: result.usage ? { input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens } : null,
        });
        break;
      }
      case 'keep_result':
        keepResult(returned!.spec, returned!.result);
        break;
      case 'set_output':
        outputs[action.key] = action.data;
        break;
      case 'approve_artifact': {
        // Trusted input: later stations build on this snapshot, whatever the artifact or the ticket says afterwards.
        const artifact = artifacts[action.artifact];
        if (artifact) artifact.approved = { digest: artifact.digest, at: nowIso(), by: action.by, text: artifact.text };
        break;
      }
      case 'wait_ended':
        if (state.waiting?.since) serviceMetrics.waitEnded(Math.max(0, (Date.parse(nowIso()) - Date.parse(state.waiting.since)) / 1000));
        break;
      case 'set_position':
      case 'record':
        performNow(action);
        break;
      case 'enter':
        enterAt(action);
        break;
      case 'wait':
        applyPosition(state.checkpoint, runtime, action.position);
        gateWaiting(action.node, action.spec);
        publish();
        break;
      case 'block':
        await block(action.code, action.message, action.comment);
        break;
      case 'complete':
        complete(action.node);
        break;
      case 'leave_block':
        leaveBlock(action);
        break;
      case 'back_to_review':
        clearReviewResponseState(state);
        applyPosition(state.checkpoint, runtime, action.position);
        break;
      case 'refuse':
        await refuse(action, deliveryOf(action, inHand));
        break;
      case 'edit_draft':
        await editDraft(action, deliveryOf(action, inHand));
        break;
    }
    return true;
  };

  return { perform, performNow };
}
