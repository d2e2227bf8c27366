/**
 * Workflow definitions as data (DESIGN 6): a graph of stations, gates, routers and ends that a ticket's workflow
 * walks. A run pins one definition (name, revision, digest and body) at start and keeps it across continue-as-new, so
 * publishing or shipping a newer revision never changes a ticket in flight. Type-only; the zod schema and the
 * validator live in src/definition-rules/ (workflow code must not load zod), the built-in bodies beside this file.
 */

import { acceptsEntryOf, triggerLabelOf } from '../vocabulary/command-words';

export const DEFINITION_API_VERSION = 'service/v1';

/** Where an outcome leads: a node name, or `$return` to go back to the node that sent the ticket here. */
export type Target = string;
export const RETURN_TARGET = '$return';

export interface StationNode {
  kind: 'station';
  /** The station activity to run (a name from the station catalogue). */
  station: string;
  /** The model policy key a model-calling station resolves its target with (SPEC 2.10). */
  model_key?: string;
  params?: Record<string, string | number | boolean>;
  /** How many times the node may be entered before it goes to `on_exhausted` (default `escalate_blocked`). */
  retry_bound?: number;
  on_exhausted?: Target;
  /** The blocking code when the bound is exhausted (default `retry_bound_exhausted`). */
  exhausted_code?: string;
  /** How long one attempt of the station may take. */
  timeout_seconds?: number;
  /**
   * Triggers that mean something while the ticket stands here, by id (workflows/vocabulary/command-words.ts
   * `TRIGGER`); a legacy label is read as its id. Read through `nodeAccepts`, never directly.
   */
  accepts?: string[];
  /**
   * Behaviour the runtime reads from the node (workflows/runtime/node-traits.ts). Absent: what the built-in station
   * of that name does (attempt_ci_fix counts, ci_evaluator resets on `pass`, rebase takes the named pull request).
   */
  counts_ci_fix_attempt?: boolean;
  resets_ci_fix_attempts_on?: string;
  takes_rebase_target?: boolean;
  on: Record<string, Target>;
}

/** A document reviewed as a pull request on `service/<kind>/<key>` when proposal review is on (REFERENCE "Source host conventions"). */
export type ProposalKind = 'prd' | 'spec';

export interface GateNode {
  kind: 'gate';
  /** What kind of gate this is (a name from the gate catalogue): artifact_approval, draft_approval, ... */
  gate: string;
  /** The artifact the gate shows, by name (e.g. `prd`): approval snapshots it. */
  artifact?: string;
  /** The stage label that stands while the ticket waits here (exactly one stage label at a time). */
  pending_label?: string;
  approved_label?: string;
  /** Triggers this gate accepts, by id or legacy label (read through `nodeAccepts`); nothing else moves it. */
  accepts: string[];
  /** service:yolo approves this gate without waiting. Never set on human PR review. */
  auto_approve_in_yolo?: boolean;
  /** One line for people: what the gate waits for and how to act. */
  waiting_for?: string;
  // Behaviour the runtime and the command boundary read from the node (workflows/runtime/node-traits.ts). Absent:
  // what the built-in gate of that name did (./node-behaviour-before-fields.ts), so pinned bodies keep behaving.
  /** Where service:retry at a review-response gate goes (absent: `human_review_gate`). */
  retry_to?: Target;
  /**
   * The proposal this gate reviews: its pull request's review comments revise the artifact, its merge approves it
   * here and nowhere else, and while it is open the ticket's `!` and `?` here are ignored. At most one gate per kind.
   */
  reviews_proposal?: ProposalKind;
  /** A `!` comment here carries the details triage asked for: the ticket is triaged again rather than revised. */
  feedback_retriages?: boolean;
  on: Record<string, Target>;
}

export interface RouterNode {
  kind: 'router';
  /** A pure decision on workflow state (a name from the router catalogue). */
  router: string;
  /**
   * `next_repository`: the station whose result lists the repositories to walk (`data.repositories`). Absent, as in
   * bodies pinned before the field: the first of the built-in planning stations that left any.
   */
  repositories_from?: string;
  accepts?: string[];
  on: Record<string, Target>;
}

export interface EndNode {
  kind: 'end';
  result: 'completed' | 'blocked';
  /** For a blocked end: the blocking code, and the message people see. */
  code?: string;
  message?: string;
}

export type DefinitionNode = StationNode | GateNode | RouterNode | EndNode;

export interface WorkflowDefinition {
  apiVersion: typeof DEFINITION_API_VERSION;
  name: string;
  revision: number;
  description?: string;
  entry: string;
  nodes: Record<string, DefinitionNode>;
}

/** What a run pins: the identity of its definition and the body it walks. */
export interface PinnedDefinition {
  name: string;
  revision: number;
  /** sha256 hex of the canonical JSON of `body`, computed outside workflow code. */
  digest: string;
  body: WorkflowDefinition;
}

/**
 * The one reader of a node's `accepts`: trigger ids, whether the body names them by id or by the label they had
 * before ids (a body pinned or published then). An entry that is neither passes through unchanged: the validator
 * refuses such bodies, and the runtime takes it for a trigger this build has no meaning for.
 */
export function nodeAccepts(node: DefinitionNode | undefined): readonly string[] {
  if (!node || node.kind === 'end') return [];
  return (node.accepts ?? []).map(acceptsEntryOf);
}

/**
 * The recovery line of a gate's waiting, for people: its triggers by label, in definition order, whichever spelling
 * the body uses (so a body pinned with labels and its successor with ids say the same).
 */
export function commandsAcceptedHere(node: DefinitionNode | undefined): string {
  return `commands accepted here: ${nodeAccepts(node).map(triggerLabelOf).join(', ')}`;
}

export function outcomesOf(node: DefinitionNode | undefined): Array<{ outcome: string; target: string }> {
  if (!node || node.kind === 'end') return [];
  return Object.entries(node.on).map(([outcome, target]) => ({ outcome, target }));
}

/** Node → the trigger ids it accepts, in definition order: what the command parser asks about a position. */
export function acceptTable(definition: WorkflowDefinition): Record<string, readonly string[]> {
  const table: Record<string, readonly string[]> = {};
  for (const [id, node] of Object.entries(definition.nodes)) {
    const accepts = nodeAccepts(node);
    if (accepts.length > 0) table[id] = accepts;
  }
  return table;
}
