import type { WorkflowDefinition } from './definition-types';
import { ANSWER_QUESTION, ARTIFACT_GATE_TRIGGERS, DONE, DRAFT_TRIGGERS, ESCALATE_BLOCKED, reviewAndCi } from './shared-nodes';
import { STAGE_LABEL } from '../vocabulary/labels';
import { TRIGGER } from '../vocabulary/command-words';

/** REFERENCE "Feature" (issue types Feature and Story), after the intake check of the project's configuration. */
export const FEATURE_DEFINITION: WorkflowDefinition = {
  apiVersion: 'service/v1',
  name: 'feature',
  revision: 2,
  description: 'PRD, spec, epic plan and tasks with human gates; implementation per repository; review, CI and merge.',
  entry: 'intake',
  nodes: {
    intake: { kind: 'station', station: 'intake', on: { configured: 'generate_prd' } },
    generate_prd: { kind: 'station', station: 'generate_prd', model_key: 'generate_prd', on: { generated: 'prd_approval_gate' } },
    prd_approval_gate: {
      kind: 'gate', gate: 'artifact_approval', artifact: 'prd', pending_label: STAGE_LABEL.prdPending, approved_label: STAGE_LABEL.prdApproved, reviews_proposal: 'prd',
      accepts: [TRIGGER.prdApproved, ...ARTIFACT_GATE_TRIGGERS, TRIGGER.proposalReview, TRIGGER.proposalMerged], auto_approve_in_yolo: true,
      waiting_for: 'approval of the PRD: add the label service:prd-approved (or comment `!` to revise, `?` to ask)',
      on: { approved: 'generate_spec', feedback: 'generate_prd', regenerate: 'generate_prd', question: 'answer_question' },
    },
    generate_spec: { kind: 'station', station: 'generate_spec', model_key: 'generate_spec', on: { generated: 'spec_approval_gate' } },
    spec_approval_gate: {
      kind: 'gate', gate: 'artifact_approval', artifact: 'spec', pending_label: STAGE_LABEL.specPending, approved_label: STAGE_LABEL.specApproved, reviews_proposal: 'spec',
      accepts: [TRIGGER.specApproved, ...ARTIFACT_GATE_TRIGGERS, TRIGGER.proposalReview, TRIGGER.proposalMerged], auto_approve_in_yolo: true,
      waiting_for: 'approval of the spec: add the label service:spec-approved (or comment `!` to revise, `?` to ask)',
      on: { approved: 'decompose_epics', feedback: 'generate_spec', regenerate: 'generate_spec', question: 'answer_question' },
    },
    decompose_epics: { kind: 'station', station: 'decompose_epics', model_key: 'decompose_epics', on: { generated: 'plan_approval_gate' } },
    plan_approval_gate: {
      kind: 'gate', gate: 'draft_approval', artifact: 'plan', pending_label: STAGE_LABEL.planPending, approved_label: STAGE_LABEL.planApproved,
      accepts: [TRIGGER.planApproved, TRIGGER.approve, ...ARTIFACT_GATE_TRIGGERS, ...DRAFT_TRIGGERS], auto_approve_in_yolo: true,
      waiting_for: 'approval of the epic plan: add service:plan-approved or comment `/service approve` (edit with /service remove|exclude|update|add)',
      on: { approved: 'provision_epics', feedback: 'decompose_epics', regenerate: 'decompose_epics', question: 'answer_question' },
    },
    provision_epics: { kind: 'station', station: 'provision_epics', on: { provisioned: 'generate_tasks' } },
    generate_tasks: { kind: 'station', station: 'generate_tasks', model_key: 'generate_tasks', on: { generated: 'task_approval_gate' } },
    task_approval_gate: {
      kind: 'gate', gate: 'draft_approval', artifact: 'tasks', pending_label: STAGE_LABEL.taskPending, approved_label: STAGE_LABEL.taskApproved,
      accepts: [TRIGGER.taskApproved, TRIGGER.approve, ...ARTIFACT_GATE_TRIGGERS, ...DRAFT_TRIGGERS], auto_approve_in_yolo: true,
      waiting_for: 'approval of the tasks: add service:task-approved or comment `/service approve` (edit with /service remove|exclude|update|add)',
      on: { approved: 'provision_tasks', feedback: 'generate_tasks', regenerate: 'generate_tasks', question: 'answer_question' },
    },
    provision_tasks: { kind: 'station', station: 'provision_tasks', on: { provisioned: 'task_router' } },
    task_router: { kind: 'router', router: 'next_repository', repositories_from: 'provision_tasks', on: { next: 'setup_workspace', done: 'code_review' } },
    setup_workspace: { kind: 'station', station: 'setup_workspace', on: { ready: 'implement_task' } },
    implement_task: { kind: 'station', station: 'implement_task', model_key: 'implement_work', retry_bound: 100, on: { implemented: 'local_review' } },
    local_review: {
      kind: 'station', station: 'local_review', model_key: 'local_code_review', retry_bound: 2,
      on: { passed: 'update_documentation', changes_needed: 'implement_task' },
    },
    update_documentation: { kind: 'station', station: 'update_documentation', model_key: 'update_docs', on: { updated: 'create_pr' } },
    create_pr: { kind: 'station', station: 'create_pr', model_key: 'generate_pr_description', on: { opened: 'teardown_workspace' } },
    teardown_workspace: { kind: 'station', station: 'teardown_workspace', on: { done: 'task_router' } },
    ...reviewAndCi('complete_tasks'),
    complete_tasks: { kind: 'station', station: 'complete_tasks', on: { done: 'aggregate_epic_status' } },
    aggregate_epic_status: { kind: 'station', station: 'aggregate_epic_status', on: { done: 'aggregate_feature_status' } },
    aggregate_feature_status: { kind: 'station', station: 'aggregate_feature_status', on: { done: 'done' } },
    answer_question: ANSWER_QUESTION,
    escalate_blocked: ESCALATE_BLOCKED,
    done: DONE,
  },
};
