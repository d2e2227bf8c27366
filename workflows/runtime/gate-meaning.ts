import type { Command } from '../person-commands/command-types';
import type { WorkflowDefinition } from '../built-in-definitions/definition-types';
import type { StationRequest } from './station-types';

/**
 * What a gate makes of a command (the outcome it maps, with what to tell the next station) and the stage labels
 * entering a gate puts right: pure helpers of `step` (step.ts) over the pinned definition.
 */

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

/**
 * Every stage label of the definition, pending and approved: entering a gate removes the others so that its pending
 * label stands alone (the approval label a person added at the gate before goes with them).
 */
export function stageLabels(definition: WorkflowDefinition): string[] {
  const labels = new Set<string>();
  for (const node of Object.values(definition.nodes)) {
    if (node.kind !== 'gate') continue;
    if (node.pending_label) labels.add(node.pending_label);
    if (node.approved_label) labels.add(node.approved_label);
  }
  return [...labels].sort();
}
