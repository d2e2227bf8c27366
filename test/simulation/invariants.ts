import type { Command } from '../../workflows/person-commands/command-types';
import { RETURN_TARGET, type GateNode, type WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import { ESCALATE_NODE } from '../../workflows/runtime/enter';
import { reviewRetryTarget, stationTraits } from '../../workflows/runtime/node-traits';
import { rebaseNodeOf } from '../../workflows/runtime/rebase-decision';
import type { Action, Position, StepEvent, StepResult, StepState, Transition } from '../../workflows/runtime/step-types';
import { STAGE_LABEL } from '../../workflows/vocabulary/labels';

/**
 * What must hold after every decision of the step function (workflows/runtime/step.ts), whatever the seed. Each
 * invariant is a small function of one step as the driver model carried it out; it returns what broke, or undefined.
 * They read the definition's data and the driver's state, never the step's own helpers (gateCommandEffect,
 * mergeProgress, resolveOutcome), so a wrong helper cannot vouch for itself.
 */

/** An effect identity as the journal keys it (`<ticket>:<run>:<node>:<visit>:<name>`), and how it was first planned. */
export interface PlannedEffect {
  operation: string;
  /** The ticket's own count of entries into the node when the identity was first planned. */
  entry: number;
  step: number;
}

/** One step as the driver model carried it out. */
export interface StepCheck {
  step: number;
  definition: WorkflowDefinition;
  /** The nodes from which the graph reaches a gate or an end (liveNodes). */
  live: ReadonlySet<string>;
  event: StepEvent;
  /** What the driver handed to step. */
  before: StepState;
  result: StepResult;
  /** How many of the actions the driver carried out (a required write that fails ends the step: the driver blocks). */
  performed: number;
  /** Where the driver stands once it carried them out (read back with positionOf, as the next step will see it). */
  after: Position;
  /** Whether the driver is blocked once it carried them out (a block action, or a required write that failed). */
  blockedAfter: boolean;
  /** The model's own count of entries into each node before the step, from the `enter` actions it carried out. */
  entries: Readonly<Record<string, number>>;
  /** The ticket's labels after the step, as the tracker.labels writes left them (starting from none). */
  labels: ReadonlySet<string>;
  /** Every effect identity planned so far in this ticket's run; the check adds this step's. */
  planned: Map<string, PlannedEffect>;
  effectKey: (node: string, visit: number, name: string) => string;
  /** The repositories the router sent the ticket down since the planning station last returned. */
  walk: RouterWalk;
  /** The model's own record of the detours under way (question, rebase), innermost last: where each `$return` leads. */
  detours: readonly string[];
}

export interface RouterWalk {
  routed: string[];
  /** How often the rebase detour came back to the router during this walk. */
  detours: number;
}

export interface Invariant {
  name: string;
  check: (c: StepCheck) => string | undefined;
}

/** The stage labels that say what the ticket waits for: a ticket carries at most one (REFERENCE "Tracker conventions"). */
export const PENDING_LABELS: ReadonlySet<string> = new Set(Object.entries(STAGE_LABEL).filter(([key]) => key.endsWith('Pending')).map(([, label]) => label));

/** The outcome a command means at a gate, as REFERENCE "Commands" says it (kept apart from gateCommandEffect on purpose). */
const OUTCOME_OF_COMMAND: Readonly<Partial<Record<Command['type'], string>>> = {
  approve: 'approved', feedback: 'feedback', question: 'question', select_option: 'option_selected', retriage: 'retriage',
  review_approved: 'review_approved', review_changes_requested: 'changes_requested', ci_completed: 'ci_event', pr_synchronized: 'ci_event',
  pr_merged: 'merged', pr_closed: 'closed',
};

export function commandOutcome(command: Command): string | undefined {
  if (command.type === 'retry') return command.mode === 'regenerate' ? 'regenerate' : undefined;
  return OUTCOME_OF_COMMAND[command.type];
}

/** Provider facts that will not be delivered again: the parser lets them through while blocked (command-meaning.ts). */
export function isFinalProviderFact(event: StepEvent): boolean {
  return event.type === 'command' && (event.command.type === 'pr_merged' || event.command.type === 'pr_closed');
}

function types(actions: readonly Action[]): string {
  return actions.map((action) => (action.type === 'effect' ? `effect ${action.name}` : action.type)).join(', ');
}

/** Pull requests of the ticket not yet in any of `lists`; undefined when there is none at all (nothing to wait for is not "all"). */
function notAccepted(state: StepState, lists: ReadonlyArray<readonly string[]>): string[] | undefined {
  if (state.pull_requests.length === 0) return undefined;
  return state.pull_requests.filter((ref) => !lists.some((list) => list.includes(ref)));
}

function everyPullRequestIn(state: StepState, lists: ReadonlyArray<readonly string[]>): boolean {
  const waiting = notAccepted(state, lists);
  return waiting !== undefined && waiting.length === 0;
}

/**
 * Nodes from which the graph lets a ticket reach a gate or an end. `$return` leads back to whoever sent the ticket:
 * the nodes whose outcomes lead here (the question detour) and, for the rebase node (entered by `/service rebase`
 * from anywhere, never by an outcome), every node that leads anywhere. A bounded station can also escalate.
 */
export function liveNodes(definition: WorkflowDefinition): Set<string> {
  const names = Object.keys(definition.nodes).sort();
  const successors = new Map<string, Set<string>>(names.map((name) => [name, new Set<string>()]));
  const senders = (target: string): string[] => {
    const spec = definition.nodes[target];
    const rebaseDetour = spec?.kind === 'station' && stationTraits(spec).takes_rebase_target;
    return names.filter((name) => {
      const node = definition.nodes[name]!;
      if (node.kind === 'end') return false;
      return rebaseDetour || Object.values(node.on).includes(target);
    });
  };
  for (const name of names) {
    const node = definition.nodes[name]!;
    if (node.kind === 'end') continue;
    for (const target of Object.values(node.on)) {
      for (const next of target === RETURN_TARGET ? senders(name) : [target]) successors.get(name)!.add(next);
    }
    if (node.kind === 'station' && node.retry_bound !== undefined) successors.get(name)!.add(node.on_exhausted ?? ESCALATE_NODE);
  }
  const live = new Set(names.filter((name) => ['gate', 'end'].includes(definition.nodes[name]!.kind)));
  for (let grew = true; grew;) {
    grew = false;
    for (const name of names) {
      if (live.has(name)) continue;
      if ([...successors.get(name)!].some((next) => live.has(next))) {
        live.add(name);
        grew = true;
      }
    }
  }
  return live;
}

/** The positions the actions carry, in order, each with the action that carries it. */
function carriedPositions(actions: readonly Action[]): Array<{ action: Action; position: Position }> {
  const carried: Array<{ action: Action; position: Position }> = [];
  for (const action of actions) {
    if (action.type === 'enter' || action.type === 'wait' || action.type === 'set_position' || action.type === 'back_to_review') carried.push({ action, position: action.position });
  }
  return carried;
}

// ---------------------------------------------------------------------------------------------------------------
// The invariants.

/** At most one pending stage label stands on the ticket: entering a gate replaces the others (openGate). */
export function atMostOneStageLabel(c: StepCheck): string | undefined {
  const pending = [...c.labels].filter((label) => PENDING_LABELS.has(label)).sort();
  return pending.length > 1 ? `the ticket carries ${pending.length} stage labels: ${pending.join(', ')}` : undefined;
}

/**
 * One logical write, one identity: the journal keys a write by node, visit and name (the name carries the retry
 * episode where one node visit can ask twice, e.g. `stop_<retry_count>_label`). Two plans under one key must be the
 * same write (the journal runs the first and adopts it for the second), and a key names the visit it is planned in,
 * so that a write of visit 2 is never taken for the write of visit 1 and silently skipped.
 */
export function effectIdentityIsOneLogicalAction(c: StepCheck): string | undefined {
  const entries: Record<string, number> = { ...c.entries };
  for (const action of c.result.actions) {
    if (action.type === 'enter') entries[action.transition.to] = (entries[action.transition.to] ?? 0) + 1;
    // service:retry back to the review a review-response gate answered enters that gate anew.
    if (action.type === 'back_to_review') entries[action.position.node] = (entries[action.position.node] ?? 0) + 1;
    if (action.type !== 'effect') continue;
    const entry = entries[action.node] ?? 0;
    if (action.visit !== entry) {
      return `effect ${action.name} at ${action.node} is keyed by visit ${action.visit}, but the ticket is in its visit ${entry} of ${action.node}`;
    }
    const key = c.effectKey(action.node, action.visit, action.name);
    const operation = JSON.stringify(action.operation);
    const earlier = c.planned.get(key);
    if (!earlier) {
      c.planned.set(key, { operation, entry, step: c.step });
      continue;
    }
    if (earlier.operation !== operation) return `effect ${key} was planned at step ${earlier.step} as ${earlier.operation} and now as ${operation}`;
    if (earlier.entry !== entry) return `effect ${key} was planned by visit ${earlier.entry} of ${action.node} (step ${earlier.step}) and again by visit ${entry}`;
  }
  return undefined;
}

/** Why a transition out of `gate` is allowed for this event, or what is wrong with it. */
function gateTriggerProblem(c: StepCheck, gate: GateNode, transition: Transition): string | undefined {
  const { event, before } = c;
  const outcome = transition.outcome;
  if (event.type === 'rebase') return outcome === 'rebase_requested' ? undefined : `a rebase left the gate with outcome ${outcome}`;
  if (gate.on[outcome] === undefined) return `${outcome} is not an outcome ${transition.from} maps`;
  const paused = before.position.paused && !before.blocked;
  switch (event.type) {
    case 'command': {
      const meant = commandOutcome(event.command);
      if (meant !== outcome) return `the command ${event.command.type} means ${meant ?? 'nothing that moves a gate'}, not ${outcome}`;
      if ((outcome === 'merged' || outcome === 'review_approved') && !everyPullRequestIn(before, [before.merged_pull_requests, before.approved_pull_requests])) {
        return `${outcome} while pull requests are still open: ${(notAccepted(before, [before.merged_pull_requests, before.approved_pull_requests]) ?? ['(the ticket has none)']).join(', ')}`;
      }
      return undefined;
    }
    case 'yolo':
      if (event.enabled && outcome === 'approved' && gate.auto_approve_in_yolo && paused) return undefined;
      return `service:yolo ${event.enabled ? 'on' : 'off'} passed it with ${outcome} (auto_approve_in_yolo: ${gate.auto_approve_in_yolo ?? false}, waiting: ${paused})`;
    case 'act':
      if (before.blocked) return 'a blocked gate passed by acting';
      if (outcome === 'merged' && everyPullRequestIn(before, [before.merged_pull_requests])) return undefined;
      if (outcome === 'approved' && before.position.yolo && gate.auto_approve_in_yolo) return undefined;
      return `acting at the gate passed it with ${outcome}, without yolo or the merge of every pull request`;
    case 'ci_recheck':
      return outcome === 'ci_event' && paused ? undefined : `a CI recheck passed it with ${outcome} (waiting: ${paused})`;
    case 'resumed':
      // Yolo switched on while the ticket was blocked approves the gate once service:retry lifts the block.
      if (outcome === 'approved' && paused && before.position.yolo && gate.auto_approve_in_yolo) return undefined;
      return `service:retry passed it with ${outcome} (yolo: ${before.position.yolo}, auto_approve_in_yolo: ${gate.auto_approve_in_yolo ?? false}, waiting: ${paused})`;
    default:
      return `${event.type} never passes a gate`;
  }
}

/**
 * The detours under way after `transition`: a question at a gate and `/service rebase` anywhere start one from where
 * the ticket stood; an outcome that leads to `$return` ends the innermost. The model keeps this apart from the step's
 * `return_to`, so that a detour that comes back elsewhere is seen.
 */
export function followDetours(detours: string[], definition: WorkflowDefinition, transition: Transition): void {
  const spec = definition.nodes[transition.from];
  if (transition.outcome === 'rebase_requested' || (transition.outcome === 'question' && spec?.kind === 'gate')) {
    detours.push(transition.from);
  } else if (spec && spec.kind !== 'end' && spec.on[transition.outcome] === RETURN_TARGET) {
    detours.pop();
  }
}

/** Where the definition sends `outcome` from `from` (the exhaustion node when a bound ran out), or why it cannot. */
function expectedTarget(c: StepCheck, detours: readonly string[], transition: Transition): string {
  const { event, definition } = c;
  if (event.type === 'rebase') return rebaseNodeOf(definition) ?? '(no rebase node)';
  const spec = definition.nodes[transition.from];
  if (event.type === 'resumed' && spec?.kind === 'end') return c.before.position.resume_at ?? '(no resume_at)';
  const target = spec && spec.kind !== 'end' ? spec.on[transition.outcome] : undefined;
  const resolved = target === RETURN_TARGET ? detours.at(-1) ?? '(no detour under way)' : target ?? '(unmapped)';
  const bounded = definition.nodes[resolved];
  if (transition.exhausted && bounded?.kind === 'station') return bounded.on_exhausted ?? ESCALATE_NODE;
  return resolved;
}

/** Why a transition out of a node that is not a gate is allowed for this event, or what is wrong with it. */
function moveCauseProblem(c: StepCheck, transition: Transition): string | undefined {
  const { event, definition } = c;
  const spec = definition.nodes[transition.from];
  if (event.type === 'rebase') return transition.outcome === 'rebase_requested' ? undefined : `a rebase left ${transition.from} with ${transition.outcome}`;
  switch (spec?.kind) {
    case 'station':
      if (event.type === 'station_returned' && event.node === transition.from && event.outcome === transition.outcome) return undefined;
      return `station ${transition.from} left with ${transition.outcome} on ${event.type}${event.type === 'station_returned' ? ` of ${event.node} (${event.outcome})` : ''}`;
    case 'router':
      return event.type === 'act' ? undefined : `router ${transition.from} decided on ${event.type}`;
    case 'end':
      return event.type === 'resumed' && transition.outcome === 'retry' ? undefined : `end ${transition.from} left with ${transition.outcome} on ${event.type}`;
    default:
      return `${transition.from} is not a node of the definition`;
  }
}

/** One `enter` of a step, with where the ticket stood and the detours under way just before it. */
interface Move {
  transition: Transition;
  entered: string;
  detours: readonly string[];
}

/** The step's moves in order, or what is wrong with how the position changes (only `enter` changes the node). */
function movesOf(c: StepCheck): { moves: Move[]; problem?: string } {
  const moves: Move[] = [];
  let carried = c.before.position;
  const detours = [...c.detours];
  for (const { action, position } of carriedPositions(c.result.actions)) {
    if (action.type === 'back_to_review') {
      // Only service:retry at a review-response gate goes back, and only to the review the gate names (`retry_to`).
      const here = c.definition.nodes[carried.node];
      const asked = c.event.type === 'retry' && c.event.command.mode === 'review_response';
      if (!asked || here?.kind !== 'gate' || position.node !== reviewRetryTarget(here)) {
        return { moves, problem: `back_to_review moved the ticket from ${carried.node} to ${position.node} on ${c.event.type}` };
      }
      carried = position;
      continue;
    }
    if (action.type !== 'enter') {
      // Only a new run's start (to the entry node) and an operator's migration (to the mapped node) place the ticket.
      const placed = (c.event.type === 'start' && position.node === c.definition.entry) || (c.event.type === 'migrated' && position.node === c.event.target_node);
      if (position.node !== carried.node && !placed) return { moves, problem: `${action.type} moved the ticket from ${carried.node} to ${position.node} without entering it` };
      carried = position;
      continue;
    }
    const { transition } = action;
    if (transition.from !== carried.node) return { moves, problem: `the transition starts at ${transition.from}, but the ticket stood at ${carried.node}` };
    moves.push({ transition, entered: position.node, detours: [...detours] });
    followDetours(detours, c.definition, transition);
    carried = position;
  }
  return { moves };
}

function targetProblem(c: StepCheck, move: Move): string | undefined {
  const { transition } = move;
  const expected = expectedTarget(c, move.detours, transition);
  if (transition.to === expected && move.entered === expected) return undefined;
  return `${transition.from} → ${transition.to} (${transition.outcome}) entered ${move.entered}, but the definition leads to ${expected}`;
}

/**
 * No gate is passed without its trigger: leaving a gate needs an event the gate accepts (a command meaning an outcome
 * it maps; every pull request merged or approved for `merged`/`review_approved`; yolo where auto_approve_in_yolo; a
 * CI recheck at a waiting CI gate; the rebase detour), never `act` alone unless yolo or the merge of every pull
 * request applies; and the ticket goes where the gate's outcome leads.
 */
export function gatesPassOnlyOnTheirTriggers(c: StepCheck): string | undefined {
  for (const move of movesOf(c).moves) {
    const spec = c.definition.nodes[move.transition.from];
    if (spec?.kind !== 'gate') continue;
    const problem = gateTriggerProblem(c, spec, move.transition) ?? targetProblem(c, move);
    if (problem) return `${move.transition.from} → ${move.transition.to} (${move.transition.outcome}): ${problem}`;
  }
  return undefined;
}

/**
 * Every other move has its cause and its target: the node changes only by `enter`; a station is left by its own
 * result, a router by acting, an end by service:retry after an escalation, any node by the rebase detour; the ticket
 * goes where the definition leads (a `$return` back to where the innermost detour started, kept by the model apart
 * from the step's `return_to`).
 */
export function everyMoveHasItsCause(c: StepCheck): string | undefined {
  const { moves, problem } = movesOf(c);
  if (problem) return problem;
  for (const move of moves) {
    if (c.definition.nodes[move.transition.from]?.kind === 'gate') continue;
    const wrong = moveCauseProblem(c, move.transition) ?? targetProblem(c, move);
    if (wrong) return `${move.transition.from} → ${move.transition.to} (${move.transition.outcome}): ${wrong}`;
  }
  return undefined;
}

/**
 * A blocked ticket plans nothing until service:retry resumes it (the driver leaves the block first, then sends
 * `resumed`): no station, no wait, no approval, no completion, no write but labels (the kill switch takes its label
 * off). That holds from the moment the step blocks too: nothing after a `block` action may run (the driver carries the
 * rest out blocked). Refined: a merge or a close is a provider fact that will not come again, so the parser lets it
 * through while blocked (workflows/person-commands/command-meaning.ts, `while_blocked`) and a gate that maps it is passed
 * (otherwise the merge would be lost: service:retry resumes a paused gate without reopening it). The ticket then
 * stands blocked at the node the fact leads to; nothing runs there until service:retry. A completed ticket plans
 * nothing at all, and `complete` is the last thing a step plans.
 */
export function blockedOrEndedTicketPlansNothing(c: StepCheck): string | undefined {
  const { actions } = c.result;
  if (c.before.ended && actions.length > 0) return `the ticket had completed, yet step planned ${types(actions)}`;
  const completeAt = actions.findIndex((action) => action.type === 'complete');
  if (completeAt >= 0 && completeAt !== actions.length - 1) return `step planned ${types(actions.slice(completeAt + 1))} after complete`;
  let blocked = c.before.blocked;
  const where = () => (c.before.blocked ? `blocked at ${c.before.position.node}` : `after blocking at ${c.before.position.node}`);
  for (const action of actions) {
    if (action.type === 'block') blocked = true;
    // service:retry (or a corrected command) leaves the block before anything else runs.
    if (action.type === 'leave_block') blocked = false;
    if (!blocked) continue;
    if (action.type === 'run_station' || action.type === 'complete' || action.type === 'wait' || action.type === 'approve_artifact' || action.type === 'edit_draft' || action.type === 'then') {
      return `${where()}, step planned ${action.type} (${types(actions)})`;
    }
    if (action.type === 'effect' && action.operation.kind !== 'tracker.labels') return `${where()}, step planned the write ${action.name} (${action.operation.kind})`;
    if (action.type === 'enter' && !(c.before.blocked && isFinalProviderFact(c.event))) {
      return `${where()}, step entered ${action.transition.to} on ${c.event.type}${c.event.type === 'command' ? ` ${c.event.command.type}` : ''}`;
    }
  }
  return undefined;
}

function samePosition(a: Position, b: Position): boolean {
  const canonical = (position: Position) => JSON.stringify(Object.entries(position).sort(([x], [y]) => x.localeCompare(y)).map(([key, value]) => [
    key, value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value).sort(([x], [y]) => x.localeCompare(y)) : value,
  ]));
  return canonical(a) === canonical(b);
}

