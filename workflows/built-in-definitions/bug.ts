import type { WorkflowDefinition } from './definition-types';
import { ANSWER_QUESTION, ARTIFACT_GATE_TRIGGERS, DONE, ESCALATE_BLOCKED, reviewAndCi } from './shared-nodes';
import { STAGE_LABEL } from '../vocabulary/labels';
import { TRIGGER } from '../vocabulary/command-words';

/** REFERENCE "Bug": triage, root-cause analysis with fix options, a fix plan, implementation, review and merge. */
export const BUG_DEFINITION: WorkflowDefinition = {
  apiVersion: 'service/v1',
  name: 'bug',
  revision: 3,
  description: 'Triage, RCA with options, fix plan, implementation per repository, review, CI and merge.',
  entry: 'intake',
  nodes: {
    intake: { kind: 'station', station: 'intake', on: { configured: 'triage_check' } },
    triage_check: { kind: 'station', station: 'triage_check', model_key: 'bug_triage', retry_bound: 3, on: { complete: 'analyze_bug', incomplete: 'triage_gate' } },
    triage_gate: {
      kind: 'gate', gate: 'triage', feedback_retriages: true, pending_label: STAGE_LABEL.triagePending, accepts: [TRIGGER.ticketUpdate, TRIGGER.question, TRIGGER.feedback],
      waiting_for: 'the missing details: update the ticket or reply with `!` and the details',
      on: { retriage: 'triage_check', feedback: 'triage_check', question: 'answer_question' },
    },
    analyze_bug: { kind: 'station', station: 'analyze_bug', model_key: 'analyze_bug', on: { analyzed: 'reflect_rca' } },
    // A critique sends the analysis back with it (rounds 1 and 2); in round 3 the flow goes on and the RCA comment
    // says the reflection did not converge (activities/stations/bug/reflect-rca-station.ts).
    reflect_rca: { kind: 'station', station: 'reflect_rca', model_key: 'reflect_rca', on: { done: 'rca_option_gate', critique: 'analyze_bug' } },
    rca_option_gate: {
      kind: 'gate', gate: 'rca_option', artifact: 'rca', pending_label: STAGE_LABEL.rcaPending,
      accepts: [TRIGGER.option, ...ARTIFACT_GATE_TRIGGERS], auto_approve_in_yolo: true,
      waiting_for: 'a fix option: comment `>option N` (or `!` to redo the analysis, `?` to ask)',
      on: { option_selected: 'plan_bug_fix', approved: 'plan_bug_fix', feedback: 'analyze_bug', regenerate: 'analyze_bug', question: 'answer_question' },
    },
    plan_bug_fix: { kind: 'station', station: 'plan_bug_fix', model_key: 'plan_bug_fix', on: { planned: 'plan_approval_gate' } },
    plan_approval_gate: {
      kind: 'gate', gate: 'artifact_approval', artifact: 'fix_plan', pending_label: STAGE_LABEL.planPending, approved_label: STAGE_LABEL.planApproved,
      accepts: [TRIGGER.planApproved, TRIGGER.approve, ...ARTIFACT_GATE_TRIGGERS], auto_approve_in_yolo: true,
      waiting_for: 'approval of the fix plan: add service:plan-approved or comment `/service approve`',
      on: { approved: 'decompose_plan', feedback: 'plan_bug_fix', regenerate: 'plan_bug_fix', question: 'answer_question' },
    },
    decompose_plan: { kind: 'station', station: 'decompose_plan', on: { decomposed: 'task_router' } },
    // One branch per repository of the fix plan (outputs.decompose_plan.repositories), as in the feature graph.
    task_router: { kind: 'router', router: 'next_repository', repositories_from: 'decompose_plan', on: { next: 'setup_workspace', done: 'code_review' } },
    setup_workspace: { kind: 'station', station: 'setup_workspace', on: { ready: 'implement_bug_fix' } },
    implement_bug_fix: { kind: 'station', station: 'implement_bug_fix', model_key: 'implement_work', retry_bound: 100, on: { implemented: 'local_review' } },
    local_review: {
      kind: 'station', station: 'local_review', model_key: 'bug_local_review', retry_bound: 2,
      on: { passed: 'update_documentation', changes_needed: 'implement_bug_fix' },
    },
    update_documentation: { kind: 'station', station: 'update_documentation', model_key: 'update_docs', on: { updated: 'create_pr' } },
    create_pr: { kind: 'station', station: 'create_pr', model_key: 'generate_pr_description', on: { opened: 'teardown_workspace' } },
    teardown_workspace: { kind: 'station', station: 'teardown_workspace', on: { done: 'task_router' } },
    ...reviewAndCi('post_merge_summary'),
    post_merge_summary: { kind: 'station', station: 'post_merge_summary', on: { done: 'done' } },
    answer_question: ANSWER_QUESTION,
    escalate_blocked: ESCALATE_BLOCKED,
    done: DONE,
  },
};
