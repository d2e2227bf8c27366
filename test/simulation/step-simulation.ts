import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_DEFINITIONS } from '../../workflows/built-in-definitions';
import { pinDefinition } from '../../src/definition-rules/definition-digest';
import { applyMigration, decideMigration } from '../../workflows/registry/migration-compatibility';
import { acceptTable, commandsAcceptedHere, type GateNode, type WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import { parseCommand, type Command } from '../../workflows/person-commands/command-parser';
import { draftIdsAtGate } from '../../workflows/person-commands/draft-gate';
import { noteProposalEvent, noteProposalOpened, proposalPosition } from '../../workflows/person-commands/proposal-review';
import { gateTable, type GateTraits } from '../../workflows/runtime/node-traits';
import { actorIdsOf } from '../../workflows/person-commands/trusted-actors';
import { effectKey } from '../../workflows/effects/effect-journal';
import type { EffectOperation } from '../../workflows/effects/effect-types';
import type { Observation, WorkflowKind } from '../../workflows/ledger/observation';
import { rememberPullRequest } from '../../workflows/read-model/ticket-search-attributes';
import {
  blockedComment, blockPersistsComment, blockReport, clearReviewResponseState, enterBlocked, leaveBlocked, nextBlockRecord, type BlockingCode,
} from '../../workflows/runtime/blocking';
import { stationTraits } from '../../workflows/runtime/node-traits';
import { holdInboxBehindQuestion } from '../../workflows/runtime/inbox-drain';
import { rcaOptionCount } from '../../workflows/runtime/routers';
import { isStopRequest } from '../../workflows/runtime/kill-switch';
import { noteAcceptedPullRequest } from '../../workflows/runtime/merge-progress';
import { applyPosition, positionOf, stepStateOf } from '../../workflows/runtime/position';
import { pullRequestRefOf } from '../../workflows/runtime/rebase-decision';
import { step } from '../../workflows/runtime/step';
import type { Action, StepEnv, StepEvent, StepResult } from '../../workflows/runtime/step-types';
import { initialRuntime, initialTicketState, type TicketState } from '../../workflows/runtime/ticket-state';
import { BLOCKED_LABEL, MANAGED_LABEL, RETRY_LABEL, STOP_LABEL, YOLO_LABEL } from '../../workflows/vocabulary/labels';
import { followDetours, INVARIANTS, KNOWN_BUGS, liveNodes, PLANNING_STATIONS, type PlannedEffect, type RouterWalk, type StepCheck } from './invariants';
import { Rng } from './prng';
import { openedPullRequestRef, proposalPullRequestRef, RECEIVED_AT, TICKET_KEY, TicketWorld, type Arrival, type StationEnd, type StationRun } from './ticket-world';

/**
 * A deterministic simulation of the ticket decider (workflows/runtime/step.ts), in the manner of FoundationDB's and
 * TigerBeetle's simulation testing: a seed drives a world of people, providers and stations (./ticket-world.ts)
 * around a model of the driver that carries out the step's actions, and the invariants (./invariants.ts) are checked
 * after every step. Everything is a function of the seed: no clock, no Math.random, no I/O, no unordered iteration,
 * so a failing seed replays exactly, with its trace.
 *
 * The driver model is a mirror of the real driver, rule by rule (each names the file it mirrors): the main loop of
 * workflows/ticket.ts, the action handling of workflows/runtime/ticket-driver.ts and the command intake of
 * workflows/runtime/intake.ts and its steps (intake-*.ts). Where the driver calls a pure helper (the command parser,
 * positionOf and applyPosition, enterBlocked and leaveBlocked, noteAcceptedPullRequest, rebaseDecision, ...) the model
 * calls the same one on a real TicketState. What it leaves out does not reach the step: replies, the timeline, metrics, search
 * attributes, budgets, the allowed-actor check (every actor is allowed here) and the management moment (every
 * delivery is made after the service took the ticket).
 */

export const REPLAY_COMMAND = 'npx vitest run test/unit/workflows/runtime/step-simulation.test.ts';
export const SEED_VARIABLE = 'STEP_SIMULATION_SEED';

/** The patched() of every run here: today's behaviour, every patch taken. */
const ENV: StepEnv = { ticketKey: TICKET_KEY, patched: () => true };
const NOW = RECEIVED_AT;
/** A ticket run that neither completes nor dead-ends within this many rounds of the driver's loop is left. */
const TICKS_PER_TICKET = 600;
/** service:retry at a blocked end with nothing to resume blocks again; after this many the world gives up on it. */
const DEAD_END_RETRIES = 3;

export interface SimulatedDefinition {
  kind: WorkflowKind;
  definition: WorkflowDefinition;
  /** The revision before (as earlier builds pinned it): some tickets start on it and are migrated while they wait. */
  earlier: WorkflowDefinition;
}

/** The revision before each built-in one, kept as a fixture (test/fixtures/definitions/). */
const EARLIER_REVISION_FILES: Readonly<Record<WorkflowKind, string>> = { feature: 'feature-r1.json', bug: 'bug-r2.json', task_takeover: 'task-takeover-r2.json' };

function earlierRevision(kind: WorkflowKind): WorkflowDefinition {
  return JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'definitions', EARLIER_REVISION_FILES[kind]), 'utf8')) as WorkflowDefinition;
}