/**
 * The position is always one the definition has: its node exists, it pauses only at a gate, visits never go down
 * (they name the writes of each visit), and once every action was carried out the driver stands where the step's
 * returned state says (every change of the position is carried by an action: step-types.ts StepResult).
 */
export function positionIsSane(c: StepCheck): string | undefined {
  const positions = [...carriedPositions(c.result.actions).map(({ action, position }) => ({ what: action.type, position })), { what: 'the driver', position: c.after }];
  for (const { what, position } of positions) {
    const spec = c.definition.nodes[position.node];
    if (!spec) return `${what} puts the ticket at ${position.node}, which is not a node of ${c.definition.name}`;
    if (position.paused && spec.kind !== 'gate') return `${what} pauses the ticket at ${position.node}, a ${spec.kind}`;
  }
  for (const [node, count] of Object.entries(c.before.position.visits)) {
    const now = c.after.visits[node];
    if (now === undefined || now < count) return `visits of ${node} went from ${count} to ${now ?? 'nothing'}`;
  }
  if (c.performed === c.result.actions.length && !samePosition(c.after, c.result.state.position)) {
    return `the actions left the driver at ${JSON.stringify(c.after)}, but step says ${JSON.stringify(c.result.state.position)}`;
  }
  return undefined;
}

/** The stations whose output plans the repositories a router walks, in the order the router reads them (REFERENCE). */
export const PLANNING_STATIONS: readonly string[] = ['provision_tasks', 'decompose_plan', 'generate_plan'];

