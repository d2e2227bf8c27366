import type { Command } from './command-types';
import { RETURN_TARGET, type DefinitionNode, type EndNode, type GateNode, type RouterNode, type StationNode, type WorkflowDefinition } from './definitions/definition-types';
import type { StationRequest } from './station-types';
import type { Checkpoint, Runtime } from './ticket-state';

/**
 * The station interpreter's decisions (DESIGN 6), as pure functions over the pinned definition and the workflow's
 * checkpoint: what to do at a node, where an outcome leads, what a command means at a gate. ticket.ts performs what
 * these decide (activities, effects, waits); nothing here does I/O or reads a clock, so it is unit-tested without
 * Temporal and replays deterministically.
 */

export const ESCALATE_NODE = 'escalate_blocked';
export const DEFAULT_EXHAUSTED_CODE = 'retry_bound_exhausted';

export type NodeAction =
  | { type: 'station'; node: string; spec: StationNode }
  | { type: 'gate'; node: string; spec: GateNode }
  | { type: 'router'; node: string; spec: RouterNode }
  | { type: 'end'; node: string; spec: EndNode }
  | { type: 'missing'; node: string };

export function actionAt(definition: WorkflowDefinition, node: string): NodeAction {
  const spec: DefinitionNode | undefined = definition.nodes[node];
  if (!spec) return { type: 'missing', node };
  switch (spec.kind) {
    case 'station': return { type: 'station', node, spec };
    case 'gate': return { type: 'gate', node, spec };
    case 'router': return { type: 'router', node, spec };
    case 'end': return { type: 'end', node, spec };
  }
}

export function initialRuntime(now: string): Runtime {
  return { visits: {}, bound_counts: {}, return_to: null, resume_at: null, request: null, entered_at: now, ended: null, yolo: false, tokens_spent: 0 };
}

export type TargetResolution = { ok: true; target: string } | { ok: false; reason: string };

/** Where `outcome` at `from` leads in the pinned definition; `$return` goes back to the node that sent us here. */
export function targetOf(definition: WorkflowDefinition, runtime: Runtime, from: string, outcome: string): TargetResolution {
  const node = definition.nodes[from];
  if (!node || node.kind === 'end') return { ok: false, reason: `${from} is not a node that leads anywhere in ${definition.name} r${definition.revision}` };
  const target = node.on[outcome];
  if (target === undefined) {
    return { ok: false, reason: `${from} has no transition for outcome "${outcome}" in ${definition.name} r${definition.revision} (it maps: ${Object.keys(node.on).join(', ')})` };
  }
  if (target === RETURN_TARGET) {
    return runtime.return_to ? { ok: true, target: runtime.return_to } : { ok: false, reason: `${from} returns to the node that sent the ticket here, but none is recorded` };
  }
  return { ok: true, target };
}

export interface Entry {
  /** The node the ticket now stands at. */
  node: string;
  /** Its visit number (the `<visit>` of effect keys). */
  visit: number;
  /** Set when the target's retry bound was exhausted and the ticket went to its escalation node instead. */
  exhausted?: { node: string; bound: number; code: string };
}

/**
 * Moves the checkpoint to `target`: counts the visit, applies the retry bound (exhausted: the escalation node, with
 * the bounded node kept for service:retry). The gate's pause happens when the driver has set its stage label.
 */
export function enterNode(definition: WorkflowDefinition, checkpoint: Checkpoint, runtime: Runtime, target: string, now: string): Entry {
  const spec = definition.nodes[target];
  let node = target;
  let exhausted: Entry['exhausted'];
  if (spec?.kind === 'station' && spec.retry_bound !== undefined) {
    const count = (runtime.bound_counts[target] ?? 0) + 1;
    if (count > spec.retry_bound) {
      node = spec.on_exhausted ?? ESCALATE_NODE;
      exhausted = { node: target, bound: spec.retry_bound, code: spec.exhausted_code ?? DEFAULT_EXHAUSTED_CODE };
      runtime.resume_at = target;
    } else {
      runtime.bound_counts[target] = count;
    }
  }
  const visit = (runtime.visits[node] ?? 0) + 1;
  runtime.visits[node] = visit;
  runtime.entered_at = now;
  checkpoint.current_node = node;
  checkpoint.is_paused = false;
  return { node, visit, ...(exhausted ? { exhausted } : {}) };
}

