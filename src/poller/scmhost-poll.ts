import type { NormalisedDelivery } from '../ingress/normalised-delivery';
import { SERVICE_BRANCH_PREFIX } from '../ingress/ticket-routing';
import { normaliseScmhostEvent } from '../ingress/scmhost/normalise-scmhost-event';
import { SCMHOST_EVENT_SCHEMAS, type ScmhostEventName } from '../ingress/scmhost/scmhost-webhook-schema';
import type { ScmhostClient } from '../providers/scmhost/scmhost-client';
import { parseRepoRef } from '../providers/scmhost/repo-ref';
import type { PullRequest, RepoRef } from '../providers/scmhost/scmhost-types';

type Delivery = Extract<NormalisedDelivery, { kind: 'observation' }>;

/**
 * The poller reads the REST API and rebuilds the webhook payload each fact would have had, then runs it through the
 * webhook's own schema and normaliser: one code path, so identities and fingerprints match by construction.
 */
function asWebhook(event: ScmhostEventName, payload: Record<string, unknown>, now: Date): Delivery | undefined {
  const parsed = SCMHOST_EVENT_SCHEMAS[event].safeParse(payload);
  if (!parsed.success) return undefined;
  const result = normaliseScmhostEvent(event, parsed.data as never, { source: 'poller', receivedAt: now });
  return result.kind === 'observation' ? result : undefined;
}

function pullRequestObject(pr: PullRequest) {
  return {
    number: pr.number, title: pr.title, state: pr.state, merged: pr.merged, merge_commit_sha: pr.mergeCommitSha ?? null,
    head: { ref: pr.headRef, sha: pr.headSha }, base: { ref: pr.baseRef }, updated_at: pr.updatedAt, closed_at: pr.closedAt ?? null,
  };
}

/** A fact is in the window when the provider says it happened or changed at or after `since` (unknown: it is). */
function changedSince(time: string | null | undefined, since: Date): boolean {
  const at = time ? Date.parse(time) : NaN;
  return Number.isNaN(at) || at >= since.getTime();
}

type PullRequestReader = Pick<ScmhostClient, 'listReviews' | 'listCheckRuns' | 'listIssueComments'>;

/** The reviews, completed check runs and comments of one pull request made or changed since `since`. */
async function factsOfPullRequest(scmhost: PullRequestReader, ref: RepoRef, repository: { full_name: string }, pr: PullRequest, since: Date, now: Date): Promise<Array<Delivery | undefined>> {
  const pullRequest = pullRequestObject(pr);
  const facts: Array<Delivery | undefined> = [];
  for (const review of await scmhost.listReviews(ref, pr.number)) {
    if (!changedSince(review.submittedAt, since)) continue;
    facts.push(asWebhook('pull_request_review', {
      action: 'submitted',
      review: { id: review.id, state: review.state, body: review.body, commit_id: review.commitId, submitted_at: review.submittedAt, user: review.author ? { login: review.author, id: review.authorId } : null },
      pull_request: pullRequest,
      repository,
    }, now));
  }
  for (const run of await scmhost.listCheckRuns(ref, pr.headSha)) {
    if (run.status !== 'completed' || !changedSince(run.completedAt, since)) continue;
    facts.push(asWebhook('check_run', {
      action: 'completed',
      check_run: {
        id: run.id, name: run.name, status: run.status, conclusion: run.conclusion, head_sha: run.headSha,
        started_at: run.startedAt, completed_at: run.completedAt, pull_requests: [{ number: pr.number, head: { ref: pr.headRef, sha: pr.headSha } }],
      },
      repository,
    }, now));
  }
  for (const comment of await scmhost.listIssueComments(ref, pr.number)) {
    if (!changedSince(comment.updatedAt, since)) continue;
    facts.push(asWebhook('issue_comment', {
      // What GitHub's webhook said when the comment last changed: an edit is not a new comment.
      action: comment.updatedAt && comment.updatedAt !== comment.createdAt ? 'edited' : 'created',
      issue: { number: pr.number, title: pr.title, pull_request: { url: pr.htmlUrl } },
      comment: { id: comment.id, body: comment.body, user: comment.author ? { login: comment.author, id: comment.authorId } : null, created_at: comment.createdAt, updated_at: comment.updatedAt },
      repository,
    }, now));
  }
  return facts;
}

/**
 * The facts of the window (now less `lookbackSeconds`): pull requests on `service/*` branches of the given
 * repositories updated in it, and the reviews, completed check runs and comments of the open ones that were made or
 * changed in it; also the ones merged or closed in it (a lost merge webhook must not leave a ticket waiting for
 * ever), each after the facts of its last moments: a CI result or a review whose webhook was lost just before the
 * merge still reaches the ticket's history (fault campaign, seed 66). An open pull request where nothing happened
 * costs API reads but no delivery.
 */
export async function collectScmhostDeliveries(
  scmhost: Pick<ScmhostClient, 'listOpenPullRequestsByBranchPrefix' | 'listRecentlyClosedPullRequestsByBranchPrefix' | 'listReviews' | 'listCheckRuns' | 'listIssueComments'>,
  repositories: string[],
  options: { now: Date; lookbackSeconds: number },
): Promise<Delivery[]> {
  const deliveries: Delivery[] = [];
  const push = (...found: Array<Delivery | undefined>) => {
    for (const delivery of found) if (delivery) deliveries.push(delivery);
  };
  for (const fullName of repositories) {
    const ref = parseRepoRef(fullName);
    const repository = { full_name: fullName };
    const since = new Date(options.now.getTime() - options.lookbackSeconds * 1000);
    for (const pr of await scmhost.listRecentlyClosedPullRequestsByBranchPrefix(ref, SERVICE_BRANCH_PREFIX, since)) {
      push(...await factsOfPullRequest(scmhost, ref, repository, pr, since, options.now));
      push(asWebhook('pull_request', { action: 'closed', pull_request: pullRequestObject(pr), repository }, options.now));
    }
    for (const pr of await scmhost.listOpenPullRequestsByBranchPrefix(ref, SERVICE_BRANCH_PREFIX)) {
      if (changedSince(pr.updatedAt, since)) push(asWebhook('pull_request', { action: 'synchronize', pull_request: pullRequestObject(pr), repository }, options.now));
      push(...await factsOfPullRequest(scmhost, ref, repository, pr, since, options.now));
    }
  }
  return deliveries;
}