export function plannedRepositories(outputs: Readonly<Record<string, unknown>>): string[] {
  for (const station of PLANNING_STATIONS) {
    const planned = (outputs[station] as { repositories?: unknown } | undefined)?.repositories;
    if (Array.isArray(planned)) return planned.filter((repository): repository is string => typeof repository === 'string');
  }
  return [];
}

function routedRepository(action: Extract<Action, { type: 'set_output' }>): string | null {
  const repository = action.data.repository;
  return typeof repository === 'string' ? repository : null;
}

/**
 * A router sends the ticket down every repository the planning station planned, each once and in order, and only
 * then on (`done`): a repository it skips is a change the ticket never makes, and the ticket completes without it.
 */
export function routerWalksEveryPlannedRepository(c: StepCheck): string | undefined {
  for (const action of c.result.actions) {
    if (action.type !== 'set_output' || c.definition.nodes[c.before.position.node]?.kind !== 'router') continue;
    const planned = plannedRepositories(c.before.outputs);
    const expected = planned[c.walk.routed.length] ?? null;
    const decided = routedRepository(action);
    if (decided !== expected) {
      return `the router chose ${decided ?? 'done'} after routing [${c.walk.routed.join(', ')}] of the planned [${planned.join(', ')}]; next is ${expected ?? 'done'}`;
    }
  }
  return undefined;
}

