import type { Command } from '../person-commands/command-types';
import type { DraftCommand } from '../person-commands/drafts';
import type { TriggerId } from '../vocabulary/command-words';
import type { GateNode, StationNode } from '../built-in-definitions/definition-types';
import type { EffectOperation } from '../effects/effect-types';
import type { EffectIntent, StationRequest } from './station-types';

/**
 * The vocabulary of the step function (workflows/runtime/step.ts): what it reads, what it decides, and the plain
 * data actions the driver in workflows/ticket.ts carries out. Nothing here is code of a workflow.
 */

/**
 * Where the ticket stands in its pinned definition: the part of the workflow's state that only `step` changes.
 * The driver reads it out of the checkpoint and runtime (`positionOf`) and writes it back (`applyPosition`).
 */
export interface Position {
  node: string;
  paused: boolean;
  /** Entries into each node so far (never reset): the `<visit>` of effect keys. */
  visits: Readonly<Record<string, number>>;
  /** Entries counted against a node's retry bound. */
  bound_counts: Readonly<Record<string, number>>;
  /** Where `$return` leads (the question and rebase detours come back here). */
  return_to: string | null;
  /** Where a blocked end was reached from (a retry bound ran out, or an outcome led there): service:retry resumes there. */
  resume_at: string | null;
  /** What a person asked at a gate, handed to the next station. */
  request: StationRequest | null;
  yolo: boolean;
  /** The pull request a `/service rebase` named; null for every pull request of the ticket. */
  rebase_target: string | null;
  /** SPEC 3.2: CI fix attempts since the last pass or service:retry. */
  ci_fix_attempts: number;
  ci_skipped_checks: readonly string[];
}

/** What `step` reads besides the position; it never changes these (the driver and other modules do). */
export interface StepState {
  position: Position;
  blocked: boolean;
  /** The run reached an end node that completed it. */
  ended: boolean;
  /** service:retry count: names the writes of each blocked episode. */
  retry_count: number;
  pull_requests: readonly string[];
  merged_pull_requests: readonly string[];
  approved_pull_requests: readonly string[];
  /** The latest data of each station (routers decide on it). */
  outputs: Readonly<Record<string, unknown>>;
}

/**
 * The deterministic environment of one step: the ticket its writes name, and `patched`, asked only where a decision
 * depends on it (so its marker is written where it always was). No clock: the driver stamps what it records.
 */
export interface StepEnv {
  ticketKey: string;
  patched: (patch: string) => boolean;
  /** Why no definition is pinned (the gateway's route error), when none is: the block says it. */
  unrouted?: string;
}

export type StepEvent =
  /** A new run of the ticket (not one continued as new): it enters its definition's entry node. */
  | { type: 'start' }
  /** The ticket may act (not blocked, not paused, not ended): do what its node does. */
  | { type: 'act' }
  /** The ledger found deliveries that contradict each other (`reason`): nothing can be decided safely. */
  | { type: 'conflict'; reason: string }
  /** The station at `node` returned `outcome` with the writes it wants. */
  | { type: 'station_returned'; node: string; station: string; outcome: string; intents: readonly EffectIntent[] }
  /** The station could not produce a result: `intents` are writes that already report the failure. */
  | { type: 'station_failed'; node: string; code: string; message: string; intents: readonly EffectIntent[] }
  /** An accepted command that a gate (or the node) acts on (approve, feedback, question, review, CI, merge, ...). */
  | { type: 'command'; command: Command; by: string; delivery_identity: string }
  /** service:yolo switched on or off. */
  | { type: 'yolo'; enabled: boolean }
  /** service:yolo stood on the ticket when the service took it, put there by someone allowed to (`reason` says why). */
  | { type: 'yolo_at_start'; delivery_identity: string; reason?: string }
  /**
   * service:retry, read as the position reads it (`command.mode`): a block resumes, a review-response gate goes back
   * to its review, an unblocked gate regenerates. `request_name` names the writes that answer this delivery.
   */
  | { type: 'retry'; command: Extract<Command, { type: 'retry' }>; by: string; delivery_identity: string; request_name: string }
  /** An allowed person's valid command after an unknown one at a gate: the block goes before the command is carried out. */
  | { type: 'corrected'; delivery_identity: string }
  /** `/service remove|exclude|update|add` at the ticket's node: a gate with a draft edits it in place. */
  | { type: 'draft_edit'; command: DraftCommand }
  /** `/service skip-gate` or `/service unskip-gate` changes the skip list. */
  | { type: 'ci_skips'; skip: boolean; match: string }
  /** After the skip list changed (and the person was answered): a gate waiting for CI judges the checks again. */
  | { type: 'ci_recheck'; via: string }
  /**
   * `/service rebase`, on the pull request `target` (null: every pull request of the ticket). The step judges it
   * (./rebase-decision.ts): the detour to the rebase node and back to where the ticket stands, or a refusal.
   */
  | { type: 'rebase'; target: string | null; delivery_identity: string }
  /**
   * An operator's migration swapped the pinned definition (the step is given the new one): the ticket stands at
   * `target_node`, and `renames` (old node → new) carry its counts and the nodes it returns to.
   */
  | { type: 'migrated'; target_node: string | null; renames: Readonly<Record<string, string>> }
  /** service:retry has left the block (the `retry` step's follow-up): an escalation resumes its bounded node. */
  | { type: 'resumed' }
  /** The kill switch: service:stop or `/service stop`, maybe while a station ran (`cancelled`). */
  | { type: 'stop'; by: string; via_label: boolean; cancelled: string | null; delivery_identity: string };