/** What a command means at a gate: an outcome that moves it (with what to tell the next station), or in place. */
export type GateCommandEffect =
  | { type: 'outcome'; outcome: string; request: StationRequest | null }
  | { type: 'in_place' };

export function gateCommandEffect(command: Command): GateCommandEffect {
  switch (command.type) {
    case 'approve': return { type: 'outcome', outcome: 'approved', request: null };
    case 'feedback':
      return {
        type: 'outcome', outcome: 'feedback',
        request: command.item_id !== undefined ? { kind: 'draft_item_feedback', text: command.text, item_id: command.item_id } : { kind: 'feedback', text: command.text },
      };
    case 'question': return { type: 'outcome', outcome: 'question', request: { kind: 'question', text: command.text } };
    case 'retry': return command.mode === 'regenerate' ? { type: 'outcome', outcome: 'regenerate', request: { kind: 'regenerate', text: '' } } : { type: 'in_place' };
    case 'select_option': return { type: 'outcome', outcome: 'option_selected', request: { kind: 'option_selected', text: `option ${command.option}`, option: command.option } };
    case 'retriage': return { type: 'outcome', outcome: 'retriage', request: command.text ? { kind: 'feedback', text: command.text } : null };
    case 'review_approved': return { type: 'outcome', outcome: 'review_approved', request: null };
    case 'review_changes_requested': return { type: 'outcome', outcome: 'changes_requested', request: { kind: 'feedback', text: command.body } };
    case 'ci_completed':
    case 'pr_synchronized': return { type: 'outcome', outcome: 'ci_event', request: null };
    case 'pr_merged': return { type: 'outcome', outcome: 'merged', request: null };
    case 'pr_closed': return { type: 'outcome', outcome: 'closed', request: null };
    default: return { type: 'in_place' };
  }
}

/** Every pending stage label of the definition: entering a gate removes the others so exactly one stands. */
export function stageLabels(definition: WorkflowDefinition): string[] {
  const labels = new Set<string>();
  for (const node of Object.values(definition.nodes)) if (node.kind === 'gate' && node.pending_label) labels.add(node.pending_label);
  return [...labels].sort();
}

/** The router decisions: pure functions of what earlier stations left in `outputs`. */
export type RouterDecision = { ok: true; outcome: string; data?: Record<string, unknown> } | { ok: false; reason: string };

/** The stations that plan repositories for the router, in the order the graphs use them (feature, bug, takeover). */
const REPOSITORY_PLANNERS = ['provision_tasks', 'decompose_plan', 'generate_plan'] as const;

/** The repositories the ticket's planning station left for the router; the first planner that left any wins. */
export function plannedRepositoriesOf(outputs: Record<string, unknown>): string[] {
  for (const station of REPOSITORY_PLANNERS) {
    const planned = (outputs[station] as { repositories?: unknown } | undefined)?.repositories;
    if (Array.isArray(planned)) return planned.filter((r): r is string => typeof r === 'string');
  }
  return [];
}

/**
 * `next_repository` walks the repositories the planning station planned (provision_tasks in the feature graph,
 * decompose_plan in the bug graph, generate_plan in the takeover), one per visit. Its decision is kept as
 * `outputs.next_repository` (`{repository, index, count}`), which tells the per-repository stations where they work.
 */
export function decideRouter(router: string, outputs: Record<string, unknown>, visits: number): RouterDecision {
  if (router === 'next_repository') {
    const repositories = plannedRepositoriesOf(outputs);
    // The router is entered once before the first repository and once after each: visit n routes repository n.
    if (visits <= repositories.length) return { ok: true, outcome: 'next', data: { repository: repositories[visits - 1], index: visits, count: repositories.length } };
    return { ok: true, outcome: 'done', data: { repository: null, index: visits, count: repositories.length } };
  }
  return { ok: false, reason: `no router named "${router}"` };
}

/**
 * How many fix options the RCA shown at rca_option_gate offers (`outputs.reflect_rca.option_count`, set when the
 * RCA comment was posted); `>option N` is meaningful for 1..N only. 0 when nothing was posted.
 */
export function rcaOptionCount(outputs: Record<string, unknown>): number {
  const count = (outputs.reflect_rca as { option_count?: unknown } | undefined)?.option_count;
  return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 0;
}