function waitsUnderYolo(definition: WorkflowDefinition, blocked: boolean, position: Position): boolean {
  const spec = definition.nodes[position.node];
  return spec?.kind === 'gate' && spec.auto_approve_in_yolo === true && position.yolo && position.paused && !blocked;
}

/**
 * Under yolo a gate marked auto_approve_in_yolo approves itself: no step leaves the ticket waiting at one it may
 * pass. Refined: the driver can leave it there on its own (a corrected command that edits a draft in place lifts an
 * unknown command's block at such a gate, no step involved); a step that merely finds it so is not to blame, but
 * `resumed` and yolo switched on must pass it.
 */
export function yoloGatesDoNotWait(c: StepCheck): string | undefined {
  if (!waitsUnderYolo(c.definition, c.blockedAfter, c.after)) return undefined;
  // A step with a follow-up (service:retry's `resumed`) is not done: the follow-up must pass the gate.
  if (c.result.actions.at(-1)?.type === 'then') return undefined;
  const mustPass = c.event.type === 'resumed' || (c.event.type === 'yolo' && c.event.enabled);
  if (!mustPass && waitsUnderYolo(c.definition, c.before.blocked, c.before.position)) return undefined;
  return `after ${c.event.type} the ticket waits at ${c.after.node} with yolo on, not blocked, though the gate approves itself under yolo`;
}