export interface Transition {
  from: string;
  to: string;
  outcome: string;
  visit: number;
  reason: string;
  exhausted?: { node: string; bound: number; code: string };
}

export type Action =
  /** Run the station at `node` (its visit names its writes). */
  | { type: 'run_station'; node: string; visit: number; spec: StationNode; params: StationNode['params'] }
  /** One named write through the effect journal; a required one that fails blocks the ticket and ends the step. */
  | { type: 'effect'; name: string; node: string; visit: number; operation: EffectOperation; required: boolean }
  /** Record the station attempt the driver has in hand. */
  | { type: 'record_attempt'; status: 'succeeded' | 'invalid'; error: string | null }
  /** Keep the returned station's data and artifacts. */
  | { type: 'keep_result' }
  /** Keep a router's decision in `outputs`. */
  | { type: 'set_output'; key: string; data: Record<string, unknown> }
  /** Snapshot the gate's artifact as approved (trusted input of later stations). */
  | { type: 'approve_artifact'; artifact: string; by: string }
  /** The wait at a gate ended (service_wait_seconds). */
  | { type: 'wait_ended' }
  /** Write the position now: what the driver reads next (search attributes, blocks) must see it. */
  | { type: 'set_position'; position: Position }
  /** Leave a node for another: the position is written, the ticket runs, the timeline says why. */
  | { type: 'enter'; position: Position; transition: Transition }
  /** Pause at a gate and wait for what it accepts. */
  | { type: 'wait'; position: Position; node: string; spec: GateNode }
  /** A decision for the timeline (`command_decision`, `operator_action`, or a `transition` no `enter` carries). */
  | { type: 'record'; kind: 'command_decision' | 'operator_action' | 'transition'; status: string; summary: string; details: Record<string, unknown> }
  /**
   * Leave the block (SPEC 3.2): service:retry resets the CI fix attempts, a corrected command keeps them; both count
   * as a retry (the next block is a new episode), and the ticket waits at its gate again or runs.
   */
  | { type: 'leave_block'; by: 'retry' | 'corrected_command'; delivery_identity: string }
  /**
   * service:retry at a review-response gate: the contested review state goes, the next review starts fresh, and the
   * ticket is at the gate's `retry_to` (a new visit, entered without a transition of its own).
   */
  | { type: 'back_to_review'; position: Position }
  /** A command that cannot be carried out where the ticket stands: the person is answered once, with `reason`. */
  | { type: 'refuse'; trigger: TriggerId; reason: string; reply: 'with_position' | 'bare' }
  /** Edit the draft artifact of the gate at `node` in place (an activity), answer, and post it again. */
  | { type: 'edit_draft'; node: string; artifact: string; command: DraftCommand }
  /** Decide `event` next, once the actions before it are carried out (always the last action of a step). */
  | { type: 'then'; event: StepEvent }
  | { type: 'block'; code: string; message: string; comment?: null }
  /** The run reached a completing end. */
  | { type: 'complete'; node: string };

export interface StepResult {
  /**
   * The state once every action has been carried out: the position, `blocked` after a block, `ended` after the
   * completion, `outputs` with the routers' decisions. Every change is also carried by an action (the position by
   * `enter`, `wait` or a closing `set_position`), so the driver writes it at the moment the old runtime did; the step
   * simulation checks after every step that what the driver reached is this state. A required write that fails stops
   * the actions short (the driver blocks), and then the driver's state is the one that counts.
   */
  state: StepState;
  actions: Action[];
}