/** Every built-in definition, in a fixed order, with the revision before it. */
export const SIMULATED_DEFINITIONS: readonly SimulatedDefinition[] = (Object.keys(BUILT_IN_DEFINITIONS) as WorkflowKind[])
  .sort()
  .map((kind) => ({ kind, definition: BUILT_IN_DEFINITIONS[kind], earlier: earlierRevision(kind) }));

/** Consecutive seeds walk the definitions in turn, so every definition gets its share of any run of seeds. */
export function definitionOfSeed(seed: number): SimulatedDefinition {
  return SIMULATED_DEFINITIONS[seed % SIMULATED_DEFINITIONS.length]!;
}

export type TraceEntry =
  | {
    kind: 'step'; step: number; ticket: number;
    /** Where the ticket stood when the driver called step. */
    at: string; blocked: boolean; paused: boolean;
    /** Why the driver called step (which rule of the driver). */
    via: string;
    event: StepEvent; actions: Action[];
    /** How many actions the driver carried out (a required write that fails ends the step). */
    performed: number;
  }
  | { kind: 'world'; step: number; ticket: number; text: string };

/** What a run explored: the test adds these up over every seed and fails when something was never reached. */
export interface Coverage {
  /** `<kind>/<node>` entered, and how often. */
  nodes: Map<string, number>;
  /** `<kind>/<gate>/<outcome>`: the gate was passed by that outcome, and how often. */
  gateOutcomes: Map<string, number>;
  /** Named happenings (blocks, stops, retries, yolo passes, rebases, crashes, ...) and how often. */
  happenings: Map<string, number>;
  steps: number;
}

export function emptyCoverage(): Coverage {
  return { nodes: new Map(), gateOutcomes: new Map(), happenings: new Map(), steps: 0 };
}

export function count(counts: Map<string, number>, name: string, by = 1): void {
  counts.set(name, (counts.get(name) ?? 0) + by);
}

export function addCoverage(into: Coverage, from: Coverage): void {
  for (const [node, n] of from.nodes) count(into.nodes, node, n);
  for (const [outcome, n] of from.gateOutcomes) count(into.gateOutcomes, outcome, n);
  for (const [name, n] of from.happenings) count(into.happenings, name, n);
  into.steps += from.steps;
}

export interface SimulationFailure {
  invariant: string;
  problem: string;
  step: number;
  /** Everything a person needs: the invariant, the seed, the step, the definition, the last events, the replay command. */
  message: string;
}

export interface SimulationResult {
  seed: number;
  definition: string;
  steps: number;
  tickets: number;
  trace: TraceEntry[];
  coverage: Coverage;
  failure?: SimulationFailure;
}

class InvariantViolation extends Error {
  constructor(readonly invariant: string, readonly problem: string, readonly step: number) {
    super(`${invariant}: ${problem}`);
  }
}

// -----------------------------------------------------------------------------------------------------------------
// The trace, as people read it.

function describeCommand(command: Command): string {
  switch (command.type) {
    case 'retry': return `retry (${command.mode})`;
    case 'yolo': return `yolo ${command.enabled ? 'on' : 'off'}`;
    case 'pr_merged': case 'pr_closed': case 'pr_synchronized': return `${command.type} ${command.pull_request.repository ?? ''}#${command.pull_request.number}`;
    default: return command.type;
  }
}

export function describeEvent(event: StepEvent): string {
  switch (event.type) {
    case 'station_returned': return `station_returned ${event.node} → ${event.outcome}${event.intents.length > 0 ? ` (writes: ${event.intents.map((i) => i.name).join(', ')})` : ''}`;
    case 'station_failed': return `station_failed ${event.node}: ${event.code}`;
    case 'command': return `command ${describeCommand(event.command)}`;
    case 'yolo': return `yolo ${event.enabled ? 'on' : 'off'}`;
    case 'ci_skips': return `ci_skips ${event.skip ? '+' : '-'}${event.match}`;
    case 'ci_recheck': return `ci_recheck via ${event.via}`;
    case 'rebase': return `rebase (${event.target ?? 'every pull request'})`;
    case 'retry': return `retry (${event.command.mode})`;
    case 'draft_edit': return `draft_edit ${event.command.type}`;
    case 'stop': return `stop by ${event.by}${event.cancelled ? ` cancelling ${event.cancelled}` : ''}`;
    default: return event.type;
  }
}

function describeAction(action: Action): string {
  switch (action.type) {
    case 'enter': return `enter ${action.transition.from}→${action.transition.to} (${action.transition.outcome}${action.transition.exhausted ? ', exhausted' : ''})`;
    case 'effect': return `effect ${action.name}@${action.node}#${action.visit}`;
    case 'run_station': return `run_station ${action.node}#${action.visit}`;
    case 'block': return `block ${action.code}`;
    case 'wait': return `wait ${action.node}`;
    default: return action.type;
  }
}

export function describeTraceEntry(entry: TraceEntry): string {
  if (entry.kind === 'world') return `      · ${entry.text}`;
  const where = `${entry.at}${entry.blocked ? ' [blocked]' : ''}${entry.paused ? ' [paused]' : ''}`;
  const actions = entry.actions.map(describeAction);
  const cut = entry.performed < entry.actions.length ? ` (the driver stopped after ${entry.performed})` : '';
  return `#${entry.step} t${entry.ticket} ${where}: ${entry.via} → ${describeEvent(entry.event)} ⇒ ${actions.join(', ') || '(nothing)'}${cut}`;
}

