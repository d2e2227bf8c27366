import type { Command } from '../person-commands/command-types';
import type { GateNode, StationNode, WorkflowDefinition } from '../built-in-definitions/definition-types';
import { gateCommandEffect, stageLabels } from './gate-meaning';
import { decideRouter } from './routers';
import { mergeProgress } from './merge-progress';
import type { StationRequest } from './station-types';
import { enter, resolveOutcome } from './enter';
import { gateTraits, reviewRetryTarget, stationTraits } from './node-traits';
import type { Action, Position, StepEnv, StepEvent, StepResult, StepState } from './step-types';
import { BLOCKED_LABEL, RETRY_LABEL, STOP_LABEL, YOLO_LABEL } from '../vocabulary/labels';
import { REBASE_MERGED_PATCH, rebaseDecision } from './rebase-decision';
import { migratedPosition } from '../registry/migration-compatibility';
import { TRIGGER, TRIGGER_LABEL } from '../vocabulary/command-words';

/**
 * The ticket runtime's decisions as one pure function (DESIGN 6): given the pinned definition, where the ticket
 * stands and what happened, the state afterwards and the actions that carry it out, in order. The driver in
 * workflows/ticket.ts performs the actions (stations, journaled writes, waits, blocks) and feeds what they return
 * back in as events. No I/O and no clock: unit-tested without Temporal, deterministic on replay.
 */

/** Waiting for CI, `/service skip-gate` judges the checks again (histories from before did not). */
export const SKIP_GATE_REEVALUATES_PATCH = 'skip-gate-reevaluates';
/** service:retry at a gate that waits under yolo (switched on while blocked) lets yolo approve it (histories from before waited on). */
export const RESUMED_YOLO_GATE_PATCH = 'resumed-yolo-gate-approves';

/**
 * The repository router counts its decisions, not its entries: a rebase detour returns (`$return`) to the router
 * without a decision, and counting that entry skipped a planned repository (histories from before counted entries).
 */
export const ROUTER_COUNTS_DECISIONS_PATCH = 'router-counts-decisions';

/**
 * Coming back from a detour (a `/service rebase`, `$return`) to a station with a retry bound does not count against
 * the bound: the station did not fail, and rebases alone escalated a ticket (histories from before counted it).
 */
export const DETOUR_RETURN_UNBOUNDED_PATCH = 'detour-return-not-bounded';

/**
 * A station whose retry bound ran out blocks with its own `exhausted_code` (`ci_fix_limit` for CI fixes, which the
 * alerts and docs name), not the escalation end's generic code (histories from before blocked with the end's).
 */
export const EXHAUSTED_CODE_BLOCKS_PATCH = 'exhausted-code-blocks';

/**
 * A blocked end reached by an outcome (a pull request closed without merging) keeps where the ticket came from, and
 * service:retry resumes there (histories from before blocked again).
 */
export const BLOCKED_END_RESUMES_PATCH = 'blocked-end-resumes';

/**
 * A triage gate (`feedback_retriages`) takes its pending label off whatever outcome it is left by; histories from
 * before left that to the triage station, which took it off when it ran again and found the ticket complete.
 */
export const TRIAGE_GATE_CLEARS_ITS_LABEL_PATCH = 'triage-gate-clears-its-label';

type Moved = { position: Position; actions: Action[] };

function visitOf(position: Position, node = position.node): number {
  return position.visits[node] ?? 1;
}

function labelsEffect(state: StepState, ticketKey: string, name: string, node: string, add: string[], remove: string[]): Action {
  return { type: 'effect', name, node, visit: visitOf(state.position, node), operation: { kind: 'tracker.labels', issue_key: ticketKey, add, remove }, required: false };
}

function transition(definition: WorkflowDefinition, position: Position, outcome: string, target: string, reason: string, env: StepEnv, countsBound = true): Moved {
  const entered = enter(definition, position, target, countsBound);
  // A blocked end reached by an outcome (not by a bound running out): service:retry goes back where the ticket came
  // from, as the end's message promises ("reopen it and add service:retry"). Histories from before stayed blocked.
  const end = definition.nodes[entered.position.node];
  if (end?.kind === 'end' && end.result === 'blocked' && !entered.exhausted && env.patched(BLOCKED_END_RESUMES_PATCH)) {
    entered.position = { ...entered.position, resume_at: position.node };
  }
  return {
    position: entered.position,
    actions: [{
      type: 'enter', position: entered.position,
      transition: { from: position.node, to: entered.position.node, outcome, visit: entered.visit, reason, ...(entered.exhausted ? { exhausted: entered.exhausted } : {}) },
    }],
  };
}

