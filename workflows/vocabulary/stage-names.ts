/**
 * The names of the stages, defined here once: the stations a definition's nodes run (each is an activity of that
 * name, and its budget and trace carry it), and the model policy keys of SPEC 2.10, which name the stages that call a
 * model (several stations share one key, and some keys name a step inside a station).
 */

export const STATION_NAMES = [
  'intake', 'generate_prd', 'generate_spec', 'decompose_epics', 'generate_tasks', 'provision_epics', 'provision_tasks',
  'answer_question', 'setup_workspace', 'implement_task', 'local_review', 'update_documentation', 'create_pr',
  'teardown_workspace', 'ci_evaluator', 'attempt_ci_fix', 'implement_review', 'code_review', 'rebase', 'complete_tasks',
  'aggregate_epic_status', 'aggregate_feature_status', 'triage_check', 'analyze_bug', 'reflect_rca', 'plan_bug_fix',
  'decompose_plan', 'implement_bug_fix', 'post_merge_summary', 'generate_plan', 'execute_task_changes',
  'run_qualitative_review', 'complete_task_takeover',
] as const;

export type StationName = (typeof STATION_NAMES)[number];

/** The 27 model policy keys of SPEC 2.10, exactly. */
export const MODEL_POLICY_KEYS = [
  'generate_prd', 'generate_spec', 'decompose_epics', 'generate_tasks', 'bug_triage', 'automated_review_triage',
  'proposal_review_triage', 'task_takeover_triage', 'task_takeover_planning', 'implement_work', 'task_takeover_review',
  'task_takeover_question', 'analyze_bug', 'reflect_rca', 'plan_bug_fix', 'bug_local_review', 'local_code_review',
  'code_review', 'implement_review_analysis', 'implement_review_fix', 'generate_pr_description',
  'sync_pr_description', 'ci_analysis', 'ci_fix', 'answer_question', 'rebase', 'update_docs',
] as const;

export type ModelPolicyKey = (typeof MODEL_POLICY_KEYS)[number];