export function formatTrace(trace: readonly TraceEntry[]): string {
  return trace.map(describeTraceEntry).join('\n');
}

// -----------------------------------------------------------------------------------------------------------------
// The driver model.

interface Simulation {
  readonly seed: number;
  readonly subject: SimulatedDefinition;
  readonly trace: TraceEntry[];
  readonly coverage: Coverage;
  nextStep(): number;
  steps(): number;
}

/** The journal's record of one write (workflows/effects/effect-runner.ts runKeyedEffect): the first operation is the one written. */
interface JournalRecord {
  operation: EffectOperation;
  succeeded: boolean;
}

class TicketRun {
  readonly state: TicketState;
  /** The pinned definition: an operator's migration swaps it (`migrate`). */
  private definition!: WorkflowDefinition;
  private accepts!: Record<string, readonly string[]>;
  private gates!: Record<string, GateTraits>;
  private live!: ReadonlySet<string>;
  /** The ticket's labels as the service's own label writes left them. */
  private readonly labels = new Set<string>();
  private readonly journal = new Map<string, JournalRecord>();
  private readonly planned = new Map<string, PlannedEffect>();
  /** The model's own count of entries per node, kept from the `enter` actions carried out (not read from step). */
  private readonly entries: Record<string, number> = {};
  private walk: RouterWalk = { routed: [], detours: 0 };
  private readonly detours: string[] = [];
  /** The ledger's memory of delivery identities (workflows/ledger/record-observation.ts): a redelivery is dropped. */
  private readonly delivered = new Set<string>();
  private inbox: Arrival[] = [];
  private running: StationRun | undefined;
  private stopRequests: Arrival[] = [];
  private ticks = 0;
  private deadEndRetries = 0;
  over = false;

  constructor(private readonly sim: Simulation, readonly ticket: number, private readonly world: TicketWorld, pinned: WorkflowDefinition) {
    this.use(pinned);
    const input = { ticket_key: TICKET_KEY, project_key: 'ACME', issue_type: null, workflow_kind: sim.subject.kind };
    this.state = {
      ...initialTicketState(input, `run-${ticket}`, NOW), definition: pinDefinition(pinned), runtime: initialRuntime(NOW), artifacts: {}, outputs: {}, station_attempts: [],
    };
  }

  /** ticket-driver.ts `setDefinition`: the pinned definition and the tables read of it. */
  private use(definition: WorkflowDefinition): void {
    this.definition = definition;
    this.accepts = acceptTable(definition);
    this.gates = gateTable(definition);
    this.live = liveNodes(definition);
  }

  private get runtime() {
    return this.state.runtime!;
  }

  private get checkpoint() {
    return this.state.checkpoint;
  }

  private note(text: string): void {
    this.sim.trace.push({ kind: 'world', step: this.sim.steps(), ticket: this.ticket, text });
  }

  private happened(name: string): void {
    count(this.sim.coverage.happenings, name);
  }

  private entered(node: string): void {
    this.entries[node] = (this.entries[node] ?? 0) + 1;
    count(this.sim.coverage.nodes, `${this.sim.subject.kind}/${node}`);
  }

  private visit(): number {
    return this.runtime.visits[this.checkpoint.current_node] ?? 1;
  }

  /** workflows/ticket.ts: `canAct`. */
  private canAct(): boolean {
    return !this.checkpoint.is_blocked && !this.checkpoint.is_paused && this.runtime.ended === null;
  }

  /** ticket-driver.ts `begin` (not carried over): the ticket enters its definition's entry node; issue_created arrives. */
  begin(): void {
    this.decide({ type: 'start' }, 'start');
    this.state.status = 'running';
    this.state.waiting = null;
    this.entered(this.definition.entry);
    this.note(`ticket #${this.ticket} starts on ${this.definition.name} r${this.definition.revision}${this.world.proposals ? ' (proposal review on)' : ''}`);
    this.deliver(this.world.created(this.world.yoloAtStart()));
  }

  /** workflows/ticket.ts, the `observe` signal handler: the ledger decides, accepted ones queue, a stop also reaches a running station. */
  private deliver(arrival: Arrival): void {
    this.state.observations_received += 1;
    if (this.delivered.has(arrival.observation.delivery_identity)) {
      this.happened('ledger: redelivery dropped');
      this.note(`${arrival.note} (dropped by the ledger: seen before)`);
      return;
    }
    this.delivered.add(arrival.observation.delivery_identity);
    this.inbox.push(arrival);
    if (arrival.decision === 'accepted' && this.running && isStopRequest(arrival.observation)) this.stopRequests.push(arrival);
  }

