/**
 * Where each command means something (REFERENCE "Workflow graphs" and "Commands"). Data, not branches: a command
 * outside its positions is recorded and changes nothing.
 */

/** Approval labels and the gate each approves. */
export const APPROVAL_LABELS: Readonly<Record<string, readonly string[]>> = {
  'service:prd-approved': ['prd_approval_gate'],
  'service:spec-approved': ['spec_approval_gate'],
  'service:plan-approved': ['plan_approval_gate', 'task_plan_approval_gate'],
  'service:task-approved': ['task_approval_gate'],
};

/** Gates where `/service approve` approves the draft. */
export const COMMENT_APPROVAL_GATES = ['plan_approval_gate', 'task_approval_gate', 'task_plan_approval_gate'] as const;

/** Gates holding an editable draft (`/service remove|exclude|update|add`). */
export const DRAFT_GATES = ['plan_approval_gate', 'task_approval_gate'] as const;

/** Gates showing a generated artifact: `?` asks about it, `!` asks for a revision. */
export const ARTIFACT_GATES = [
  'prd_approval_gate', 'spec_approval_gate', 'plan_approval_gate', 'task_approval_gate', 'task_plan_approval_gate',
  'rca_option_gate', 'triage_gate',
] as const;

/** Positions where CI results and skip-gate commands matter. */
export const CI_POSITIONS = ['ci_evaluator', 'wait_for_ci_gate', 'attempt_ci_fix', 'human_review_gate'] as const;

export const REVIEW_POSITIONS = ['human_review_gate'] as const;
export const OPTION_GATE = 'rca_option_gate';
export const TRIAGE_GATE = 'triage_gate';
export const REVIEW_RESPONSE_GATE = 'review_response_gate';

/** Approval gates where service:retry on a paused gate means "regenerate the artifact". */
export const APPROVAL_GATES = ['prd_approval_gate', 'spec_approval_gate', 'plan_approval_gate', 'task_approval_gate', 'task_plan_approval_gate', 'rca_option_gate'] as const;

export function isAt(node: string, positions: readonly string[]): boolean {
  return positions.includes(node);
}
