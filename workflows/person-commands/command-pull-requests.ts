import { whyNotMeaningful, type Trigger } from './command-meaning';
import type { Command, CommandDecision, CommandPosition, PullRequestTarget } from './command-types';
import { decidePullRequestComment } from './command-comments';
import { isServiceCommand } from './command-service-verbs';
import { proposalKindOfBranch } from './proposal-review';
import { proposalGateOf } from '../runtime/node-traits';
import type { ObservationFacts } from '../ledger/observation';
import { TRIGGER } from '../vocabulary/command-words';

/**
 * Source-host facts (GitHub and GitLab): reviews, CI results and pull-request state changes. Proposal pull requests
 * (the PRD and spec under review) and the change's pull requests share events, so the head branch says which is
 * which: a proposal never completes the change, and a change never approves a proposal.
 */

/** GitLab's final pipeline states in GitHub's conclusion words, so CI evaluation reads one vocabulary. */
const PIPELINE_CONCLUSIONS: Readonly<Record<string, string>> = {
  success: 'success',
  failed: 'failure',
  canceled: 'cancelled',
  skipped: 'skipped',
};

const ignore = (reason: string): CommandDecision => ({ kind: 'ignore', reason });

/** The command when the trigger is meaningful here, otherwise the reason it is not. */
function when(trigger: Trigger, position: CommandPosition, command: Command): CommandDecision {
  const notMeaningful = whyNotMeaningful(trigger, position);
  return notMeaningful ? ignore(notMeaningful) : { kind: 'command', command };
}

export function pullRequestTarget(facts: ObservationFacts): PullRequestTarget | undefined {
  const pr = facts.pull_request;
  if (!pr) return undefined;
  return {
    ...(facts.repository ? { repository: facts.repository } : {}),
    number: pr.number,
    ...(pr.head_ref ? { head_ref: pr.head_ref } : {}),
  };
}

/**
 * The proposal a head branch belongs to, if it is a proposal branch: `gate` is the gate of the pinned definition
 * that reviews it (undefined when none does), `name` what reasons call it (that gate, else the kind).
 */
function proposalOf(headRef: string | undefined, position: CommandPosition): { gate: string | undefined; name: string } | undefined {
  const kind = proposalKindOfBranch(headRef);
  if (!kind) return undefined;
  const gate = proposalGateOf(position.gates, kind);
  return { gate, name: gate ?? kind };
}

function aboutProposal(facts: ObservationFacts, position: CommandPosition): string | undefined {
  const proposal = proposalOf(facts.pull_request?.head_ref, position);
  return proposal ? `${facts.pull_request!.head_ref} is a proposal pull request (${proposal.name}), not the change` : undefined;
}

export function decideReview(facts: ObservationFacts, position: CommandPosition): CommandDecision {
  const review = facts.review;
  if (!review) return ignore('review without a state');
  if (facts.action && facts.action !== 'submitted') return ignore(`review ${facts.action} is not a command`);
  const pull_request = pullRequestTarget(facts);
  const proposal = proposalOf(facts.pull_request?.head_ref, position);
  if (proposal) {
    // Proposal review: review comments regenerate the artifact; only the merge (or the label) approves it.
    if (proposal.gate !== position.current_node) return ignore(`a review of the ${proposal.name} proposal is not meaningful at ${position.current_node}`);
    if (review.state === 'approved') return ignore(`an approving review does not approve the proposal; merging its pull request does`);
    return when(TRIGGER.proposalReview, position, { type: 'feedback', text: review.body, via: 'review' });
  }
  const author = review.author ? { author: review.author } : {};
  const target = pull_request ? { pull_request } : {};
  if (review.state === 'approved') return when(TRIGGER.pullRequestReview, position, { type: 'review_approved', review_id: review.id, ...author, ...target });
  // SPEC 3.2: a plain "commented" review is treated as changes_requested.
  return when(TRIGGER.pullRequestReview, position, { type: 'review_changes_requested', review_id: review.id, state: review.state, body: review.body, ...author, ...target });
}