  /** One round of the main loop of workflows/ticket.ts (stationRuntimeRun): the inbox, then act, or wait for deliveries. */
  tick(): void {
    this.ticks += 1;
    for (let next = this.inbox.shift(); next !== undefined; next = this.inbox.shift()) {
      if (next.decision === 'accepted') this.handleAccepted(next);
      else {
        this.happened('ledger: conflict');
        this.decide({ type: 'conflict', reason: next.note }, 'the ledger');
      }
      const remaining = this.inbox.map((arrival) => ({ observation: arrival.observation, decision: arrival.decision, reason: '' }));
      if (holdInboxBehindQuestion(this.canAct() && this.runtime.request?.kind === 'question', remaining)) break;
    }
    if (this.runtime.ended === 'completed' && this.inbox.length === 0) {
      this.happened('completed');
      this.note(`ticket #${this.ticket} completed at ${this.checkpoint.current_node}`);
      this.over = true;
      return;
    }
    if (this.canAct()) {
      this.act();
      return;
    }
    // Idle: the main loop waits for a command, and an operator's migration or a continue-as-new may come in.
    if (this.definition !== this.sim.subject.definition && this.world.migratesNow()) this.migrate();
    if (this.world.continuesAsNew()) this.continueAsNew();
    if (this.leftByTheWorld()) return;
    for (let n = this.world.arrivalsWhileWaiting(); n > 0; n -= 1) this.deliver(this.world.arrival(this.state));
  }

  /** The simulation's own end of a ticket that cannot go on: a blocked end with nothing to resume, or one that takes too long. */
  private leftByTheWorld(): boolean {
    const here = this.definition.nodes[this.checkpoint.current_node];
    if (here?.kind === 'end' && this.checkpoint.is_blocked && !this.runtime.resume_at) this.deadEndRetries += 1;
    if (this.deadEndRetries > DEAD_END_RETRIES) {
      this.happened('dead end left');
      this.note(`ticket #${this.ticket} left at ${this.checkpoint.current_node}: service:retry blocks it again, there is nothing to resume`);
    } else if (this.ticks > TICKS_PER_TICKET) {
      this.note(`ticket #${this.ticket} left at ${this.checkpoint.current_node} after ${this.ticks} rounds`);
    } else {
      return false;
    }
    this.over = true;
    return true;
  }

  /**
   * workflows/registry/migration-update.ts and workflows/ticket.ts `onApplied`: the operator asks for the current
   * revision with no mapping; an eligible run swaps its definition, and the step moves it (`migrated`).
   */
  private migrate(): void {
    const to = pinDefinition(this.sim.subject.definition);
    const { decision, analysis } = decideMigration(this.state, { to, mapping: {}, apply: true, requested_by: 'simulation' }, NOW);
    if (!decision.applied) {
      this.happened('migration refused');
      this.note(`migration to r${to.revision} refused at ${this.checkpoint.current_node}: ${decision.incompatibilities.join('; ')}`);
      return;
    }
    applyMigration(this.state, to, analysis);
    this.use(to.body);
    this.happened('migration applied');
    this.decide({ type: 'migrated', target_node: analysis.target_node, renames: analysis.renames }, `migration to r${to.revision}`);
  }

  /**
   * workflows/ticket.ts continue-as-new: the state goes into the next run as JSON and the driver starts on it
   * (`begin` with the state carried). Whatever the state held that JSON does not keep would be lost here.
   */
  private continueAsNew(): void {
    const before = JSON.stringify(stepStateOf(this.state));
    const carried = JSON.parse(JSON.stringify(this.state)) as TicketState;
    for (const key of Object.keys(this.state)) delete (this.state as unknown as Record<string, unknown>)[key];
    Object.assign(this.state, carried);
    const after = JSON.stringify(stepStateOf(this.state));
    if (after !== before) throw new InvariantViolation('continue-as-new carries the state', `the step state was ${before} and is ${after} in the new run`, this.sim.steps());
    this.happened('continue-as-new');
    this.note(`continued as new at ${this.checkpoint.current_node}`);
  }

  /** ticket-driver.ts `act`. */
  private act(): void {
    this.decide({ type: 'act' }, 'act');
  }

  /** station-runner.ts `runStation`: the activity's end becomes an event; a stop request that counts cancels it (kill-switch.ts runStoppable). */
  private runStation(run: StationRun): void {
    for (let n = this.world.arrivalsDuringStation(); n > 0; n -= 1) this.deliver(this.world.arrival(this.state));
    const stop = this.world.stopDuringStation();
    if (stop) this.deliver(stop);
    const end = this.world.stationEnd(run, this.state);
    const stoppedBy = this.stopRequests[0];
    this.stopRequests = [];
    this.running = undefined;
    if (stoppedBy && (!this.world.stationFinishedFirst() || end.type === 'error')) {
      this.happened('stop: station cancelled');
      return this.stopTicket(stoppedBy.observation, run.spec.station);
    }
    this.endStation(run, end);
  }

  private endStation(run: StationRun, end: StationEnd): void {
    const { node, spec } = run;
    switch (end.type) {
      case 'failure':
        this.happened('station failed');
        return this.decide({ type: 'station_failed', node, code: end.code, message: end.message, intents: end.intents }, `${spec.station} failed`);
      case 'invalid':
        this.happened('station failed');
        return this.decide({ type: 'station_failed', node, code: 'invalid_station_result', message: `${spec.station} returned an invalid result: ${end.message}`, intents: [] }, `${spec.station} was invalid`);
      case 'error':
        this.happened('station failed');
        return this.decide({ type: 'station_failed', node, code: 'station_failed', message: `${spec.station} failed after its retries: ${end.message}`, intents: [] }, `${spec.station} errored`);
      case 'result':
        return this.decide({ type: 'station_returned', node, station: spec.station, outcome: end.outcome, intents: end.intents }, `${spec.station} returned`, { station: spec.station, data: end.data });
    }
  }

