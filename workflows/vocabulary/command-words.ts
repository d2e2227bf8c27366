import { RETRY_LABEL, STAGE_LABEL, STOP_LABEL, YOLO_LABEL } from './labels';

/**
 * The words a person commands the service with (REFERENCE "Commands"), defined here once. The comment grammar
 * (workflows/person-commands/command-comments.ts, command-service-verbs.ts) and the neutraliser of posted text
 * (src/redaction/neutralise-commands.ts) read these words; test/unit/workflows/vocabulary/vocabulary.test.ts checks
 * that both recognise every one of them.
 */

/** `/service <verb>` on the ticket or on a pull request. */
export const SERVICE_COMMAND_PREFIX = '/service';
export const SERVICE_VERBS = ['approve', 'remove', 'exclude', 'update', 'add', 'skip-gate', 'unskip-gate', 'stop', 'rebase'] as const;
export type ServiceVerb = (typeof SERVICE_VERBS)[number];

/** At the start of a ticket comment: a question, and its spelled-out form. */
export const QUESTION_MARK = '?';
export const ASK_MENTION = '@service ask';
/** At the start of a ticket comment: feedback on what the gate shows (`! <n>:` narrows it to a draft item). */
export const FEEDBACK_MARK = '!';
/** Anywhere in a ticket comment on a bug's analysis: `>option N` picks fix option N. */
export const OPTION_WORD = '>option';

/**
 * Triggers: every request and provider fact as a definition's gate names it in `accepts`, and as ignore reasons and
 * replies name it to people. The label triggers are the labels themselves.
 */
export const TRIGGER = {
  prdApproved: STAGE_LABEL.prdApproved,
  specApproved: STAGE_LABEL.specApproved,
  planApproved: STAGE_LABEL.planApproved,
  taskApproved: STAGE_LABEL.taskApproved,
  yolo: YOLO_LABEL,
  stopLabel: STOP_LABEL,
  retryAtPausedGate: `${RETRY_LABEL} at a paused gate`,
  retryAtReviewResponseGate: `${RETRY_LABEL} at review_response_gate`,
  ticketUpdate: 'a ticket update',
  question: `a question (${QUESTION_MARK})`,
  feedback: `feedback (${FEEDBACK_MARK})`,
  draftItemFeedback: `feedback on a draft item (${FEEDBACK_MARK} <n>:)`,
  option: OPTION_WORD,
  approve: `${SERVICE_COMMAND_PREFIX} approve`,
  remove: `${SERVICE_COMMAND_PREFIX} remove`,
  exclude: `${SERVICE_COMMAND_PREFIX} exclude`,
  update: `${SERVICE_COMMAND_PREFIX} update`,
  add: `${SERVICE_COMMAND_PREFIX} add`,
  skipGate: `${SERVICE_COMMAND_PREFIX} skip-gate`,
  unskipGate: `${SERVICE_COMMAND_PREFIX} unskip-gate`,
  rebase: `${SERVICE_COMMAND_PREFIX} rebase`,
  stopCommand: `${SERVICE_COMMAND_PREFIX} stop`,
  pullRequestReview: 'a pull request review',
  proposalReview: 'a review of the proposal',
  ciResult: 'a CI result',
  push: 'a push to the pull request',
  merged: 'a merged pull request',
  proposalMerged: 'a merged proposal',
  closedUnmerged: 'a pull request closed without merging',
} as const;

export type Trigger = (typeof TRIGGER)[keyof typeof TRIGGER];
