import { factFingerprint } from '../fact-fingerprint';
import { isoOrNull, type NormalisedDelivery, type NormaliseOptions } from '../normalised-delivery';
import type { ScmhostEventName, ScmhostPayload } from './scmhost-webhook-schema';
import { sourceHostUserId } from '../../../workflows/person-commands/actor-identity';
import { formatPullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';

const REVIEW_STATES = new Set(['approved', 'changes_requested', 'commented']);

function base(options: NormaliseOptions) {
  return {
    source: options.source ?? 'webhook',
    source_system: 'scmhost' as const,
    received_at: (options.receivedAt ?? new Date()).toISOString(),
  };
}

/** The numeric user ids of the people a delivery names (`github-id:<id>`), for the allowed-actor check. */
function userIds(...users: Array<{ id?: number } | null | undefined>): { actor_ids?: string[] } {
  const ids = [...new Set(users.flatMap((user) => (user?.id !== undefined ? [sourceHostUserId('scmhost', user.id)] : [])))];
  return ids.length > 0 ? { actor_ids: ids } : {};
}

/**
 * Turns a validated GitHub webhook into an observation. Identities are provider facts: a PR's head SHA or merge
 * commit, a review id and state, a check run id with status and conclusion, a comment id with its update time; the
 * poller reading the same facts from the REST API builds the same identities.
 */
export function normaliseScmhostEvent<E extends ScmhostEventName>(event: E, payload: ScmhostPayload<E>, options: NormaliseOptions = {}): NormalisedDelivery {
  switch (event) {
    case 'pull_request': return normalisePullRequest(payload as ScmhostPayload<'pull_request'>, options);
    case 'pull_request_review': return normaliseReview(payload as ScmhostPayload<'pull_request_review'>, options);
    case 'check_run': return normaliseCheckRun(payload as ScmhostPayload<'check_run'>, options);
    default: return normaliseComment(payload as ScmhostPayload<'issue_comment'>, options);
  }
}

/** The identity of a pull-request fact, shared with the poller. */
export function pullRequestFactIdentity(repository: string, pr: { number: number; head_sha?: string; merged?: boolean; merge_commit_sha?: string | null; state: string; closed_at?: string | null }): { identity: string; content: Record<string, unknown> } {
  const ref = formatPullRequestRef(repository, pr.number, 'github');
  if (pr.merged) return { identity: `scmhost:pr:${ref}:merged:${pr.merge_commit_sha ?? 'unknown'}`, content: { pr: ref, merged: true, merge_commit_sha: pr.merge_commit_sha ?? null } };
  if (pr.state === 'closed') return { identity: `scmhost:pr:${ref}:closed@${isoOrNull(pr.closed_at) ?? 'unknown'}`, content: { pr: ref, closed_at: isoOrNull(pr.closed_at) } };
  return { identity: `scmhost:pr:${ref}:head:${pr.head_sha ?? 'unknown'}`, content: { pr: ref, head_sha: pr.head_sha ?? null } };
}

function normalisePullRequest(payload: ScmhostPayload<'pull_request'>, options: NormaliseOptions): NormalisedDelivery {
  if (!['opened', 'reopened', 'synchronize', 'closed'].includes(payload.action)) {
    return { kind: 'unsupported', reason: `pull_request action "${payload.action}" is not used` };
  }
  const pr = payload.pull_request;
  const repository = payload.repository.full_name;
  const merged = payload.action === 'closed' && pr.merged === true;
  const fact = pullRequestFactIdentity(repository, { number: pr.number, head_sha: pr.head.sha, merged, merge_commit_sha: pr.merge_commit_sha, state: payload.action === 'closed' ? 'closed' : 'open', closed_at: pr.closed_at });
  const updated = isoOrNull(pr.updated_at);
  return {
    kind: 'observation',
    routing: { title: pr.title, branch: pr.head.ref, pull_request_ref: formatPullRequestRef(repository, pr.number, 'github') },
    observation: {
      ...base(options),
      event: 'pull_request',
      delivery_identity: fact.identity,
      resource: { kind: 'pull_request', id: formatPullRequestRef(repository, pr.number, 'github') },
      claim: merged ? 'merged' : undefined,
      revision: updated,
      fingerprint: factFingerprint(fact.content),
      observed_at: updated,
      facts: {
        action: payload.action,
        repository,
        pull_request: { number: pr.number, title: pr.title, state: pr.state, merged, head_ref: pr.head.ref, head_sha: pr.head.sha, base_ref: pr.base?.ref },
        sender: payload.sender?.login,
        ...userIds(payload.sender),
      },
    },
  };
}

function normaliseReview(payload: ScmhostPayload<'pull_request_review'>, options: NormaliseOptions): NormalisedDelivery {
  if (payload.action !== 'submitted') return { kind: 'unsupported', reason: `pull_request_review action "${payload.action}" is not used` };
  const review = payload.review;
  if (!REVIEW_STATES.has(review.state)) return { kind: 'unsupported', reason: `review state "${review.state}" is not used` };
  const repository = payload.repository.full_name;
  const pr = payload.pull_request;
  const submitted = isoOrNull(review.submitted_at);
  const body = review.body ?? '';
  return {
    kind: 'observation',
    routing: { title: pr.title, branch: pr.head.ref, pull_request_ref: formatPullRequestRef(repository, pr.number, 'github') },
    observation: {
      ...base(options),
      event: 'pull_request_review',
      delivery_identity: `scmhost:review:${review.id}:${review.state}`,
      resource: { kind: 'review', id: review.id },
      claim: 'submitted',
      revision: submitted,
      fingerprint: factFingerprint({ review: review.id, state: review.state, body, commit_id: review.commit_id ?? null }),
      observed_at: submitted,
      facts: {
        action: payload.action,
        repository,
        pull_request: { number: pr.number, title: pr.title, head_ref: pr.head.ref, head_sha: pr.head.sha },
        review: { id: review.id, state: review.state as 'approved' | 'changes_requested' | 'commented', body, commit_id: review.commit_id ?? undefined, author: review.user?.login },
        sender: payload.sender?.login,
        ...userIds(review.user, payload.sender),
      },
    },
  };
}

function normaliseCheckRun(payload: ScmhostPayload<'check_run'>, options: NormaliseOptions): NormalisedDelivery {
  if (payload.action !== 'completed') return { kind: 'unsupported', reason: `check_run action "${payload.action}" is not used` };
  const run = payload.check_run;
  const repository = payload.repository.full_name;
  const pr = run.pull_requests[0];
  const at = isoOrNull(run.completed_at) ?? isoOrNull(run.started_at);
  const conclusion = run.conclusion ?? null;
  return {
    kind: 'observation',
    routing: { branch: pr?.head?.ref, pull_request_ref: pr ? formatPullRequestRef(repository, pr.number, 'github') : undefined },
    observation: {
      ...base(options),
      event: 'check_run',
      delivery_identity: `scmhost:check_run:${run.id}:${run.status}:${conclusion ?? 'none'}`,
      resource: { kind: 'check_run', id: run.id },
      claim: 'completed',
      revision: at,
      fingerprint: factFingerprint({ check_run: run.id, status: run.status, conclusion, head_sha: run.head_sha }),
      observed_at: at,
      facts: {
        action: payload.action,
        repository,
        pull_request: pr ? { number: pr.number, head_ref: pr.head?.ref, head_sha: run.head_sha } : undefined,
        check_run: { id: run.id, name: run.name, status: run.status, conclusion, head_sha: run.head_sha },
        sender: payload.sender?.login,
        ...userIds(payload.sender),
      },
    },
  };
}

function normaliseComment(payload: ScmhostPayload<'issue_comment'>, options: NormaliseOptions): NormalisedDelivery {
  if (!payload.issue.pull_request) return { kind: 'unsupported', reason: 'comment on an issue, not on a pull request' };
  if (payload.action !== 'created' && payload.action !== 'edited') return { kind: 'unsupported', reason: `issue_comment action "${payload.action}" is not used` };
  const repository = payload.repository.full_name;
  const comment = payload.comment;
  const updated = isoOrNull(comment.updated_at) ?? isoOrNull(comment.created_at);
  const body = comment.body ?? '';
  return {
    kind: 'observation',
    routing: { title: payload.issue.title, pull_request_ref: formatPullRequestRef(repository, payload.issue.number, 'github') },
    observation: {
      ...base(options),
      event: 'issue_comment',
      delivery_identity: `scmhost:comment:${comment.id}@${updated ?? 'unversioned'}`,
      resource: { kind: 'pr_comment', id: comment.id },
      revision: updated,
      fingerprint: factFingerprint({ comment: comment.id, updated, body }),
      observed_at: updated,
      facts: {
        action: payload.action,
        repository,
        pull_request: { number: payload.issue.number, title: payload.issue.title },
        comment: { id: comment.id, body, author: comment.user?.login, created: isoOrNull(comment.created_at) ?? undefined, updated: updated ?? undefined },
        sender: payload.sender?.login,
        ...userIds(comment.user, payload.sender),
      },
    },
  };
}