  /** ticket-driver.ts `decide`: step, then its actions in order until a required write fails. Then the invariants. */
  private decide(event: StepEvent, via: string, returned?: { station: string; data?: Record<string, unknown> }): void {
    const before = stepStateOf(this.state);
    const crash = this.world.crashes();
    const frozen = crash ? JSON.stringify(before) : '';
    const result = step(this.definition, before, event, ENV);
    const stepNumber = this.sim.nextStep();
    const entry: TraceEntry = {
      kind: 'step', step: stepNumber, ticket: this.ticket, at: before.position.node, blocked: before.blocked, paused: before.position.paused,
      via, event, actions: result.actions, performed: 0,
    };
    this.sim.trace.push(entry);
    if (crash) this.replayAfterCrash(stepNumber, before, frozen, event, result);
    const entriesBefore = { ...this.entries };
    for (const action of result.actions) {
      if (!this.perform(action, returned)) break;
      entry.performed += 1;
    }
    const follow = result.actions.at(-1);
    this.check({
      step: stepNumber, definition: this.definition, live: this.live, event, before, result, performed: entry.performed,
      after: positionOf(this.checkpoint, this.runtime), blockedAfter: this.checkpoint.is_blocked, entries: entriesBefore, labels: this.labels, planned: this.planned,
      effectKey: (node, visit, name) => this.effectKey(node, visit, name), walk: this.walk, detours: [...this.detours],
    });
    for (const action of result.actions.slice(0, entry.performed)) if (action.type === 'enter') followDetours(this.detours, this.definition, action.transition);
    this.followWalk(result.actions.slice(0, entry.performed), returned);
    this.coverStep(event, before.blocked, result.actions.slice(0, entry.performed));
    // A follow-up is decided on the state the carried-out actions left, as ticket-driver.ts `decide` does.
    if (follow?.type === 'then' && entry.performed === result.actions.length) return this.decide(follow.event, `${via} (then)`);
    // perform(run_station) awaits the station, whose end is decided in turn; a station run is the step's last action.
    if (this.running) this.runStation(this.running);
  }

  /** The router's walk over the planned repositories, as the carried-out actions show it; a planning station starts a new one. */
  private followWalk(performed: readonly Action[], returned?: { station: string }): void {
    if (returned && PLANNING_STATIONS.includes(returned.station) && performed.some((action) => action.type === 'keep_result')) this.walk = { routed: [], detours: 0 };
    for (const action of performed) {
      if (action.type === 'set_output' && typeof action.data.repository === 'string') this.walk.routed.push(action.data.repository);
      if (action.type !== 'enter') continue;
      const from = this.definition.nodes[action.transition.from];
      const detour = from?.kind === 'station' && stationTraits(from).takes_rebase_target;
      if (detour && this.definition.nodes[action.transition.to]?.kind === 'router') this.walk.detours += 1;
    }
  }

  /**
   * A worker crash: Temporal rebuilds the workflow from its history and the step decides again on the same state and
   * event. It must decide the same (or the replay fails), and must not have changed what it was given.
   */
  private replayAfterCrash(stepNumber: number, before: ReturnType<typeof stepStateOf>, frozen: string, event: StepEvent, result: StepResult): void {
    this.happened('crash: decision replayed');
    if (JSON.stringify(before) !== frozen) throw new InvariantViolation('replay decides the same', 'step changed the state it was given', stepNumber);
    const again = step(this.definition, structuredClone(before), structuredClone(event), ENV);
    if (JSON.stringify(again) !== JSON.stringify(result)) {
      throw new InvariantViolation('replay decides the same', `replayed, the step decided ${JSON.stringify(again.actions.map(describeAction))} instead of ${JSON.stringify(result.actions.map(describeAction))}`, stepNumber);
    }
  }

  private check(check: StepCheck): void {
    for (const invariant of INVARIANTS) {
      const problem = invariant.check(check);
      if (problem === undefined) continue;
      const known = KNOWN_BUGS.find((bug) => bug.invariant === invariant.name && bug.matches(check));
      if (!known) throw new InvariantViolation(invariant.name, problem, check.step);
      this.happened(`known bug: ${known.id}`);
      this.note(`known bug (${known.id}): ${problem}`);
    }
  }

  private coverStep(event: StepEvent, wasBlocked: boolean, performed: readonly Action[]): void {
    if (event.type === 'stop') this.happened('stop');
    if (event.type === 'rebase') this.happened(performed.some((action) => action.type === 'enter') ? 'rebase' : 'rebase: refused');
    if (event.type === 'resumed') this.happened(performed.some((action) => action.type === 'enter') ? 'retry: escalation resumed' : 'retry: resumed');
    if (event.type === 'command' && performed.some((action) => action.type === 'enter') && wasBlocked) this.happened('final fact moved a blocked ticket');
    for (const action of performed) {
      if (action.type === 'enter' && action.transition.exhausted) this.happened('retry bound exhausted');
      if (action.type === 'enter' && action.transition.from === 'rebase' && event.type === 'station_returned') this.happened('rebase: returned');
      if (action.type === 'enter' && action.transition.outcome === 'question') this.happened('question detour');
      if (action.type === 'record' && action.details.via === 'yolo') this.happened('yolo: gate passed');
      if (action.type === 'enter' && event.type === 'yolo') this.happened('yolo: gate passed');
      if (action.type === 'enter' && event.type === 'ci_recheck') this.happened('skip-gate: CI judged again');
    }
  }