/**
 * A station run is the last thing a step plans: the driver awaits the station inside the action and decides its end
 * as the next step, so anything planned after it would run after the station moved the ticket on.
 */
export function aStationRunEndsTheStep(c: StepCheck): string | undefined {
  const at = c.result.actions.findIndex((action) => action.type === 'run_station');
  return at >= 0 && at !== c.result.actions.length - 1 ? `step planned ${types(c.result.actions.slice(at + 1))} after run_station` : undefined;
}

/** From where the ticket stands the graph still reaches a gate or an end (computed once per definition). */
export function ticketCanStillReachAGateOrEnd(c: StepCheck): string | undefined {
  return c.live.has(c.after.node) ? undefined : `the ticket stands at ${c.after.node}, from which no gate and no end can be reached`;
}

/**
 * A retry bound counts the times a station is sent to again, not the times a detour comes back to it: returning from
 * a `/service rebase` (`$return`) never runs a bound out, or rebases alone would escalate a ticket.
 */
export function detourReturnsDoNotEscalate(c: StepCheck): string | undefined {
  for (const action of c.result.actions) {
    if (action.type !== 'enter' || !action.transition.exhausted) continue;
    const from = c.definition.nodes[action.transition.from];
    if (from && from.kind !== 'end' && from.on[action.transition.outcome] === RETURN_TARGET) {
      return `returning from ${action.transition.from} to ${action.transition.exhausted.node} ran its retry bound out`;
    }
  }
  return undefined;
}