/**
 * A GitLab note on a merge request. `/service` verbs are commands as on GitHub; GitLab has no "changes requested"
 * review, so a person's note on the change's merge request is its review (SPEC 3.2 reads a commented review as
 * changes requested), meaningful where a review is (the review gates and the CI wait). Notes on a proposal merge
 * request and elsewhere are conversation.
 */
export function decideMergeRequestNote(facts: ObservationFacts, position: CommandPosition): CommandDecision {
  const comment = facts.comment!;
  const body = comment.body.trimStart();
  if (isServiceCommand(body)) return decidePullRequestComment(body, pullRequestTarget(facts), position);
  const pull_request = pullRequestTarget(facts);
  if (!pull_request || aboutProposal(facts, position)) return ignore('merge-request conversation, not a command');
  if (whyNotMeaningful(TRIGGER.pullRequestReview, position)) return ignore('merge-request conversation, not a review here');
  return { kind: 'command', command: { type: 'review_changes_requested', review_id: `note:${comment.id}`, state: 'commented', body: comment.body, ...(comment.author ? { author: comment.author } : {}), pull_request } };
}

export function decideCheckRun(facts: ObservationFacts, position: CommandPosition): CommandDecision {
  const run = facts.check_run;
  if (!run) return ignore('check_run without a check');
  if (run.status !== 'completed' || run.conclusion === null) return ignore(`check ${run.name} is ${run.status}, not completed`);
  const proposal = aboutProposal(facts, position);
  if (proposal) return ignore(proposal);
  const pull_request = pullRequestTarget(facts);
  return when(TRIGGER.ciResult, position, {
    type: 'ci_completed', source: 'check_run', check: run.name, conclusion: run.conclusion, head_sha: run.head_sha, ...(pull_request ? { pull_request } : {}),
  });
}

export function decidePipeline(facts: ObservationFacts, position: CommandPosition): CommandDecision {
  const pipeline = facts.pipeline;
  if (!pipeline) return ignore('pipeline without a status');
  const conclusion = PIPELINE_CONCLUSIONS[pipeline.status];
  if (!conclusion) return ignore(`pipeline ${pipeline.id} is ${pipeline.status}, not finished`);
  const proposal = aboutProposal(facts, position);
  if (proposal) return ignore(proposal);
  const pull_request = pullRequestTarget(facts);
  return when(TRIGGER.ciResult, position, {
    type: 'ci_completed', source: 'pipeline', check: 'pipeline', conclusion, head_sha: pipeline.sha, ...(pull_request ? { pull_request } : {}),
  });
}

/** GitHub pull_request and GitLab merge_request: merged, closed, or new commits. */
export function decidePullRequestChange(facts: ObservationFacts, position: CommandPosition): CommandDecision {
  const pr = facts.pull_request;
  const pull_request = pullRequestTarget(facts);
  if (!pr || !pull_request) return ignore('pull request event without a pull request');
  const action = facts.action ?? '';
  const proposal = proposalOf(pr.head_ref, position);

  if (pr.merged === true) {
    if (!proposal) return when(TRIGGER.merged, position, { type: 'pr_merged', pull_request });
    // SPEC 3.2 "proposal branches": merging the PRD or spec proposal approves that artifact, at its own gate only.
    if (proposal.gate !== position.current_node) return ignore(`the ${proposal.name} proposal was merged; not meaningful at ${position.current_node}`);
    return when(TRIGGER.proposalMerged, position, { type: 'approve', gate: position.current_node, via: 'merge' });
  }
  if (action === 'closed' || action === 'close') {
    if (proposal) return ignore(`the ${proposal.name} proposal pull request was closed without merging; the approval label still approves`);
    return when(TRIGGER.closedUnmerged, position, { type: 'pr_closed', pull_request });
  }
  // GitHub says synchronize; GitLab says update (new commits, or an edit of the title: the head SHA tells them apart).
  if ((action === 'synchronize' || action === 'update') && pr.head_sha) {
    if (proposal) return ignore(`a push to the ${proposal.name} proposal is not a command`);
    return when(TRIGGER.push, position, { type: 'pr_synchronized', head_sha: pr.head_sha, pull_request });
  }
  return ignore(`pull request ${action || 'change'} is not a command`);
}
