import type { WorkflowDefinition } from './definition-types';
import { ANSWER_QUESTION, ARTIFACT_GATE_TRIGGERS, DONE, ESCALATE_BLOCKED, reviewAndCi } from './shared-nodes';
import { STAGE_LABEL } from '../vocabulary/labels';
import { TRIGGER } from '../vocabulary/command-words';

/** REFERENCE "Task takeover": a standalone Task or Epic with service:managed, planned, implemented and merged. */
export const TASK_TAKEOVER_DEFINITION: WorkflowDefinition = {
  apiVersion: 'service/v1',
  name: 'task_takeover',
  revision: 3,
  description: 'Triage, a plan to approve, implementation with a qualitative review, review, CI and merge.',
  entry: 'intake',
  nodes: {
    intake: { kind: 'station', station: 'intake', on: { configured: 'triage_check' } },
    triage_check: { kind: 'station', station: 'triage_check', model_key: 'task_takeover_triage', retry_bound: 3, on: { complete: 'generate_plan', incomplete: 'triage_gate' } },
    triage_gate: {
      kind: 'gate', gate: 'triage', feedback_retriages: true, pending_label: STAGE_LABEL.taskTriagePending, accepts: [TRIGGER.ticketUpdate, TRIGGER.question, TRIGGER.feedback],
      waiting_for: 'the missing details: update the ticket or reply with `!` and the details',
      on: { retriage: 'triage_check', feedback: 'triage_check', question: 'answer_question' },
    },
    generate_plan: { kind: 'station', station: 'generate_plan', model_key: 'task_takeover_planning', on: { generated: 'task_plan_approval_gate' } },
    task_plan_approval_gate: {
      kind: 'gate', gate: 'artifact_approval', artifact: 'plan', pending_label: STAGE_LABEL.planPending, approved_label: STAGE_LABEL.planApproved,
      accepts: [TRIGGER.planApproved, TRIGGER.approve, ...ARTIFACT_GATE_TRIGGERS], auto_approve_in_yolo: true,
      waiting_for: 'approval of the plan: add service:plan-approved or comment `/service approve` (`!` to revise)',
      on: { approved: 'task_router', feedback: 'generate_plan', regenerate: 'generate_plan', question: 'answer_question' },
    },
    // One branch per repository the approved plan tags (outputs.generate_plan.repositories).
    task_router: { kind: 'router', router: 'next_repository', repositories_from: 'generate_plan', on: { next: 'setup_workspace', done: 'code_review' } },
    setup_workspace: { kind: 'station', station: 'setup_workspace', on: { ready: 'execute_task_changes' } },
    execute_task_changes: { kind: 'station', station: 'execute_task_changes', model_key: 'implement_work', retry_bound: 100, on: { implemented: 'run_qualitative_review' } },
    run_qualitative_review: {
      kind: 'station', station: 'run_qualitative_review', model_key: 'task_takeover_review', retry_bound: 2, on_exhausted: 'create_pr',
      on: { passed: 'create_pr', changes_needed: 'execute_task_changes' },
    },
    create_pr: { kind: 'station', station: 'create_pr', model_key: 'generate_pr_description', on: { opened: 'teardown_workspace' } },
    teardown_workspace: { kind: 'station', station: 'teardown_workspace', on: { done: 'task_router' } },
    ...reviewAndCi('complete_task_takeover'),
    complete_task_takeover: { kind: 'station', station: 'complete_task_takeover', on: { done: 'done' } },
    answer_question: { ...ANSWER_QUESTION, model_key: 'task_takeover_question' },
    escalate_blocked: ESCALATE_BLOCKED,
    done: DONE,
  },
};
