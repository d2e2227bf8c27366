import type { DefinitionNode, StationNode } from './definition-types';
import { TRIGGER } from '../vocabulary/command-words';

/**
 * Node shapes the three built-in graphs share (REFERENCE "Workflow graphs"): the question detour, the ways out, and
 * what the pull-request positions accept. Plain data.
 */

export const ARTIFACT_GATE_TRIGGERS = [TRIGGER.question, TRIGGER.feedback, TRIGGER.retryAtPausedGate];
export const DRAFT_TRIGGERS = [TRIGGER.draftItemFeedback, TRIGGER.remove, TRIGGER.exclude, TRIGGER.update, TRIGGER.add];
export const PULL_REQUEST_FINAL_TRIGGERS = [TRIGGER.merged, TRIGGER.closedUnmerged];
export const CI_TRIGGERS = [TRIGGER.ciResult, TRIGGER.push, ...PULL_REQUEST_FINAL_TRIGGERS, TRIGGER.skipGate, TRIGGER.unskipGate];

export const ANSWER_QUESTION: StationNode = { kind: 'station', station: 'answer_question', model_key: 'answer_question', on: { answered: '$return' } };
export const ESCALATE_BLOCKED: DefinitionNode = {
  kind: 'end', result: 'blocked', code: 'retry_bound_exhausted', message: 'a step ran out of attempts; add service:retry to try it again',
};
export const PULL_REQUEST_CLOSED: DefinitionNode = {
  kind: 'end', result: 'blocked', code: 'pull_request_closed', message: 'the pull request was closed without merging; reopen it and add service:retry',
};
export const DONE: DefinitionNode = { kind: 'end', result: 'completed' };

/** Review, CI and merge: the same in all three graphs from human_review_gate on. `merged` leads to `afterMerge`. */
export function reviewAndCi(afterMerge: string): Record<string, DefinitionNode> {
  const final = { merged: afterMerge, closed: 'pull_request_closed' };
  return {
    // The service reviews its own pull requests once before a person is asked to (policy key code_review).
    code_review: { kind: 'station', station: 'code_review', model_key: 'code_review', accepts: PULL_REQUEST_FINAL_TRIGGERS, on: { reviewed: 'human_review_gate' } },
    // `/service rebase` from wherever the ticket stands with a pull request; it returns there (workflows/runtime/rebase-decision.ts).
    rebase: { kind: 'station', station: 'rebase', model_key: 'rebase', takes_rebase_target: true, accepts: PULL_REQUEST_FINAL_TRIGGERS, on: { rebased: '$return' } },
    human_review_gate: {
      kind: 'gate', gate: 'human_review', waiting_for: 'a review of the pull request (approve, or request changes)',
      accepts: [TRIGGER.pullRequestReview, ...CI_TRIGGERS],
      // SPEC 3.2: an approval goes to completion (the workflow waits until every pull request of the ticket is
      // approved or merged; workflows/runtime/merge-progress.ts).
      on: { review_approved: afterMerge, changes_requested: 'implement_review', ci_event: 'ci_evaluator', ...final },
    },
    ci_evaluator: {
      kind: 'station', station: 'ci_evaluator', resets_ci_fix_attempts_on: 'pass', accepts: CI_TRIGGERS,
      on: { pass: 'human_review_gate', fail: 'attempt_ci_fix', wait: 'wait_for_ci_gate' },
    },
    wait_for_ci_gate: {
      // A person may review while CI still runs (or where no CI reports at all): the review counts as at the review gate.
      kind: 'gate', gate: 'ci_wait', waiting_for: 'the pull request\'s checks to finish, or a review', accepts: [TRIGGER.pullRequestReview, ...CI_TRIGGERS],
      on: { review_approved: afterMerge, changes_requested: 'implement_review', ci_event: 'ci_evaluator', ...final },
    },
    attempt_ci_fix: {
      kind: 'station', station: 'attempt_ci_fix', model_key: 'ci_fix', retry_bound: 5, exhausted_code: 'ci_fix_limit', counts_ci_fix_attempt: true, accepts: CI_TRIGGERS,
      on: { fixed: 'ci_evaluator' },
    },
    implement_review: {
      kind: 'station', station: 'implement_review', model_key: 'implement_review_analysis', retry_bound: 3, accepts: PULL_REQUEST_FINAL_TRIGGERS,
      on: { addressed: 'human_review_gate', contested: 'review_response_gate' },
    },
    review_response_gate: {
      kind: 'gate', gate: 'review_response', waiting_for: 'a reply in the contested review threads, or service:retry', retry_to: 'human_review_gate',
      // A reviewer's answer in a thread arrives as a (commented) review: the answers are read again. An approval
      // settles the contested points as they stand.
      accepts: [TRIGGER.pullRequestReview, ...PULL_REQUEST_FINAL_TRIGGERS, TRIGGER.retryAtReviewResponseGate],
      on: { review_approved: afterMerge, changes_requested: 'implement_review', ...final },
    },
    pull_request_closed: PULL_REQUEST_CLOSED,
  };
}