/**
 * A bound that runs out blocks the ticket with the bounded node's `exhausted_code` where it names one (`ci_fix_limit`,
 * which the alerts watch), not with the escalation end's generic code.
 */
export function exhaustedBoundsBlockWithTheirCode(c: StepCheck): string | undefined {
  const block = c.result.actions.find((action) => action.type === 'block');
  const resumeAt = c.before.position.resume_at;
  const bounded = resumeAt ? c.definition.nodes[resumeAt] : undefined;
  if (block?.type !== 'block' || c.definition.nodes[c.before.position.node]?.kind !== 'end' || bounded?.kind !== 'station' || !bounded.exhausted_code) return undefined;
  return block.code === bounded.exhausted_code ? undefined : `${resumeAt} ran out of attempts and the ticket blocked with ${block.code}, not its ${bounded.exhausted_code}`;
}

/**
 * `step` says what the state is once its actions are carried out (step-types.ts `StepResult.state`). Where the
 * driver carried out all of them, it must stand exactly there: the same position, blocked when step says so, and
 * the routers' decisions in `outputs`. (A required write that failed stops the actions short; then the driver's
 * block is the state.)
 */
function stepStateIsTheDriversState(check: StepCheck): string | undefined {
  if (check.performed < check.result.actions.length) return undefined;
  const said = check.result.state;
  if (JSON.stringify(said.position) !== JSON.stringify(check.after)) {
    return `step said the position would be ${JSON.stringify(said.position)}, the driver stands at ${JSON.stringify(check.after)}`;
  }
  if (said.blocked !== check.blockedAfter) return `step said blocked: ${said.blocked}, the driver is ${check.blockedAfter ? '' : 'not '}blocked`;
  for (const action of check.result.actions) {
    if (action.type === 'set_output' && JSON.stringify(said.outputs[action.key]) !== JSON.stringify(action.data)) return `step's outputs miss the router decision ${action.key}`;
  }
  return undefined;
}