function moveOn(definition: WorkflowDefinition, position: Position, outcome: string, reason: string, env: StepEnv): Moved {
  const resolved = resolveOutcome(definition, position.return_to, position.node, outcome);
  if (!resolved.ok) return { position, actions: [{ type: 'block', code: 'invalid_station_result', message: resolved.reason }] };
  return transition(definition, position, outcome, resolved.target, reason, env);
}

/** A gate's outcome: approval snapshots the artifact and takes the pending label off; the request goes along. */
function passGate(definition: WorkflowDefinition, state: StepState, env: StepEnv, spec: GateNode, outcome: string, request: StationRequest | null, by: string): Moved {
  const node = state.position.node;
  const actions: Action[] = [{ type: 'wait_ended' }];
  // Choosing an RCA option (`>option N`) approves the analysis it was chosen from, as an approval label would.
  const approves = outcome === 'approved' || outcome === 'option_selected';
  if (approves && spec.artifact) actions.push({ type: 'approve_artifact', artifact: spec.artifact, by });
  // A triage gate's label goes with any outcome (the details came, or a question): the gate is its one writer, where
  // the triage station took it off when it ran again (patched: histories from before).
  const clears = approves || (gateTraits(node, spec).feedback_retriages && env.patched(TRIAGE_GATE_CLEARS_ITS_LABEL_PATCH));
  if (clears && spec.pending_label) actions.push(labelsEffect(state, env.ticketKey, 'clear_stage_label', node, [], [spec.pending_label]));
  // The question detour: the answering station returns (`$return`) to the gate that was asked.
  const position: Position = { ...state.position, request, return_to: outcome === 'question' ? node : state.position.return_to, paused: false };
  actions.push({ type: 'set_position', position });
  const moved = moveOn(definition, position, outcome, `${node}: ${outcome} by ${by}`, env);
  return { position: moved.position, actions: [...actions, ...moved.actions] };
}

/** Entering a gate: its stage label replaces the others, then every merge or yolo passes it, or it waits. */
function openGate(definition: WorkflowDefinition, state: StepState, env: StepEnv, spec: GateNode): Moved {
  const node = state.position.node;
  const actions: Action[] = [];
  if (spec.pending_label) {
    const others = stageLabels(definition).filter((label) => label !== spec.pending_label);
    actions.push(labelsEffect(state, env.ticketKey, 'stage_label', node, [spec.pending_label], others));
  }
  if (state.blocked) return { position: state.position, actions };
  let passed: Moved | undefined;
  // Every pull request was merged while the ticket was elsewhere (a merge is remembered wherever it arrives).
  if (spec.on.merged && mergeProgress(state.pull_requests, state.merged_pull_requests).all) {
    passed = passGate(definition, state, env, spec, 'merged', null, 'the merge of every pull request');
  } else if (state.position.yolo && spec.auto_approve_in_yolo) {
    actions.push({ type: 'record', kind: 'command_decision', status: 'accepted', summary: `${node} approved by service:yolo`, details: { node, via: 'yolo' } });
    passed = passGate(definition, state, env, spec, 'approved', null, YOLO_LABEL);
  }
  if (passed) return { position: passed.position, actions: [...actions, ...passed.actions] };
  const position = { ...state.position, paused: true };
  return { position, actions: [...actions, { type: 'wait', position, node, spec }] };
}

/** A question is about the artifact of the gate it was asked at; a rebase works on the pull request it was asked for. */
function paramsFor(definition: WorkflowDefinition, position: Position, spec: StationNode): StationNode['params'] {
  if (stationTraits(spec).takes_rebase_target && position.rebase_target) return { ...spec.params, pull_request: position.rebase_target };
  const gate = position.return_to ? definition.nodes[position.return_to] : undefined;
  if (position.request?.kind !== 'question' || gate?.kind !== 'gate' || !gate.artifact) return spec.params;
  return { ...spec.params, artifact: gate.artifact };
}

/**
 * Which turn of the router this is: one more than its last decision (kept in `outputs` under its name). Entries and
 * decisions differ only after a detour returned to the router, and only then is the patch asked.
 */
