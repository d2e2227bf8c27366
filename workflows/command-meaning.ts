import type { WorkflowKind } from './observation';
import type { CommandPosition, RetryMode } from './command-types';

/**
 * Where each trigger means something (REFERENCE "Workflow graphs" and "Commands", SPEC 3.2). Data rather than
 * branches: the parser asks `whyNotMeaningful` and records the answer as the ignore reason, so a command outside its
 * positions is recorded and changes nothing (SPEC 2.4).
 */

export const PROPOSAL_GATES = ['prd_approval_gate', 'spec_approval_gate'] as const;
/** Gates holding a draft of numbered items (epics, tasks) in a feature workflow. */
export const DRAFT_GATES = ['plan_approval_gate', 'task_approval_gate'] as const;
/** Gates that pause on a generated artifact until someone approves it. */
export const APPROVAL_GATES = [
  ...PROPOSAL_GATES, 'plan_approval_gate', 'task_approval_gate', 'task_plan_approval_gate', 'rca_option_gate',
] as const;
/** Gates showing something generated: `?` asks about it, `!` asks for a revision. */
export const ARTIFACT_GATES = [...APPROVAL_GATES, 'triage_gate'] as const;
export const REVIEW_GATE = 'human_review_gate';
export const CI_POSITIONS = ['ci_evaluator', 'wait_for_ci_gate', 'attempt_ci_fix'] as const;
/**
 * Everywhere the workflow waits on an open pull request. A merge or close arriving at any of them is final and will
 * not be delivered again, so it must not be dropped just because CI or a review round was running.
 */
export const OPEN_PULL_REQUEST_POSITIONS = [REVIEW_GATE, ...CI_POSITIONS, 'implement_review', 'review_response_gate'] as const;

/** Where a trigger must be written, for comment commands. */
export type WrittenOn = 'ticket' | 'pull_request';

export interface Meaning {
  /** Nodes where the trigger means something; `anywhere` for ticket-wide switches. */
  at: readonly string[] | 'anywhere';
  /** Workflow kinds it applies to; every kind when absent. */
  kinds?: readonly WorkflowKind[];
  /**
   * Still meaningful while the workflow is blocked. Only service:retry moves a blocked workflow (SPEC 3.2), so this
   * is true only for switches that do not move the position (yolo, CI skips needed before a retry, rebase) and for
   * final provider facts that will not come again (merge, close).
   */
  while_blocked: boolean;
  /** A condition of the ticket rather than of the node. */
  needs?: 'pull_request' | 'proposal_review';
  written_on?: WrittenOn;
}

const APPROVES_DRAFT = ['plan_approval_gate', 'task_approval_gate', 'task_plan_approval_gate'] as const;
const CI_AND_REVIEW = [REVIEW_GATE, ...CI_POSITIONS] as const;