  /** action-performer.ts `perform`: one action; false when a required write failed (the ticket is blocked, the step ends). */
  private perform(action: Action, returned?: { station: string; data?: Record<string, unknown> }): boolean {
    switch (action.type) {
      case 'run_station':
        this.running = { node: action.node, visit: action.visit, spec: action.spec };
        return true;
      case 'effect':
        return this.effect(action.name, action.operation, action.required, action) || !action.required;
      case 'keep_result':
        if (returned?.data !== undefined) this.state.outputs![returned.station] = returned.data;
        return true;
      case 'set_output':
        this.state.outputs![action.key] = action.data;
        return true;
      case 'set_position':
        applyPosition(this.checkpoint, this.runtime, action.position);
        return true;
      case 'enter':
        this.enterAt(action);
        return true;
      case 'wait':
        applyPosition(this.checkpoint, this.runtime, action.position);
        this.gateWaiting(action.node, action.spec);
        return true;
      case 'block':
        this.block(action.code, action.message, action.comment);
        return true;
      case 'complete':
        this.runtime.ended = 'completed';
        this.state.status = 'completed';
        this.state.waiting = null;
        return true;
      case 'leave_block':
        this.leaveBlock(action);
        return true;
      case 'back_to_review':
        clearReviewResponseState(this.state);
        applyPosition(this.checkpoint, this.runtime, action.position);
        this.entered(action.position.node);
        this.happened('retry: review response');
        this.note(`service:retry at the review-response gate: back to ${action.position.node}`);
        return true;
      case 'refuse':
        this.note(`${action.trigger} refused: ${action.reason}`);
        return true;
      case 'edit_draft':
        // Edited in place by an activity (in-place-commands.ts); nothing the step reads back.
        this.note(`draft edited in place at ${action.node}`);
        return true;
      case 'record_attempt':
      case 'approve_artifact':
      case 'wait_ended':
      case 'record':
      case 'then':
        // The attempt list, the artifact snapshot, metrics and the timeline: nothing the step reads back. A follow-up
        // is decided once the step's checks are done (`decide`).
        return true;
    }
  }

  /** ticket-transitions.ts `leaveBlock` (blocking.ts leaveBlocked). */
  private leaveBlock(action: Extract<Action, { type: 'leave_block' }>): void {
    const { resumedAt } = leaveBlocked(this.state, NOW, action.by);
    const here = this.definition.nodes[resumedAt];
    if (here?.kind === 'gate' && (this.checkpoint.is_paused || action.by === 'corrected_command')) this.gateWaiting(resumedAt, here);
    else if (action.by === 'retry') this.state.status = 'running';
    if (action.by === 'corrected_command') this.happened('corrected command lifted a block');
  }

  /** ticket-transitions.ts `enterAt`. */
  private enterAt(action: Extract<Action, { type: 'enter' }>): void {
    applyPosition(this.checkpoint, this.runtime, action.position);
    this.state.status = 'running';
    this.state.waiting = null;
    this.entered(action.position.node);
    const from = this.definition.nodes[action.transition.from];
    if (from?.kind === 'gate') count(this.sim.coverage.gateOutcomes, `${this.sim.subject.kind}/${action.transition.from}/${action.transition.outcome}`);
  }

  /** ticket-transitions.ts `gateWaiting`. */
  private gateWaiting(node: string, spec: GateNode): void {
    this.state.status = 'waiting';
    this.state.waiting = { code: 'gate', message: spec.waiting_for ?? `waiting at ${node}`, since: NOW, recovery: commandsAcceptedHere(spec) };
  }

  private effectKey(node: string, visit: number, name: string): string {
    return effectKey({ ticket_key: TICKET_KEY, run_id: this.state.run_id, node, visit, name });
  }

  /**
   * ticket-writes.ts `effect` through the journal (effects/effect-runner.ts runKeyedEffect): a key that succeeded is
   * adopted, not written again; a key seen before writes the operation it was first recorded with. A write that opened
   * a pull request adds it to the ticket's index; a required write that fails blocks the ticket.
   */
  private effect(name: string, operation: EffectOperation, required: boolean, at?: { node: string; visit: number }): boolean {
    const node = at?.node ?? this.checkpoint.current_node;
    const key = this.effectKey(node, at?.visit ?? this.visit(), name);
    if (!at) this.checkDriverWrite(name, key, operation);
    let record = this.journal.get(key);
    if (!record) {
      record = { operation, succeeded: false };
      this.journal.set(key, record);
    }
    if (record.succeeded) return true;
    if (!this.world.effectSucceeds()) {
      this.happened(required ? 'effect failed: required' : 'effect failed');
      this.note(`write ${key} failed`);
      if (required) this.block('effect_unresolved', `required effect ${name} (${key}) ended terminal_failure: the provider refused`);
      return false;
    }
    record.succeeded = true;
    this.write(record.operation);
    const opened = record.operation.kind === 'scmhost.open_pr'
      ? (record.operation.head.startsWith('service/prd/') || record.operation.head.startsWith('service/spec/') ? proposalPullRequestRef(record.operation.head) : openedPullRequestRef(record.operation.repository))
      : undefined;
    if (opened && !noteProposalOpened(this.runtime, operation, opened) && !this.state.pull_requests.includes(opened)) this.state.pull_requests.push(opened);
    return true;
  }