function routerTurn(state: StepState, router: string, env: StepEnv): number {
  const entries = visitOf(state.position);
  const last = (state.outputs[router] as { index?: unknown } | undefined)?.index;
  const turn = typeof last === 'number' ? last + 1 : 1;
  return turn !== entries && env.patched(ROUTER_COUNTS_DECISIONS_PATCH) ? turn : entries;
}

/** What the node the ticket stands at does. */
function act(definition: WorkflowDefinition, state: StepState, env: StepEnv): Moved {
  const { position } = state;
  const node = position.node;
  const spec = definition.nodes[node];
  const block = (message: string): Moved => ({ position, actions: [{ type: 'block', code: 'invalid_station_result', message }] });
  if (!spec) return block(`${node} is not a node of ${definition.name} r${definition.revision}`);
  switch (spec.kind) {
    case 'station':
      return { position, actions: [{ type: 'run_station', node, visit: visitOf(position), spec, params: paramsFor(definition, position, spec) }] };
    case 'gate':
      return openGate(definition, state, env, spec);
    case 'router': {
      const decision = decideRouter(spec, state.outputs, routerTurn(state, spec.router, env));
      if (!decision.ok) return block(decision.reason);
      const moved = moveOn(definition, position, decision.outcome, `router ${spec.router} decided ${decision.outcome}`, env);
      return { position: moved.position, actions: [...(decision.data ? [{ type: 'set_output', key: spec.router, data: decision.data } as const] : []), ...moved.actions] };
    }
    case 'end': {
      if (spec.result === 'completed') return { position, actions: [{ type: 'complete', node }] };
      const resume = position.resume_at ? `; service:retry resumes at ${position.resume_at}` : '';
      return { position, actions: [{ type: 'block', code: endBlockCode(definition, position, spec.code ?? 'escalated', env), message: `${spec.message ?? `reached ${node}`}${resume}` }] };
    }
  }
}

/** A blocked end reached because a station's retry bound ran out blocks with that station's code, where it names one. */
function endBlockCode(definition: WorkflowDefinition, position: Position, code: string, env: StepEnv): string {
  const bounded = position.resume_at ? definition.nodes[position.resume_at] : undefined;
  const own = bounded?.kind === 'station' ? bounded.exhausted_code : undefined;
  return own !== undefined && own !== code && env.patched(EXHAUSTED_CODE_BLOCKS_PATCH) ? own : code;
}

/** Whether entering `target` counts against its retry bound: not when a detour returns to it (patched). */
function countsBound(definition: WorkflowDefinition, target: string, returned: boolean, env: StepEnv): boolean {
  const spec = definition.nodes[target];
  if (!returned || spec?.kind !== 'station' || spec.retry_bound === undefined) return true;
  return !env.patched(DETOUR_RETURN_UNBOUNDED_PATCH);
}

function stationReturned(definition: WorkflowDefinition, state: StepState, event: Extract<StepEvent, { type: 'station_returned' }>, env: StepEnv): Moved {
  const { position } = state;
  const mapped = resolveOutcome(definition, position.return_to, event.node, event.outcome);
  if (!mapped.ok) {
    return {
      position,
      actions: [
        { type: 'record_attempt', status: 'invalid', error: mapped.reason },
        { type: 'block', code: 'invalid_station_result', message: `${event.station} returned outcome "${event.outcome}": ${mapped.reason}` },
      ],
    };
  }
  const spec = definition.nodes[event.node];
  const traits = spec?.kind === 'station' ? stationTraits(spec) : stationTraits({ kind: 'station', station: event.station, on: {} });
  const visit = visitOf(position, event.node);
  const actions: Action[] = [
    { type: 'record_attempt', status: 'succeeded', error: null },
    { type: 'keep_result' },
    ...event.intents.map((intent): Action => ({ type: 'effect', name: intent.name, node: event.node, visit, operation: intent.operation, required: intent.required ?? false })),
  ];
  // SPEC 3.2: fix attempts count until the limit blocks; a pass (or service:retry) starts the count again.
  let attempts = position.ci_fix_attempts;
  if (traits.counts_ci_fix_attempt) attempts += 1;
  if (traits.resets_ci_fix_attempts_on === event.outcome) attempts = 0;
  const done: Position = { ...position, request: null, rebase_target: traits.takes_rebase_target ? null : position.rebase_target, ci_fix_attempts: attempts };
  const moved = transition(definition, done, event.outcome, mapped.target, `${event.station} returned ${event.outcome}`, env, countsBound(definition, mapped.target, mapped.returned, env));
  return { position: moved.position, actions: [...actions, ...moved.actions] };
}