/** The table. Keys are the triggers as people know them; they appear in ignore reasons. */
export const MEANING = {
  // Tracker labels (approval labels approve the gate named after them).
  'service:prd-approved': { at: ['prd_approval_gate'], while_blocked: false },
  'service:spec-approved': { at: ['spec_approval_gate'], while_blocked: false },
  'service:plan-approved': { at: ['plan_approval_gate', 'task_plan_approval_gate'], while_blocked: false },
  'service:task-approved': { at: ['task_approval_gate'], while_blocked: false },
  'service:yolo': { at: 'anywhere', while_blocked: true },
  'a ticket update': { at: ['triage_gate'], while_blocked: false },
  // Tracker comments.
  'a question (?)': { at: ARTIFACT_GATES, while_blocked: false },
  'feedback (!)': { at: ARTIFACT_GATES, while_blocked: false },
  'feedback on a draft item (! <n>:)': { at: DRAFT_GATES, kinds: ['feature'], while_blocked: false },
  '>option': { at: ['rca_option_gate'], kinds: ['bug'], while_blocked: false },
  '/service approve': { at: APPROVES_DRAFT, while_blocked: false, written_on: 'ticket' },
  '/service remove': { at: DRAFT_GATES, kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  '/service exclude': { at: DRAFT_GATES, kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  '/service update': { at: DRAFT_GATES, kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  '/service add': { at: DRAFT_GATES, kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  // Pull-request comments (rebase is accepted on the ticket too: it names no check and no line).
  '/service skip-gate': { at: CI_AND_REVIEW, while_blocked: true, written_on: 'pull_request' },
  '/service unskip-gate': { at: CI_AND_REVIEW, while_blocked: true, written_on: 'pull_request' },
  '/service rebase': { at: 'anywhere', while_blocked: true, needs: 'pull_request' },
  // Source-host facts.
  'a pull request review': { at: [REVIEW_GATE], while_blocked: false },
  'a review of the proposal': { at: PROPOSAL_GATES, kinds: ['feature'], while_blocked: false, needs: 'proposal_review' },
  'a CI result': { at: CI_AND_REVIEW, while_blocked: false },
  'a push to the pull request': { at: CI_AND_REVIEW, while_blocked: false },
  'a merged pull request': { at: OPEN_PULL_REQUEST_POSITIONS, while_blocked: true },
  'a merged proposal': { at: PROPOSAL_GATES, kinds: ['feature'], while_blocked: false, needs: 'proposal_review' },
  'a pull request closed without merging': { at: OPEN_PULL_REQUEST_POSITIONS, while_blocked: true },
} as const satisfies Record<string, Meaning>;

export type Trigger = keyof typeof MEANING;

/** Proposal branches (REFERENCE "Source host conventions"), so a late PRD merge cannot approve the spec. */
export const PROPOSAL_BRANCH_PREFIX: Readonly<Record<(typeof PROPOSAL_GATES)[number], string>> = {
  prd_approval_gate: 'service/prd/',
  spec_approval_gate: 'service/spec/',
};

function listed(nodes: readonly string[]): string {
  return nodes.join(', ');
}

/**
 * Why the trigger means nothing at this position, or undefined when it does. `writtenOn` is where a comment command
 * was written; leave it out for labels and provider facts.
 */
export function whyNotMeaningful(trigger: Trigger, position: CommandPosition, writtenOn?: WrittenOn): string | undefined {
  const meaning: Meaning = MEANING[trigger];
  const node = position.current_node;
  if (writtenOn && meaning.written_on && meaning.written_on !== writtenOn) {
    return meaning.written_on === 'ticket'
      ? `${trigger} is a ticket comment command; it means nothing on a pull request`
      : `${trigger} is a pull-request comment command; it means nothing on the ticket`;
  }
  if (meaning.at !== 'anywhere' && !meaning.at.includes(node)) {
    return `${trigger} is not meaningful at ${node} (only at ${listed(meaning.at)})`;
  }
  if (meaning.kinds && !meaning.kinds.includes(position.workflow_kind)) {
    return `${trigger} is not meaningful at ${node} in a ${position.workflow_kind} workflow`;
  }
  if (position.is_blocked && !meaning.while_blocked) {
    return `${trigger} is not meaningful while the workflow is blocked at ${node}; add service:retry to resume first`;
  }
  if (meaning.needs === 'pull_request' && !position.has_pull_request) return `${trigger} needs a pull request; the ticket has none yet`;
  if (meaning.needs === 'proposal_review' && !position.proposal_review) return `${trigger} is not meaningful: proposal review is off`;
  return undefined;
}

/**
 * What service:retry means, first match wins. Blocked comes first: a gate that failed (say, posting its artifact)
 * resumes rather than regenerates.
 */
export const RETRY_MEANING: ReadonlyArray<{ mode: RetryMode; when: { blocked?: true; at?: readonly string[]; paused?: true } }> = [
  { mode: 'resume', when: { blocked: true } },
  { mode: 'review_response', when: { at: ['review_response_gate'] } },
  { mode: 'regenerate', when: { at: APPROVAL_GATES, paused: true } },
];

export function retryMode(position: CommandPosition): RetryMode | undefined {
  const row = RETRY_MEANING.find(({ when }) =>
    (!when.blocked || position.is_blocked) && (!when.at || when.at.includes(position.current_node)) && (!when.paused || position.is_paused));
  return row?.mode;
}
