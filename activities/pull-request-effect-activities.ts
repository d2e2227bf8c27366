import { parseRepoRef } from '../src/providers/scmhost/repo-ref';
import { RetryableProviderError } from '../src/providers/provider-errors';
import type { ScmhostClient } from '../src/providers/scmhost/scmhost-client';
import { redactSecrets } from '../src/redaction/redact-secrets';
import type { EffectOperation, ProviderEvidence } from '../workflows/effects/effect-types';
import { formatPullRequestRef } from '../workflows/vocabulary/pull-request-ref';

export type OpenPullRequestOperation = Extract<EffectOperation, { kind: 'scmhost.open_pr' }>;
export type UpdatePullRequestOperation = Extract<EffectOperation, { kind: 'scmhost.update_pr' }>;
export type ReviewReplyOperation = Extract<EffectOperation, { kind: 'scmhost.review_reply' }>;
export type PullRequestReviewOperation = Extract<EffectOperation, { kind: 'scmhost.pr_review' }>;
export type PullRequestEffectClient = Pick<ScmhostClient, 'findPullRequestByHeadBranch' | 'createPullRequest' | 'getRepository' | 'createFork' | 'getPullRequest' | 'updatePullRequest'
  | 'findReviewCommentByIdempotencyKey' | 'replyToReviewComment' | 'findReviewByIdempotencyKey' | 'createReview'>;

function opened(repository: string, number: number, url: string, adopted: boolean, note?: string): ProviderEvidence {
  return { provider: 'scmhost', ids: { pull_request: formatPullRequestRef(repository, number, 'github'), number: String(number) }, url, ...(adopted ? { adopted: true } : {}), ...(note ? { note } : {}) };
}

/**
 * `scmhost.open_pr` on GitHub: the open pull request of the head branch is found first and adopted, so a repeat (a
 * crash after GitHub created it, a retried station, a revision pushed to the branch) never opens a second one. In
 * `fork` mode the head lives on the service account's fork (`<fork owner>:<branch>`); creating the fork is
 * idempotent on GitHub and tells the owner.
 */
export async function openPullRequestOnce(client: PullRequestEffectClient, operation: OpenPullRequestOperation): Promise<ProviderEvidence> {
  const ref = parseRepoRef(operation.repository);
  const headOwner = operation.mode === 'fork' ? (await client.createFork(ref)).fullName.split('/')[0] : undefined;
  const open = await client.findPullRequestByHeadBranch(ref, operation.head, { state: 'open', ...(headOwner ? { headOwner } : {}) });
  if (open) return opened(operation.repository, open.number, open.htmlUrl, true, 'an open pull request of this branch exists; adopted');
  const base = operation.base ?? (await client.getRepository(ref)).defaultBranch;
  const created = await client.createPullRequest(ref, {
    title: operation.title, body: redactSecrets(operation.body), head: headOwner ? `${headOwner}:${operation.head}` : operation.head, base, draft: operation.draft ?? false,
  });
  return opened(operation.repository, created.number, created.htmlUrl, false);
}

/** `scmhost.update_pr`: sets the title and/or description; when they are already as wanted, adopts. */
export async function updatePullRequestOnce(client: PullRequestEffectClient, operation: UpdatePullRequestOperation): Promise<ProviderEvidence> {
  const ref = parseRepoRef(operation.repository);
  const current = await client.getPullRequest(ref, operation.number);
  const body = operation.body === undefined ? undefined : redactSecrets(operation.body);
  const changes = {
    ...(operation.title !== undefined && operation.title !== current.title ? { title: operation.title } : {}),
    ...(body !== undefined && body !== current.body ? { body } : {}),
  };
  if (Object.keys(changes).length === 0) return { ...opened(operation.repository, operation.number, current.htmlUrl, true, 'title and description were already as wanted') };
  const updated = await client.updatePullRequest(ref, operation.number, changes);
  return opened(operation.repository, updated.number, updated.htmlUrl, false);
}

/**
 * The web link of the pull request of `operation.head` (open or closed). Not opened yet is a retryable failure: the
 * effect that opens it runs first, and GitHub's list may lag its write for a moment.
 */
export async function pullRequestUrl(client: PullRequestEffectClient, operation: { repository: string; head: string; mode?: 'direct' | 'fork' }): Promise<string> {
  const ref = parseRepoRef(operation.repository);
  const headOwner = operation.mode === 'fork' ? (await client.createFork(ref)).fullName.split('/')[0] : undefined;
  const pull = await client.findPullRequestByHeadBranch(ref, operation.head, { state: 'all', ...(headOwner ? { headOwner } : {}) });
  if (!pull) {
    throw new RetryableProviderError(`no pull request for ${operation.head} in ${operation.repository} yet`, { provider: 'scmhost', operation: 'findPullRequestByHeadBranch', method: 'GET', path: `/repos/${operation.repository}/pulls` });
  }
  return pull.htmlUrl;
}

/**
 * `scmhost.review_reply`: one reply in a review thread. The reply carries the effect's key in a hidden marker, so a
 * repeat after an unknown outcome finds it among the pull request's review comments and adopts it: only the
 * service's own, as anyone may reply with a copied marker.
 */
export async function replyInReviewThreadOnce(client: PullRequestEffectClient, operation: ReviewReplyOperation, key: string): Promise<ProviderEvidence> {
  const ref = parseRepoRef(operation.repository);
  const earlier = await client.findReviewCommentByIdempotencyKey(ref, operation.number, key);
  if (earlier) return { provider: 'scmhost', ids: { comment_id: String(earlier.id) }, url: earlier.htmlUrl, adopted: true };
  const reply = await client.replyToReviewComment(ref, operation.number, Number(operation.comment_id), redactSecrets(operation.body), { idempotencyKey: key });
  return { provider: 'scmhost', ids: { comment_id: String(reply.id) }, url: reply.htmlUrl };
}

/** `scmhost.pr_review`: one review by the service's account, found again by its marker (and its author) on a repeat. */
export async function submitReviewOnce(client: PullRequestEffectClient, operation: PullRequestReviewOperation, key: string): Promise<ProviderEvidence> {
  const ref = parseRepoRef(operation.repository);
  const earlier = await client.findReviewByIdempotencyKey(ref, operation.number, key);
  if (earlier) return { provider: 'scmhost', ids: { review_id: String(earlier.id) }, url: earlier.htmlUrl, adopted: true };
  const review = await client.createReview(ref, operation.number, {
    event: operation.event, body: redactSecrets(operation.body), idempotencyKey: key,
    ...(operation.comments ? { comments: operation.comments.map((c) => ({ ...c, body: redactSecrets(c.body) })) } : {}),
  });
  return { provider: 'scmhost', ids: { review_id: String(review.id) }, url: review.htmlUrl };
}