/** A command at the ticket's node: a gate moves by the outcome it maps; elsewhere the station decides when it runs. */
function commandAt(definition: WorkflowDefinition, state: StepState, env: StepEnv, command: Command, by: string, deliveryIdentity: string): Moved {
  const { position } = state;
  const node = position.node;
  const meaning = gateCommandEffect(command);
  if (meaning.type === 'in_place') return { position, actions: [] };
  const spec = definition.nodes[node];
  if (spec?.kind !== 'gate') {
    return {
      position,
      actions: [{
        type: 'record', kind: 'command_decision', status: 'deferred',
        summary: `${command.type} at ${node}: the station here decides from the provider's current state when it runs`,
        details: { node, command: command.type, delivery_identity: deliveryIdentity },
      }],
    };
  }
  if (meaning.outcome === 'merged' || meaning.outcome === 'review_approved') {
    // A ticket spans repositories: it moves on once every pull request is merged or approved.
    const progress = mergeProgress(state.pull_requests, state.merged_pull_requests, state.approved_pull_requests);
    if (!progress.all) {
      return {
        position,
        actions: [{
          type: 'record', kind: 'command_decision', status: 'recorded',
          summary: `a pull request was ${meaning.outcome === 'merged' ? 'merged' : 'approved'}; still waiting for ${progress.waiting.join(', ')}`, details: { node, waiting: progress.waiting },
        }],
      };
    }
  }
  return passGate(definition, state, env, spec, meaning.outcome, meaning.request, by);
}

/** The actions, closed by a `set_position` when the last position they carry is not the step's result. */
function closed(start: Position, moved: Moved): Action[] {
  let carried = start;
  for (const action of moved.actions) if (action.type === 'enter' || action.type === 'wait' || action.type === 'set_position' || action.type === 'back_to_review') carried = action.position;
  if (carried === moved.position) return moved.actions;
  // A follow-up (`then`) decides on the state the actions leave: the position is written before it.
  const follow = moved.actions.at(-1)?.type === 'then' ? moved.actions.slice(-1) : [];
  return [...moved.actions.slice(0, moved.actions.length - follow.length), { type: 'set_position', position: moved.position }, ...follow];
}

/** A gate that waits here and may be passed now (not blocked, paused at it). */
function pausedGate(definition: WorkflowDefinition, state: StepState): GateNode | undefined {
  const spec = definition.nodes[state.position.node];
  return spec?.kind === 'gate' && state.position.paused && !state.blocked ? spec : undefined;
}

/**
 * The state the actions leave once all are carried out: the position, and what the blocks, the completion and the
 * routers' decisions change. A required write that fails is the driver's to see; it blocks, and the step ends there.
 */
function stateAfter(state: StepState, position: Position, actions: readonly Action[]): StepState {
  let after: StepState = { ...state, position };
  for (const action of actions) {
    if (action.type === 'block') after = { ...after, blocked: true };
    else if (action.type === 'leave_block') after = { ...after, blocked: false, retry_count: after.retry_count + 1 };
    else if (action.type === 'back_to_review') after = { ...after, blocked: false };
    else if (action.type === 'complete') after = { ...after, ended: true };
    else if (action.type === 'set_output') after = { ...after, outputs: { ...after.outputs, [action.key]: action.data } };
  }
  return after;
}

/** A station that could not produce a result: its own writes (which report the failure), then the block. */
function stationFailed(state: StepState, event: Extract<StepEvent, { type: 'station_failed' }>): Moved {
  const { position } = state;
  return {
    position,
    actions: [
      ...event.intents.map((intent): Action => ({ type: 'effect', name: intent.name, node: event.node, visit: visitOf(position, event.node), operation: intent.operation, required: intent.required ?? false })),
      // The station's own writes reported the failure: the block is not reported twice.
      { type: 'block', code: event.code, message: event.message, ...(event.intents.length > 0 ? { comment: null } : {}) },
    ],
  };
}

