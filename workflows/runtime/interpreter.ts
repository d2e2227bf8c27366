import type { Command } from '../commands/command-types';
import type { WorkflowDefinition } from '../built-in-definitions/definition-types';
import type { StationRequest } from './station-types';
import type { Runtime } from './ticket-state';

/**
 * Helpers of the station interpreter's decisions (DESIGN 6), pure functions over the pinned definition and what
 * stations left: what a command means at a gate, the stage labels, the routers. The decisions themselves are the
 * step function's (workflows/runtime/step.ts); nothing here does I/O or reads a clock.
 */

export function initialRuntime(now: string): Runtime {
  return { visits: {}, bound_counts: {}, return_to: null, resume_at: null, request: null, entered_at: now, ended: null, yolo: false, tokens_spent: 0 };
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
 * decompose_plan in the bug graph, generate_plan in the takeover), one per decision. Its decision is kept as
 * `outputs.next_repository` (`{repository, index, count}`), which tells the per-repository stations where they work.
 */
export function decideRouter(router: string, outputs: Record<string, unknown>, turn: number): RouterDecision {
  if (router === 'next_repository') {
    const repositories = plannedRepositoriesOf(outputs);
    // The router decides once before the first repository and once after each: turn n routes repository n.
    if (turn <= repositories.length) return { ok: true, outcome: 'next', data: { repository: repositories[turn - 1], index: turn, count: repositories.length } };
    return { ok: true, outcome: 'done', data: { repository: null, index: turn, count: repositories.length } };
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