export const INVARIANTS: readonly Invariant[] = [
  { name: 'at most one stage label', check: atMostOneStageLabel },
  { name: 'one logical write per effect identity', check: effectIdentityIsOneLogicalAction },
  { name: 'no gate passed without its trigger', check: gatesPassOnlyOnTheirTriggers },
  { name: 'every move has its cause and its target', check: everyMoveHasItsCause },
  { name: 'a blocked or ended ticket plans nothing', check: blockedOrEndedTicketPlansNothing },
  { name: 'position sanity', check: positionIsSane },
  { name: 'liveness', check: ticketCanStillReachAGateOrEnd },
  { name: 'a router walks every planned repository', check: routerWalksEveryPlannedRepository },
  { name: 'yolo gates do not wait', check: yoloGatesDoNotWait },
  { name: 'a station run ends the step', check: aStationRunEndsTheStep },
  { name: 'a detour\'s return does not escalate', check: detourReturnsDoNotEscalate },
  { name: 'an exhausted bound blocks with its own code', check: exhaustedBoundsBlockWithTheirCode },
  { name: 'the state step returns is the state the driver reaches', check: stepStateIsTheDriversState },
];

/**
 * Bugs the simulation found and this change does not fix (see the report of the change that added them): a broken
 * invariant that matches one exactly is counted as `known bug: <id>` instead of failing the seed, so the simulation
 * keeps guarding everything else. Each matcher is as narrow as the bug; remove the entry with the fix.
 */
export interface KnownBug {
  id: string;
  invariant: string;
  matches: (c: StepCheck) => boolean;
}

export const KNOWN_BUGS: readonly KnownBug[] = [];
