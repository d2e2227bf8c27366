import { proxySinks } from '@temporalio/workflow';
import { commandsAcceptedHere, type GateNode } from '../built-in-definitions/definition-types';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import { applyPosition } from './position';
import { leaveBlocked } from './blocking';
import { RETRY_LABEL } from '../vocabulary/labels';
import type { Action } from './step-types';
import { nowIso } from './clock';
import type { DriverContext } from './driver-context';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();

/** The ticket's moves the step decides: into a node, to wait at a gate, to its end. */
export function createTicketTransitions(context: Pick<DriverContext, 'input' | 'state' | 'runtime' | 'publish' | 'timeline'>) {
  const { input, state, runtime, publish, timeline } = context;

  /** Carries out `enter`: the phase metric, the position, the ticket runs again, the timeline says why. */
  const enterAt = (action: Extract<Action, { type: 'enter' }>) => {
    const { from, to, outcome, visit: entered, reason, exhausted } = action.transition;
    const now = nowIso();
    serviceMetrics.phaseEnded(from, Math.max(0, (Date.parse(now) - Date.parse(runtime.entered_at)) / 1000));
    applyPosition(state.checkpoint, runtime, action.position);
    runtime.entered_at = now;
    state.status = 'running';
    state.waiting = null;
    timeline({
      kind: 'transition', occurred_at: now, status: outcome,
      summary: `${from} → ${to} (${outcome})${exhausted ? `: ${exhausted.node} reached its retry bound of ${exhausted.bound}` : ''}`,
      details: { from, to, outcome, visit: entered, reason, ...(exhausted ? { exhausted } : {}) },
    });
    publish();
  };

  const gateWaiting = (node: string, spec: GateNode) => {
    state.status = 'waiting';
    state.waiting = {
      code: 'gate', message: spec.waiting_for ?? `waiting at ${node}`, since: nowIso(),
      recovery: commandsAcceptedHere(spec),
    };
  };

  /**
   * Carries out `leave_block`: the wait of the block ends (service:retry's ends the wait metric), the ticket waits at
   * its gate again or runs, the timeline says how it left, and the search attributes follow.
   */
  const leaveBlock = (action: Extract<Action, { type: 'leave_block' }>) => {
    const now = nowIso();
    const since = state.waiting?.since;
    if (action.by === 'retry' && since) serviceMetrics.waitEnded(Math.max(0, (Date.parse(now) - Date.parse(since)) / 1000));
    const { resumedAt, code } = leaveBlocked(state, now, action.by);
    const here = state.definition?.body.nodes[resumedAt];
    // A corrected command only ever lifts a block at a gate (intake.ts `readCommand`), paused or not.
    if (here?.kind === 'gate' && (state.checkpoint.is_paused || action.by === 'corrected_command')) gateWaiting(resumedAt, here);
    else if (action.by === 'retry') state.status = 'running';
    timeline({
      kind: 'transition', occurred_at: now, status: 'resumed',
      summary: action.by === 'retry' ? `${RETRY_LABEL}: resumed at ${resumedAt}` : `a corrected command cleared the block at ${resumedAt}`,
      details: { from_code: code, delivery_identity: action.delivery_identity, retry_count: state.retry_count },
    });
    publish();
  };

  const complete = (node: string) => {
    runtime.ended = 'completed';
    state.status = 'completed';
    state.waiting = null;
    serviceMetrics.workflowCompleted(input.workflow_kind);
    timeline({ kind: 'transition', occurred_at: nowIso(), status: 'completed', summary: `Completed at ${node}`, details: { node } });
    publish();
  };

  return { enterAt, gateWaiting, leaveBlock, complete };
}

export type TicketTransitions = ReturnType<typeof createTicketTransitions>;
