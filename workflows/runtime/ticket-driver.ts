import { patched, proxySinks } from '@temporalio/workflow';
import { acceptTable, type WorkflowDefinition } from '../built-in-definitions/definition-types';
import type { EffectContext } from '../effects/effect-runner';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import type { TicketWorkflowInput } from '../ledger/observation';
import type { TicketState } from './ticket-state';
import { applyPosition, stepStateOf } from './position';
import { NO_DEFINITION, step } from './step';
import type { StepEvent } from './step-types';
import { nowIso } from './clock';
import { gateTable } from './node-traits';
import { createDriverContext, type TicketSettings } from './driver-context';
import { createTicketWrites } from './ticket-writes';
import { createBlockReporter } from './block-reporter';
import { createStationRecords } from './station-records';
import { createCommandTrust } from './command-trust';
import { createStationRunner } from './station-runner';
import { createTicketTransitions } from './ticket-transitions';
import { createActionPerformer, isNowAction, type InHand } from './action-performer';
import { createInPlaceCommands } from './in-place-commands';
import { commandPositionOf } from './command-position';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();

export type { TicketSettings };
export type TicketDriver = ReturnType<typeof createTicketDriver>;

/**
 * The driver of the station runtime (DESIGN 5, 6): it carries out what the step function (./step.ts) decides. Writes
 * go through the effect journal under the names, nodes and visits the step gives them; stations run as activities
 * the kill switch can cancel; blocks are reported on the ticket; search attributes follow the state. It decides
 * nothing the step could: what is left here is I/O and the bookkeeping of what it returned.
 */
export function createTicketDriver(input: TicketWorkflowInput, state: TicketState, settings: TicketSettings, effects: EffectContext) {
  const context = createDriverContext(input, state, settings);
  const { runtime, artifacts, outputs, ticketKey, publish, timeline, visit } = context;
  // `let`: an operator's migration (workflows/registry/migration-update.ts) swaps the pinned definition while the run is idle.
  let definition: WorkflowDefinition | null = state.definition?.body ?? null;
  let accepts = definition ? acceptTable(definition) : {};
  let gates = definition ? gateTable(definition) : {};
  const env = { ticketKey, patched, unrouted: input.route_error ?? `no workflow definition is pinned for issue type "${input.issue_type ?? ''}"` };

  // A required write that fails blocks the ticket, and a block is reported with writes: each is handed the other.
  const { effect, runIntents, reply } = createTicketWrites(context, effects, (code, message) => block(code, message));
  const { block } = createBlockReporter(context, effect);
  const { recordAttempt, keepResult } = createStationRecords(context);
  const { actorAllowed, ignoreUntrusted, stopCounts } = createCommandTrust(context, { effect, reply });
  const positionNow = () => commandPositionOf(state, { definition, accepts, gates });
  const { runStation, stopTicket, stopRequests, isStationRunning } = createStationRunner(context, { recordAttempt, stopCounts: (request) => stopCounts(request, positionNow), decide });
  const { enterAt, gateWaiting, leaveBlock, complete } = createTicketTransitions(context);
  const { refuse, editDraft } = createInPlaceCommands(context, { reply, runIntents });
  const { perform, performNow } = createActionPerformer(context, { runStation, effect, recordAttempt, keepResult, enterAt, gateWaiting, complete, leaveBlock, block, refuse, editDraft });

  // A function declaration, hoisted: the station runner above is handed it before this line is reached.
  /**
   * Decides with the step function (workflows/runtime/step.ts) and carries out its actions in order; a follow-up
   * (`then`, always last) is decided on the state they left, with the same delivery in hand.
   */
  async function decide(event: StepEvent, inHand: InHand = {}): Promise<void> {
    const { actions } = step(definition ?? NO_DEFINITION, stepStateOf(state), event, env);
    for (const action of actions) {
      if (action.type === 'then') return decide(action.event, { delivery: inHand.delivery });
      if (!(await perform(action, inHand))) return;
    }
  }

  /**
   * Decides an event whose actions only change the ticket's state, and carries them out at once: no pause, so the
   * intake goes on in the same turn as before (an added pause reorders a recorded history's commands).
   */
  function decideNow(event: StepEvent): void {
    const { actions } = step(definition ?? NO_DEFINITION, stepStateOf(state), event, env);
    const later = actions.find((action) => !isNowAction(action));
    if (later) throw new Error(`${event.type} was decided to be carried out at once, but the step planned ${later.type}`);
    for (const action of actions) if (isNowAction(action)) performNow(action);
  }

  /** One step at the current node. */
  const act = () => decide({ type: 'act' });

  /** The run's first entries: started (and the ticket enters its definition's entry node) or continued as new. */
  const begin = (carried: boolean, runId: string) => {
    if (carried) {
      timeline({
        kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
        summary: 'History compacted with continue-as-new; state carried over', details: { run_id: runId },
      });
    } else {
      serviceMetrics.workflowStarted(input.workflow_kind);
      timeline({
        kind: 'workflow_started', occurred_at: state.started_at, status: state.status,
        summary: `Ticket workflow started for ${ticketKey} (${input.workflow_kind})${state.definition ? ` on ${state.definition.name} r${state.definition.revision}` : ''}`,
        details: {
          issue_type: input.issue_type, project_key: input.project_key, run_id: state.run_id,
          definition: state.definition ? { name: state.definition.name, revision: state.definition.revision, digest: state.definition.digest } : null,
        },
      });
      if (definition) {
        applyPosition(state.checkpoint, runtime, step(definition, stepStateOf(state), { type: 'start' }, env).state.position);
        runtime.entered_at = nowIso();
        state.status = 'running';
        state.waiting = null;
      }
    }
  };

  return {
    begin, runtime, artifacts, outputs, ticketKey, publish, timeline, visit, effect, runIntents, block, reply, decide, decideNow, act, stopTicket,
    actorAllowed, ignoreUntrusted, gateWaiting, stopRequests,
    definition: () => definition,
    accepts: () => accepts,
    gates: () => gates,
    /** An operator's migration swapped the pinned definition (workflows/registry/migration-update.ts). */
    setDefinition: (body: WorkflowDefinition) => {
      definition = body;
      accepts = acceptTable(body);
      gates = gateTable(body);
    },
    isStationRunning,
  };
}
