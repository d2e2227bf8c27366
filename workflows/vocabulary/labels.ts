/**
 * Every label the service reads or writes on a ticket (SPEC 3.1, REFERENCE "Tracker conventions"), defined here
 * once: the gateway, the poller, the stations and the workflows import them. A test
 * (test/unit/workflows/vocabulary/vocabulary.test.ts) fails when a label is spelled out anywhere else in product code.
 */

/** The prefix of every label of the service; a person's label without it is not a command. */
export const SERVICE_LABEL_PREFIX = 'service:';

/** Puts a ticket under the service (the moment it is added is when the service took the ticket). */
export const MANAGED_LABEL = 'service:managed';
/** Autonomous mode: approval gates pass by themselves. */
export const YOLO_LABEL = 'service:yolo';
/** Set by the service while a ticket is blocked. */
export const BLOCKED_LABEL = 'service:blocked';
/** A person's "go on": lifts a block, or regenerates at a paused gate. */
export const RETRY_LABEL = 'service:retry';
/** The kill switch. */
export const STOP_LABEL = 'service:stop';

/** The stage labels by stage: a ticket carries exactly one of them at a time. */
export const STAGE_LABEL = {
  prdPending: 'service:prd-pending',
  prdApproved: 'service:prd-approved',
  specPending: 'service:spec-pending',
  specApproved: 'service:spec-approved',
  planPending: 'service:plan-pending',
  planApproved: 'service:plan-approved',
  taskPending: 'service:task-pending',
  taskApproved: 'service:task-approved',
  triagePending: 'service:triage-pending',
  rcaPending: 'service:rca-pending',
  taskTriagePending: 'service:task-triage-pending',
} as const;

export const STAGE_LABELS = Object.values(STAGE_LABEL);

export type StageLabel = (typeof STAGE_LABEL)[keyof typeof STAGE_LABEL];

/** The labels a person adds to approve the gate named after them. */
export const APPROVAL_LABELS = [STAGE_LABEL.prdApproved, STAGE_LABEL.specApproved, STAGE_LABEL.planApproved, STAGE_LABEL.taskApproved] as const;

/** `repo:<owner>/<repo>`: the repository a ticket's change goes to (SPEC 2.8). */
export const REPO_LABEL_PREFIX = 'repo:';

/**
 * Labels of the sub-tickets the service provisions: `service:parent:<feature>` routes events on a child to its
 * feature's workflow; the item labels name one draft item of one feature and the fix label one bug's fix per
 * repository, so provisioning finds what it created before instead of creating it twice.
 */
export const PARENT_LABEL_PREFIX = 'service:parent:';
export const EPIC_ITEM_LABEL_PREFIX = 'service:epic-item:';
export const TASK_ITEM_LABEL_PREFIX = 'service:task-item:';
export const FIX_LABEL_PREFIX = 'service:fix:';