/** service:yolo switched on or off: switched on, it passes the gate that waits, where the gate allows it. */
function yoloSwitched(definition: WorkflowDefinition, state: StepState, enabled: boolean, env: StepEnv): Moved {
  const switched: StepState = { ...state, position: { ...state.position, yolo: enabled } };
  const gate = pausedGate(definition, switched);
  if (enabled && gate?.auto_approve_in_yolo) return passGate(definition, switched, env, gate, 'approved', null, YOLO_LABEL);
  return { position: switched.position, actions: [] };
}

/** service:yolo on the ticket when it started: before it pauses anywhere, so nothing is passed yet. */
function yoloAtStart(state: StepState, event: Extract<StepEvent, { type: 'yolo_at_start' }>): Moved {
  const details = { delivery_identity: event.delivery_identity, ...(event.reason !== undefined ? { reason: event.reason } : {}) };
  const switched: Position = { ...state.position, yolo: true };
  return {
    position: switched,
    actions: [
      { type: 'record', kind: 'command_decision', status: 'accepted', summary: `${YOLO_LABEL} was on the ticket when it started: planning gates approve themselves`, details },
      { type: 'set_position', position: switched },
    ],
  };
}

/** The unknown command's block goes; what the corrected command means is decided next, as any command's is. */
function corrected(state: StepState, event: Extract<StepEvent, { type: 'corrected' }>, env: StepEnv): Moved {
  const { position } = state;
  return {
    position,
    actions: [
      { type: 'leave_block', by: 'corrected_command', delivery_identity: event.delivery_identity },
      labelsEffect(state, env.ticketKey, `corrected_${state.retry_count}_labels`, position.node, [], [BLOCKED_LABEL]),
    ],
  };
}

/** A draft edit at the gate where the ticket waits with a draft; nothing anywhere else. */
function draftEdit(definition: WorkflowDefinition, state: StepState, event: Extract<StepEvent, { type: 'draft_edit' }>): Moved {
  const { position } = state;
  const spec = definition.nodes[position.node];
  if (spec?.kind !== 'gate' || !spec.artifact) return { position, actions: [] };
  return { position, actions: [{ type: 'edit_draft', node: position.node, artifact: spec.artifact, command: event.command }] };
}

/** `/service skip-gate` or `unskip-gate`: the skip list changes, nothing else. */
function ciSkips(position: Position, skip: boolean, match: string): Moved {
  const skipped = new Set(position.ci_skipped_checks);
  if (skip) skipped.add(match);
  else skipped.delete(match);
  return { position: { ...position, ci_skipped_checks: [...skipped].sort() }, actions: [] };
}

/**
 * Waiting for CI (or for a review with CI still open): the checks are judged again with the new skip list, so
 * skipping a check that will never finish ends the wait.
 */
function ciRecheck(definition: WorkflowDefinition, state: StepState, via: string, env: StepEnv): Moved {
  const gate = pausedGate(definition, state);
  if (gate?.on.ci_event && env.patched(SKIP_GATE_REEVALUATES_PATCH)) return passGate(definition, state, env, gate, 'ci_event', null, via);
  return { position: state.position, actions: [] };
}

/** `/service rebase`, judged (./rebase-decision.ts): the detour, or a refusal the person is answered with. */
function rebaseRequested(definition: WorkflowDefinition, state: StepState, event: Extract<StepEvent, { type: 'rebase' }>, env: StepEnv): Moved {
  const { position } = state;
  // Patched: histories from before ran the station on a merged pull request and replied with the bare reason.
  const mergedAware = env.patched(REBASE_MERGED_PATCH);
  const decision = rebaseDecision(definition === NO_DEFINITION ? null : definition, { ...state, node: position.node }, event.target, { mergedAware });
  if (decision.type === 'refuse') {
    return {
      position,
      actions: [
        { type: 'record', kind: 'command_decision', status: 'rejected', summary: `/service rebase at ${position.node}: ${decision.reason}`, details: { node: position.node, delivery_identity: event.delivery_identity } },
        { type: 'refuse', trigger: TRIGGER.rebase, reason: decision.reason, reply: mergedAware ? 'with_position' : 'bare' },
      ],
    };
  }
  // The rebase detour returns (`$return`) to where the ticket stood; a gate pauses there again.
  const leaving: Position = { ...position, rebase_target: decision.target, return_to: position.node, request: null, paused: false };
  return transition(definition, leaving, 'rebase_requested', decision.node, `/service rebase at ${position.node}`, env);
}

