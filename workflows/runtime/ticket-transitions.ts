import { proxySinks } from '@temporalio/workflow';
import { commandsAcceptedHere, type GateNode } from '../built-in-definitions/definition-types';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import { applyPosition } from './position';
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

  const complete = (node: string) => {
    runtime.ended = 'completed';
    state.status = 'completed';
    state.waiting = null;
    serviceMetrics.workflowCompleted(input.workflow_kind);
    timeline({ kind: 'transition', occurred_at: nowIso(), status: 'completed', summary: `Completed at ${node}`, details: { node } });
    publish();
  };

  return { enterAt, gateWaiting, complete };
}

export type TicketTransitions = ReturnType<typeof createTicketTransitions>;