  /** The driver's own writes (block reports, retry labels) keep one operation per key too. */
  private checkDriverWrite(name: string, key: string, operation: EffectOperation): void {
    const earlier = this.planned.get(key);
    const written = JSON.stringify(operation);
    if (!earlier) {
      this.planned.set(key, { operation: written, entry: this.entries[this.checkpoint.current_node] ?? 0, step: this.sim.steps() });
      return;
    }
    if (earlier.operation === written) return;
    throw new InvariantViolation('one logical write per effect identity', `the driver's write ${key} was ${earlier.operation} at step ${earlier.step} and is now ${written}`, this.sim.steps());
  }

  /** The tracker as the label writes leave it. */
  private write(operation: EffectOperation): void {
    if (operation.kind !== 'tracker.labels') return;
    for (const label of operation.add) this.labels.add(label);
    for (const label of operation.remove) this.labels.delete(label);
  }

  /** block-reporter.ts `block` (blocking.ts enterBlocked, nextBlockRecord, blockReport): once per episode, reported by label and comment. */
  private block(code: string, message: string, comment?: string | null): void {
    if (!enterBlocked(this.state, code as BlockingCode, message, NOW)) return;
    this.happened(`block: ${code}`);
    this.note(`blocked at ${this.checkpoint.current_node}: ${code}`);
    const node = this.checkpoint.current_node;
    const record = nextBlockRecord(this.runtime.last_block, { node, visit: this.visit(), code, message });
    this.runtime.last_block = record;
    const episode = `blocked_${this.state.retry_count}`;
    this.effect(`${episode}_label`, { kind: 'tracker.labels', issue_key: TICKET_KEY, add: [BLOCKED_LABEL], remove: [] }, false);
    if (comment === null) return;
    const report = record.repeats > 0 ? blockReport(record) : 'full';
    if (report === 'full') {
      this.effect(`${episode}_comment`, { kind: 'tracker.comment', issue_key: TICKET_KEY, body: comment ?? blockedComment({ node, code: code as BlockingCode, message, ticketKey: TICKET_KEY }) }, false);
    } else if (report === 'persists') {
      this.effect(`${episode}_persists`, { kind: 'tracker.comment', issue_key: TICKET_KEY, body: blockPersistsComment({ node, code, message }) }, false);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The command intake: workflows/runtime/intake.ts `handleAccepted`.

  private handleAccepted(arrival: Arrival): void {
    const { observation } = arrival;
    if (arrival.raw) return this.rawCommand(arrival.raw, observation);
    if (!noteProposalEvent(this.runtime, observation)) rememberPullRequest(this.state, observation);
    noteAcceptedPullRequest(this.state, observation);
    const starting = observation.event === 'issue_created' || (observation.facts.label_change?.added.includes(MANAGED_LABEL) ?? false);
    if (starting && !this.runtime.yolo && observation.facts.labels?.includes(YOLO_LABEL)) this.decide({ type: 'yolo_at_start', delivery_identity: observation.delivery_identity }, 'service:yolo at the start');
    const node = this.checkpoint.current_node;
    const here = this.definition.nodes[node];
    const retryLabelled = observation.facts.label_change?.added.includes(RETRY_LABEL) ?? false;
    // A ticket blocked at a gate by an unknown command reads the next command as if unblocked (issue 43).
    const correcting = this.checkpoint.is_blocked && this.checkpoint.is_paused && this.state.waiting?.code === 'unrecognized_command' && here?.kind === 'gate' && !retryLabelled;
    const decision = parseCommand(observation, {
      workflow_kind: this.sim.subject.kind,
      current_node: node,
      accepts: this.accepts,
      gates: this.gates,
      is_blocked: this.checkpoint.is_blocked && !correcting,
      is_paused: this.checkpoint.is_paused,
      has_pull_request: this.state.pull_requests.length > 0,
      yolo: this.runtime.yolo,
      kill_switch: isStopRequest(observation),
      draft_item_ids: here?.kind === 'gate' && here.artifact ? draftIdsAtGate(here.artifact, this.state.outputs ?? {}) : undefined,
      rca_option_count: here?.kind === 'gate' && here.gate === 'rca_option' ? rcaOptionCount(this.state.outputs ?? {}) : undefined,
      ...proposalPosition(this.gates[node]?.reviews_proposal, this.state.outputs ?? {}, this.runtime),
    });
    if (decision.kind === 'ignore') {
      this.note(`${arrival.note}: ignored (${decision.reason})`);
      return;
    }
    if (decision.kind === 'invalid') {
      this.note(`${arrival.note}: invalid (${decision.reason})${decision.blocks ? ', blocks' : ''}`);
      if (decision.blocks && (correcting || !this.checkpoint.is_blocked)) return this.block('unrecognized_command', decision.reason, null);
      if (decision.blocks) this.block('unrecognized_command', decision.reason);
      return;
    }
    const { command } = decision;
    const via = `${arrival.note} (parsed)`;
    const by = actorIdsOf(observation)[0] ?? observation.source_system;
    if (correcting && command.type !== 'retry') this.decide({ type: 'corrected', delivery_identity: observation.delivery_identity }, via);
    this.runtime.trigger = { source_system: observation.source_system, event: observation.event };
    switch (command.type) {
      case 'retry':
        return this.decide({ type: 'retry', command, by, delivery_identity: observation.delivery_identity, request_name: `reply_${this.state.observations_received}` }, via);
      case 'yolo':
        return this.decide({ type: 'yolo', enabled: command.enabled }, via);
      case 'skip_gate':
      case 'unskip_gate':
        this.decide({ type: 'ci_skips', skip: command.type === 'skip_gate', match: command.match }, via);
        return this.decide({ type: 'ci_recheck', via: `/service ${command.type === 'skip_gate' ? 'skip-gate' : 'unskip-gate'}` }, via);
      case 'rebase': {
        const target = command.pull_request ? pullRequestRefOf(command.pull_request, observation) : null;
        return this.decide({ type: 'rebase', target, delivery_identity: observation.delivery_identity }, via);
      }
      case 'stop':
        return this.stopTicket(observation, null);
      case 'draft_remove':
      case 'draft_exclude':
      case 'draft_update':
      case 'draft_add':
        return this.decide({ type: 'draft_edit', command }, via);
      default:
        return this.gateCommand(command, observation, via);
    }
  }

  /**
   * The simulation's own way in: a command handed to the step as `gateCommand` does, whatever the parser would say,
   * so every command type meets every node. Only while not blocked: the boundary lets nothing that moves a position
   * through while blocked except the final provider facts, and those arrive as deliveries.
   */
  private rawCommand(command: Command, observation: Observation): void {
    if (this.checkpoint.is_blocked) {
      this.note(`raw ${command.type}: not handed on, the ticket is blocked`);
      return;
    }
    this.happened('raw command');
    this.gateCommand(command, observation, `raw ${command.type}`);
  }

  /** intake.ts: a command handed to `step` as it is. */
  private gateCommand(command: Command, observation: Observation, via: string): void {
    this.decide({ type: 'command', command, by: actorIdsOf(observation)[0] ?? observation.source_system, delivery_identity: observation.delivery_identity }, via);
  }

  /** station-runner.ts `stopTicket`. */
  private stopTicket(observation: Observation, cancelled: string | null): void {
    const viaLabel = observation.facts.label_change?.added.includes(STOP_LABEL) ?? false;
    const by = observation.facts.comment?.author ?? observation.facts.actor_ids?.[0] ?? observation.facts.sender ?? 'someone';
    this.decide({ type: 'stop', by, via_label: viaLabel, cancelled, delivery_identity: observation.delivery_identity }, cancelled ? 'the kill switch during a station' : 'the kill switch');
  }
}

// -----------------------------------------------------------------------------------------------------------------
// One seed.

function failureMessage(seed: number, subject: SimulatedDefinition, violation: InvariantViolation, trace: readonly TraceEntry[]): string {
  const last = trace.filter((entry) => entry.kind === 'step').slice(-8);
  const from = last.length > 0 ? trace.indexOf(last[0]!) : trace.length;
  const ticket = last.at(-1)?.ticket ?? 1;
  return [
    `invariant "${violation.invariant}" broke at step ${violation.step} of seed ${seed} (${subject.definition.name} r${subject.definition.revision}, ticket #${ticket})`,
    `  ${violation.problem}`,
    'last events:',
    ...trace.slice(from).map((entry) => `  ${describeTraceEntry(entry)}`),
    `replay: ${SEED_VARIABLE}=${seed} ${REPLAY_COMMAND}`,
  ].join('\n');
}

/**
 * Runs one seed for (about) `steps` calls of the step function: tickets of the seed's definition, one after the other,
 * each until it completes or the world leaves it. The first broken invariant ends the run.
 */
export function simulate(seed: number, steps: number): SimulationResult {
  const rng = new Rng(seed);
  const subject = definitionOfSeed(seed);
  const trace: TraceEntry[] = [];
  const coverage = emptyCoverage();
  let counted = 0;
  const sim: Simulation = { seed, subject, trace, coverage, nextStep: () => (counted += 1), steps: () => counted };
  let tickets = 0;
  let failure: SimulationFailure | undefined;
  try {
    while (counted < steps) {
      tickets += 1;
      const world = new TicketWorld(rng, tickets, subject.definition, subject.kind === 'feature' && rng.chance(0.3), rng.pick([0.5, 0.7, 0.85]));
      const run = new TicketRun(sim, tickets, world, world.startsOnEarlierRevision() ? subject.earlier : subject.definition);
      run.begin();
      while (!run.over && counted < steps) run.tick();
    }
  } catch (error) {
    if (!(error instanceof InvariantViolation)) throw error;
    failure = { invariant: error.invariant, problem: error.problem, step: error.step, message: failureMessage(seed, subject, error, trace) };
  }
  coverage.steps = counted;
  return { seed, definition: `${subject.definition.name} r${subject.definition.revision}`, steps: counted, tickets, trace, coverage, ...(failure ? { failure } : {}) };
}