/** service:retry has left the block: a gate under yolo passes, an escalation goes back to its node, else nothing moves. */
function resumed(definition: WorkflowDefinition, state: StepState, env: StepEnv): Moved {
  const { position } = state;
  // Yolo switched on while the ticket was blocked could not pass the gate it waits at; now it may.
  const gate = pausedGate(definition, state);
  if (gate?.auto_approve_in_yolo && position.yolo && env.patched(RESUMED_YOLO_GATE_PATCH)) {
    const node = position.node;
    const record: Action = { type: 'record', kind: 'command_decision', status: 'accepted', summary: `${node} approved by service:yolo`, details: { node, via: 'yolo' } };
    const passed = passGate(definition, state, env, gate, 'approved', null, YOLO_LABEL);
    return { position: passed.position, actions: [record, ...passed.actions] };
  }
  // At a blocked end that keeps where the ticket came from (a retry bound ran out, or an outcome such as a pull
  // request closed led here): back there, and a bounded node starts its count again. Otherwise the same visit
  // resumes, so a station run again asks for its writes under the same keys and nothing is written twice.
  const spec = definition.nodes[position.node];
  if (spec?.kind !== 'end' || !position.resume_at) return { position, actions: [] };
  const target = position.resume_at;
  const restarted: Position = { ...position, bound_counts: { ...position.bound_counts, [target]: 0 }, resume_at: null };
  return transition(definition, restarted, 'retry', target, `${RETRY_LABEL} after ${position.node}`, env);
}

/** The kill switch: recorded as an operator action, the ticket blocked with `stopped`, the label taken off. */
function stopped(state: StepState, event: Extract<StepEvent, { type: 'stop' }>, env: StepEnv): Moved {
  const { position } = state;
  const node = position.node;
  // How people asked for it, as they wrote it (the timeline and the block message show it).
  const how = event.via_label ? STOP_LABEL : TRIGGER_LABEL[TRIGGER.stopCommand];
  const actions: Action[] = [
    {
      type: 'record', kind: 'operator_action', status: 'stopped',
      summary: `${how} by ${event.by}: ${event.cancelled ? `the running ${event.cancelled} station was cancelled at ${node}` : `stopped at ${node}`}`,
      details: { action: 'stop', by: event.by, via: how, node, cancelled_station: event.cancelled, delivery_identity: event.delivery_identity },
    },
    { type: 'block', code: 'stopped', message: `stopped by ${event.by} (${how})${event.cancelled ? `; the running ${event.cancelled} station was cancelled` : ''}` },
  ];
  // The label is a request: once carried out it goes, so that it can be used again after service:retry.
  if (event.via_label) actions.push(labelsEffect(state, env.ticketKey, `stop_${state.retry_count}_label`, node, [], [STOP_LABEL]));
  return { position, actions };
}

/** What the event does where the ticket stands, before the actions are closed (`closed`) and the state derived. */
function decideEvent(definition: WorkflowDefinition, state: StepState, event: StepEvent, env: StepEnv): Moved {
  const { position } = state;
  switch (event.type) {
    case 'start': {
      // The entry node is entered without a transition of its own: the run's first entry says where it started.
      if (definition === NO_DEFINITION) return { position, actions: [] };
      const entered = enter(definition, position, definition.entry).position;
      return { position: entered, actions: [{ type: 'set_position', position: entered }] };
    }
    case 'act':
      // Without a pinned definition (no issue-type route) there is nothing to act on: the ticket blocks.
      if (definition === NO_DEFINITION) return { position, actions: [{ type: 'block', code: 'missing_workflow_route', message: env.unrouted ?? 'no workflow definition is pinned' }] };
      return act(definition, state, env);
    case 'conflict':
      return { position, actions: [{ type: 'block', code: 'conflicting_evidence', message: `conflicting provider evidence: ${event.reason}` }] };
    case 'station_returned':
      return stationReturned(definition, state, event, env);
    case 'station_failed':
      return stationFailed(state, event);
    case 'command':
      return commandAt(definition, state, env, event.command, event.by, event.delivery_identity);
    case 'yolo':
      return yoloSwitched(definition, state, event.enabled, env);
    case 'yolo_at_start':
      return yoloAtStart(state, event);
    case 'retry':
      return retry(definition, state, event, env);
    case 'corrected':
      return corrected(state, event, env);
    case 'draft_edit':
      return draftEdit(definition, state, event);
    case 'migrated': {
      const migrated = migratedPosition(position, event);
      return { position: migrated, actions: [{ type: 'set_position', position: migrated }] };
    }
    case 'ci_skips':
      return ciSkips(position, event.skip, event.match);
    case 'ci_recheck':
      return ciRecheck(definition, state, event.via, env);
    case 'rebase':
      return rebaseRequested(definition, state, event, env);
    case 'resumed':
      return resumed(definition, state, env);
    case 'stop':
      return stopped(state, event, env);
  }
}

