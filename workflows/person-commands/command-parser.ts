import { decidePullRequestComment, decideTicketComment } from './command-comments';
import { decideCheckRun, decideMergeRequestNote, decidePipeline, decidePullRequestChange, decideReview, pullRequestTarget } from './command-pull-requests';
import { decideTicketUpdate } from './command-ticket-updates';
import type { CommandDecision, CommandPosition } from './command-types';
import type { CommentFact, Observation } from '../ledger/observation';

/**
 * The command boundary (SPEC 2.4, 3.2; DESIGN 5): a pure, deterministic function from an accepted observation and
 * the saved position of the ticket's workflow to a command, an ignore with its reason, or an invalid command with
 * the ❌ reply to post. Provider facts never set the position; a command only says what was asked where it means
 * something, and the workflow carries it out.
 *
 * Workflow code: no I/O, no clock, no randomness; only types come from outside workflows/.
 */

export type { Command, CommandDecision, CommandPosition, CommandType, DraftFields, PullRequestTarget, RetryMode } from './command-types';
export { MEANING, whyNotMeaningful, type Trigger } from './command-meaning';

/**
 * An edited comment is delivered again with a new update time. Carrying it out again would repeat a command that
 * is not idempotent (`/service remove 2` twice removes two items), so only new comments command.
 */
export function isEdit(action: string | undefined, comment: CommentFact): boolean {
  return action === 'edited' || (comment.created !== undefined && comment.updated !== undefined && comment.created !== comment.updated);
}

export function parseCommand(observation: Observation, position: CommandPosition): CommandDecision {
  const facts = observation.facts;
  switch (observation.event) {
    case 'issue_created':
      return { kind: 'ignore', reason: 'issue_created starts the workflow; it is not a command' };
    case 'issue_updated':
      return decideTicketUpdate(facts.label_change, position);
    case 'issue_commented':
      if (!facts.comment) return { kind: 'ignore', reason: 'ticket comment without a body' };
      if (isEdit(facts.action, facts.comment)) return { kind: 'ignore', reason: 'an edited comment is not a new command; write a new comment' };
      return decideTicketComment(facts.comment.body, position);
    case 'issue_comment':
    case 'note':
      if (!facts.comment) return { kind: 'ignore', reason: 'pull-request comment without a body' };
      if (isEdit(facts.action, facts.comment)) return { kind: 'ignore', reason: 'an edited comment is not a new command; write a new comment' };
      if (observation.event === 'note') return decideMergeRequestNote(facts, position);
      return decidePullRequestComment(facts.comment.body, pullRequestTarget(facts), position);
    case 'pull_request_review':
      return decideReview(facts, position);
    case 'check_run':
      return decideCheckRun(facts, position);
    case 'pipeline':
      return decidePipeline(facts, position);
    case 'pull_request':
    case 'merge_request':
      return decidePullRequestChange(facts, position);
    case 'push':
      return { kind: 'ignore', reason: 'a push is seen through its pull request and CI; not a command' };
  }
}
