import { TRIGGER, triggerIdOf, type TriggerId } from '../vocabulary/command-words';
import type { StationName } from '../vocabulary/stage-names';

/**
 * What a definition may name (DESIGN 6): the stations the worker can run, the gate kinds, the routers, and which
 * outcome each trigger produces at a gate. The validator (src/definition-rules/validate-definition.ts) checks every
 * definition, built-in or published, against this catalogue; a station the worker does not implement yet is still
 * known here and blocks with `station_not_available` when a ticket reaches it.
 */

/** Station name → the outcomes it may return. */
export const STATION_OUTCOMES: Readonly<Record<StationName, readonly string[]>> = {
  intake: ['configured'],
  generate_prd: ['generated'],
  generate_spec: ['generated'],
  decompose_epics: ['generated'],
  generate_tasks: ['generated'],
  provision_epics: ['provisioned'],
  provision_tasks: ['provisioned'],
  answer_question: ['answered'],
  setup_workspace: ['ready'],
  implement_task: ['implemented'],
  local_review: ['passed', 'changes_needed'],
  update_documentation: ['updated'],
  create_pr: ['opened'],
  teardown_workspace: ['done'],
  ci_evaluator: ['pass', 'fail', 'wait'],
  attempt_ci_fix: ['fixed'],
  implement_review: ['addressed', 'contested'],
  code_review: ['reviewed'],
  rebase: ['rebased'],
  complete_tasks: ['done'],
  aggregate_epic_status: ['done'],
  aggregate_feature_status: ['done'],
  triage_check: ['complete', 'incomplete'],
  analyze_bug: ['analyzed'],
  reflect_rca: ['done', 'critique'],
  plan_bug_fix: ['planned'],
  decompose_plan: ['decomposed'],
  implement_bug_fix: ['implemented'],
  post_merge_summary: ['done'],
  generate_plan: ['generated'],
  execute_task_changes: ['implemented'],
  run_qualitative_review: ['passed', 'changes_needed'],
  complete_task_takeover: ['done'],
};

/** Router name → the outcomes it may decide. */
export const ROUTER_OUTCOMES: Readonly<Record<string, readonly string[]>> = {
  next_repository: ['next', 'done'],
};

export const GATE_KINDS = ['artifact_approval', 'draft_approval', 'triage', 'rca_option', 'human_review', 'ci_wait', 'review_response'] as const;

/**
 * The outcome a trigger produces where it is accepted, by trigger id; null for triggers handled in place (the ticket
 * stays where it is: draft edits, CI skips, yolo, rebase). The stop triggers are absent: they mean something at every
 * node, so no node lists them in `accepts`.
 */
export type NodeTrigger = Exclude<TriggerId, typeof TRIGGER.stopLabel | typeof TRIGGER.stopCommand>;

export const TRIGGER_OUTCOME: Readonly<Record<NodeTrigger, string | null>> = {
  [TRIGGER.prdApproved]: 'approved',
  [TRIGGER.specApproved]: 'approved',
  [TRIGGER.planApproved]: 'approved',
  [TRIGGER.taskApproved]: 'approved',
  [TRIGGER.approve]: 'approved',
  [TRIGGER.proposalMerged]: 'approved',
  [TRIGGER.retryAtPausedGate]: 'regenerate',
  [TRIGGER.retryAtReviewResponseGate]: null,
  [TRIGGER.yolo]: null,
  [TRIGGER.ticketUpdate]: 'retriage',
  [TRIGGER.question]: 'question',
  [TRIGGER.feedback]: 'feedback',
  [TRIGGER.draftItemFeedback]: 'feedback',
  [TRIGGER.proposalReview]: 'feedback',
  [TRIGGER.option]: 'option_selected',
  [TRIGGER.remove]: null,
  [TRIGGER.exclude]: null,
  [TRIGGER.update]: null,
  [TRIGGER.add]: null,
  [TRIGGER.skipGate]: null,
  [TRIGGER.unskipGate]: null,
  [TRIGGER.rebase]: null,
  [TRIGGER.pullRequestReview]: 'review',
  [TRIGGER.ciResult]: 'ci_event',
  [TRIGGER.push]: 'ci_event',
  [TRIGGER.merged]: 'merged',
  [TRIGGER.closedUnmerged]: 'closed',
};

/** `pull_request_review` (a pull request review) yields one of these, by the review's state. */
export const REVIEW_OUTCOMES = ['review_approved', 'changes_requested'] as const;

/** The outcomes a trigger can produce (a review produces two). */
export function outcomesOfTrigger(trigger: NodeTrigger): string[] {
  const outcome = TRIGGER_OUTCOME[trigger];
  if (outcome === 'review') return [...REVIEW_OUTCOMES];
  return outcome ? [outcome] : [];
}

/** The trigger a node may list in `accepts` that an entry names (by id or legacy label), or undefined when none. */
export function nodeTriggerOf(entry: string): NodeTrigger | undefined {
  const id = triggerIdOf(entry);
  return id !== undefined && Object.hasOwn(TRIGGER_OUTCOME, id) ? (id as NodeTrigger) : undefined;
}