/**
 * One decision. `ticketKey` names the ticket in the writes the step asks for. The returned state is the one after
 * every action succeeded; a required write that fails ends the step where the ticket stood (the driver blocks it).
 */
export function step(definition: WorkflowDefinition, state: StepState, event: StepEvent, env: StepEnv): StepResult {
  const moved = decideEvent(definition, state, event, env);
  const actions = closed(state.position, moved);
  return { state: stateAfter(state, moved.position, actions), actions };
}

/** service:retry at a review-response gate names its label write apart from the resume's (histories from before shared one). */
export const REVIEW_RETRY_OWN_LABELS_PATCH = 'review-retry-own-labels';

/**
 * service:retry as the position reads it (the parser chose the mode): an unblocked gate regenerates (the gate's
 * `retry` outcome), a review-response gate goes back to the review it answered (its `retry_to`), and a block is left
 * and the ticket resumes where it stood (the follow-up `resumed` decides whether an escalation goes back to its node).
 * The label is a request: it is taken off each time.
 */
function retry(definition: WorkflowDefinition, state: StepState, event: Extract<StepEvent, { type: 'retry' }>, env: StepEnv): Moved {
  const { position } = state;
  const { ticketKey } = env;
  switch (event.command.mode) {
    case 'regenerate':
      return {
        position,
        actions: [
          labelsEffect(state, ticketKey, `${event.request_name}_retry_label`, position.node, [], [RETRY_LABEL]),
          { type: 'then', event: { type: 'command', command: event.command, by: event.by, delivery_identity: event.delivery_identity } },
        ],
      };
    case 'review_response': {
      const back = reviewRetryPosition(definition, position);
      // A write of its own: under the resume's name, a block at the review gate's new visit resumed by service:retry
      // would plan this key again, the journal would adopt this write, and service:blocked would stay on the ticket.
      const name = env.patched(REVIEW_RETRY_OWN_LABELS_PATCH) ? `review_retry_${state.retry_count}_labels` : `retry_${state.retry_count}_labels`;
      return {
        position: back,
        actions: [
          { type: 'back_to_review', position: back },
          {
            type: 'record', kind: 'transition', status: 'resumed', summary: `${RETRY_LABEL}: review state cleared, back to ${back.node}`,
            details: { delivery_identity: event.delivery_identity, force_fresh_invoke: true },
          },
          { type: 'effect', name, node: back.node, visit: visitOf(back), operation: { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [RETRY_LABEL] }, required: false },
        ],
      };
    }
    case 'resume': {
      // SPEC 3.2: a retry starts the CI fix attempts again.
      const resumed: Position = { ...position, ci_fix_attempts: 0 };
      return {
        position: resumed,
        actions: [
          // The reset first: leaving the block publishes the ticket's details, which show the CI fix attempts.
          { type: 'set_position', position: resumed },
          { type: 'leave_block', by: 'retry', delivery_identity: event.delivery_identity },
          labelsEffect(state, ticketKey, `retry_${state.retry_count}_labels`, position.node, [], [RETRY_LABEL, BLOCKED_LABEL]),
          { type: 'then', event: { type: 'resumed' } },
        ],
      };
    }
  }
}

/** service:retry at a review-response gate: the contested review state is cleared and the ticket is at the review gate. */
export function reviewRetryPosition(definition: WorkflowDefinition, position: Position): Position {
  const here = definition.nodes[position.node];
  const target = reviewRetryTarget(here?.kind === 'gate' ? here : undefined);
  return { ...position, node: target, paused: false, visits: { ...position.visits, [target]: (position.visits[target] ?? 0) + 1 } };
}

/**
 * What a run without a pinned definition (a route error) decides on: no node, so commands change only switches and
 * are deferred; the driver blocks the ticket before it would act.
 */
export const NO_DEFINITION: WorkflowDefinition = { apiVersion: 'service/v1', name: 'none', revision: 0, entry: '', nodes: {} };
