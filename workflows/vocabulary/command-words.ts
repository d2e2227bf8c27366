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
 * Triggers: every request and provider fact as a definition's gate names it in `accepts` (issue 44, point 2). A
 * trigger is a stable id; what people read is its label (TRIGGER_LABEL). Definitions are data that tickets pin for
 * their whole life and operators publish as JSON, so the id is what they store: rewording a label must never change
 * what a running ticket accepts. Bodies written before the ids name triggers by their label; `triggerIdOf` reads those
 * as the id, so they keep working.
 */
export const TRIGGER = {
  prdApproved: 'prd_approved',
  specApproved: 'spec_approved',
  planApproved: 'plan_approved',
  taskApproved: 'task_approved',
  yolo: 'yolo',
  stopLabel: 'stop_label',
  retryAtPausedGate: 'retry_at_paused_gate',
  // Not named after a node: the gate that accepts it is whichever node says so in its definition.
  retryAtReviewResponseGate: 'retry_at_review_response',
  ticketUpdate: 'ticket_update',
  question: 'question',
  feedback: 'feedback',
  draftItemFeedback: 'draft_item_feedback',
  option: 'option',
  approve: 'approve',
  remove: 'remove',
  exclude: 'exclude',
  update: 'update',
  add: 'add',
  skipGate: 'skip_gate',
  unskipGate: 'unskip_gate',
  rebase: 'rebase',
  stopCommand: 'stop_command',
  pullRequestReview: 'pull_request_review',
  proposalReview: 'proposal_review',
  ciResult: 'ci_result',
  push: 'push',
  merged: 'merged',
  proposalMerged: 'proposal_merged',
  closedUnmerged: 'closed_unmerged',
} as const;

export type TriggerId = (typeof TRIGGER)[keyof typeof TRIGGER];

/**
 * What people see for each trigger: in ignore reasons, replies, "commands accepted here" and `permitted_commands`.
 * These are the words every trigger was before it had an id, so what people read did not change, and they are the
 * legacy spelling `triggerIdOf` still reads in `accepts`. The label triggers are the labels themselves.
 */
export const TRIGGER_LABEL: Readonly<Record<TriggerId, string>> = {
  [TRIGGER.prdApproved]: STAGE_LABEL.prdApproved,
  [TRIGGER.specApproved]: STAGE_LABEL.specApproved,
  [TRIGGER.planApproved]: STAGE_LABEL.planApproved,
  [TRIGGER.taskApproved]: STAGE_LABEL.taskApproved,
  [TRIGGER.yolo]: YOLO_LABEL,
  [TRIGGER.stopLabel]: STOP_LABEL,
  [TRIGGER.retryAtPausedGate]: `${RETRY_LABEL} at a paused gate`,
  [TRIGGER.retryAtReviewResponseGate]: `${RETRY_LABEL} at review_response_gate`,
  [TRIGGER.ticketUpdate]: 'a ticket update',
  [TRIGGER.question]: `a question (${QUESTION_MARK})`,
  [TRIGGER.feedback]: `feedback (${FEEDBACK_MARK})`,
  [TRIGGER.draftItemFeedback]: `feedback on a draft item (${FEEDBACK_MARK} <n>:)`,
  [TRIGGER.option]: OPTION_WORD,
  [TRIGGER.approve]: `${SERVICE_COMMAND_PREFIX} approve`,
  [TRIGGER.remove]: `${SERVICE_COMMAND_PREFIX} remove`,
  [TRIGGER.exclude]: `${SERVICE_COMMAND_PREFIX} exclude`,
  [TRIGGER.update]: `${SERVICE_COMMAND_PREFIX} update`,
  [TRIGGER.add]: `${SERVICE_COMMAND_PREFIX} add`,
  [TRIGGER.skipGate]: `${SERVICE_COMMAND_PREFIX} skip-gate`,
  [TRIGGER.unskipGate]: `${SERVICE_COMMAND_PREFIX} unskip-gate`,
  [TRIGGER.rebase]: `${SERVICE_COMMAND_PREFIX} rebase`,
  [TRIGGER.stopCommand]: `${SERVICE_COMMAND_PREFIX} stop`,
  [TRIGGER.pullRequestReview]: 'a pull request review',
  [TRIGGER.proposalReview]: 'a review of the proposal',
  [TRIGGER.ciResult]: 'a CI result',
  [TRIGGER.push]: 'a push to the pull request',
  [TRIGGER.merged]: 'a merged pull request',
  [TRIGGER.proposalMerged]: 'a merged proposal',
  [TRIGGER.closedUnmerged]: 'a pull request closed without merging',
};

export const TRIGGER_IDS: readonly TriggerId[] = Object.values(TRIGGER);

/** Every spelling `accepts` may use, id or legacy label, → the id. A Map: an entry such as `constructor` finds nothing. */
const ID_OF_ENTRY: ReadonlyMap<string, TriggerId> = new Map<string, TriggerId>([
  ...TRIGGER_IDS.map((id) => [id, id] as const),
  ...TRIGGER_IDS.map((id) => [TRIGGER_LABEL[id], id] as const),
]);

/** The trigger an `accepts` entry names, by its id or by its legacy label (its prose before ids); undefined when none. */
export function triggerIdOf(entry: string): TriggerId | undefined {
  return ID_OF_ENTRY.get(entry);
}

/** An `accepts` entry as the runtime reads it: the id of a known trigger, an unknown entry unchanged. */
export function acceptsEntryOf(entry: string): string {
  return triggerIdOf(entry) ?? entry;
}

/** What people read for an `accepts` entry (id or legacy label): the trigger's label, an unknown entry unchanged. */
export function triggerLabelOf(entry: string): string {
  const id = triggerIdOf(entry);
  return id === undefined ? entry : TRIGGER_LABEL[id];
}
