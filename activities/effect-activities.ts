import { z } from 'zod';
import { parseRepoRef } from '../src/providers/scmhost/repo-ref';
import { effectStatusOf, isProviderError } from '../src/providers/provider-errors';
import type { ScmhostClient } from '../src/providers/scmhost/scmhost-client';
import type { TrackerClient } from '../src/providers/tracker/tracker-client';
import { redactSecrets } from '../src/redaction/redact-secrets';
import { CommandNeutralisationError, neutraliseEffectText } from '../src/redaction/neutralise-commands';
import type { Logger } from '../src/logging/logger';
import type { EffectAttemptResult, EffectOperation, PerformEffectInput, ProviderEvidence } from '../workflows/effects/effect-types';
import { createIssueOnce, trackerIssueOperationSchemas, transitionOnce, type IssueEffectTracker } from './tracker-issue-effect-activities';
import { gitPushFailure, performGitPush, type GitPushDeps } from './git-effect-activities';
import { mergeRequestUrl, noteOnMergeRequestOnce, openMergeRequestOnce, replyInDiscussionOnce, reviewOnMergeRequestOnce, updateMergeRequestOnce, type GitLabRepository } from './merge-request-effect-activities';
import { openPullRequestOnce, pullRequestUrl, replyInReviewThreadOnce, submitReviewOnce, updatePullRequestOnce, type PullRequestEffectClient } from './pull-request-effect-activities';

export type EffectTracker = Pick<TrackerClient, 'findCommentByIdempotencyKey' | 'addComment' | 'getIssue' | 'updateLabels'> & IssueEffectTracker;
export type EffectScmhost = Pick<ScmhostClient, 'findIssueCommentByIdempotencyKey' | 'createIssueComment'> & PullRequestEffectClient;

export interface EffectActivityDeps {
  tracker?: EffectTracker;
  scmhost?: () => Promise<EffectScmhost>;
  /** Git remotes for `git.push`; unset = pushes fail closed as not configured. */
  git?: GitPushDeps;
  /** The repository registry's entry (GitLab) of a repository, with its client; undefined for GitHub repositories. */
  gitlab?: (repository: string) => GitLabRepository | undefined;
  logger: Logger;
}

export const operationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tracker.comment'), issue_key: z.string().min(1), body: z.string().min(1) }),
  z.object({ kind: z.literal('tracker.labels'), issue_key: z.string().min(1), add: z.array(z.string()), remove: z.array(z.string()) }),
  z.object({ kind: z.literal('scmhost.pr_comment'), repository: z.string().regex(/^[^/\s]+(\/[^/\s]+)+$/), number: z.number().int().positive(), body: z.string().min(1) }),
  // planning: tracker issue effects
  ...trackerIssueOperationSchemas,
  // the code change: pull requests and reviews (GitHub repositories as owner/repo, GitLab projects as group/.../project)
  z.object({ kind: z.literal('scmhost.open_pr'), repository: z.string().min(3), head: z.string().min(1), base: z.string().min(1).nullable(), title: z.string().min(1).max(256), body: z.string(), draft: z.boolean().optional(), mode: z.enum(['direct', 'fork']).optional() }),
  z.object({ kind: z.literal('tracker.pull_request_link'), issue_key: z.string().min(1), repository: z.string().min(3), head: z.string().min(1), text: z.string().min(1).refine((t) => t.includes('{url}'), 'must contain {url}'), mode: z.enum(['direct', 'fork']).optional() }),
  z.object({ kind: z.literal('scmhost.update_pr'), repository: z.string().min(3), number: z.number().int().positive(), title: z.string().min(1).max(256).optional(), body: z.string().optional() }),
  z.object({ kind: z.literal('scmhost.pr_review'), repository: z.string().min(3), number: z.number().int().positive(), event: z.enum(['COMMENT', 'REQUEST_CHANGES', 'APPROVE']), body: z.string().min(1), comments: z.array(z.object({ path: z.string().min(1), line: z.number().int().positive(), body: z.string().min(1) })).optional() }),
  z.object({ kind: z.literal('scmhost.review_reply'), repository: z.string().min(3), number: z.number().int().positive(), comment_id: z.union([z.number().int().positive(), z.string().min(1)]), body: z.string().min(1), resolve: z.boolean().optional() }),
  z.object({ kind: z.literal('git.push'), repository: z.string().min(1), branch: z.string().min(1), commit_sha: z.string().regex(/^[0-9a-f]{40}$/), base_sha: z.string().regex(/^[0-9a-f]{40}$/).nullable(), workspace: z.string().min(1), mode: z.enum(['direct', 'fork']).optional() }),
]);
const inputSchema = z.object({ idempotency_key: z.string().min(1), attempt: z.number().int().positive(), operation: operationSchema });

class NotConfigured extends Error {}

function succeeded(evidence: ProviderEvidence): EffectAttemptResult {
  return { status: 'succeeded', evidence, error: null, retry_after_ms: null };
}

function failed(error: unknown, provider: ProviderEvidence['provider']): EffectAttemptResult {
  // Neither is changed by trying again: the configuration is missing, or the text would read as a command.
  if (error instanceof NotConfigured || error instanceof CommandNeutralisationError) return { status: 'terminal_failure', evidence: null, error: error.message, retry_after_ms: null };
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  if (isProviderError(error)) {
    return {
      status: error.effectStatus,
      evidence: { provider, status_code: error.status, request_id: error.requestId, note: error.outcomeUnknown ? 'the request may have been applied; the next attempt looks for it first' : undefined },
      error: message,
      retry_after_ms: error.retryAfterMs ?? null,
    };
  }
  // An error we cannot classify may have happened after the write: treat the outcome as unknown, never as "not done".
  return { status: effectStatusOf(error), evidence: null, error: message, retry_after_ms: null };
}

/**
 * Effect activities: each call is one attempt of one provider mutation. Before writing, every attempt looks for the
 * write an earlier attempt may have made (the idempotency key on a comment the service's own account wrote, labels
 * already as wanted) and adopts it, so a retry after a crash or a timed-out response never writes twice. A comment by
 * anyone else carrying the key is left alone and never adopted (src/providers/own-writes.ts). Failures are returned, not thrown: the
 * workflow records every attempt and decides about retries, backoff and blocking.
 */
export function createEffectActivities(deps: EffectActivityDeps) {
  const tracker = () => {
    if (!deps.tracker) throw new NotConfigured('the tracker is not configured (TRACKER_BASE_URL, TRACKER_USER_EMAIL, TRACKER_API_TOKEN)');
    return deps.tracker;
  };
  const scmhost = async () => {
    if (!deps.scmhost) throw new NotConfigured('the source host is not configured (SCMHOST_TOKEN)');
    return deps.scmhost();
  };

  async function perform(key: string, operation: EffectOperation): Promise<EffectAttemptResult> {
    let gitlab: GitLabRepository | undefined;
    try {
      gitlab = 'repository' in operation && operation.kind !== 'git.push' ? deps.gitlab?.(operation.repository) : undefined;
    } catch (error) {
      // A registry entry whose connection has no credential: no attempt can succeed until an operator sets it.
      throw new NotConfigured(error instanceof Error ? error.message : String(error));
    }
    if (gitlab) return performOnGitLab(key, operation, gitlab);
    switch (operation.kind) {
      case 'tracker.comment': {
        const client = tracker();
        const earlier = await client.findCommentByIdempotencyKey(operation.issue_key, key);
        if (earlier) return succeeded({ provider: 'tracker', ids: { comment_id: earlier.id }, adopted: true });
        const comment = await client.addComment(operation.issue_key, redactSecrets(operation.body), { idempotencyKey: key });
        return succeeded({ provider: 'tracker', ids: { comment_id: comment.id } });
      }
      case 'tracker.labels': {
        const client = tracker();
        const issue = await client.getIssue(operation.issue_key);
        const add = operation.add.filter((label) => !issue.labels.includes(label));
        const remove = operation.remove.filter((label) => issue.labels.includes(label));
        if (add.length === 0 && remove.length === 0) {
          return succeeded({ provider: 'tracker', ids: { labels: issue.labels.join(' ') }, adopted: true, note: 'labels were already as wanted' });
        }
        await client.updateLabels(operation.issue_key, [...add.map((label) => ({ add: label })), ...remove.map((label) => ({ remove: label }))]);
        const after = [...issue.labels.filter((label) => !remove.includes(label)), ...add];
        return succeeded({ provider: 'tracker', ids: { labels: after.join(' ') } });
      }
      case 'git.push': {
        if (!deps.git) throw new NotConfigured('git pushes are not configured on this worker (SCMHOST_TOKEN or the repository registry)');
        return performGitPush({ gitlab: deps.gitlab, ...deps.git }, operation);
      }
      // --- planning: tracker issue effects ---
      case 'tracker.create_issue':
        return succeeded(await createIssueOnce(tracker(), operation));
      case 'tracker.transition':
        return succeeded(await transitionOnce(tracker(), operation));
      // --- end planning ---
      case 'scmhost.open_pr':
        return succeeded(await openPullRequestOnce(await scmhost(), operation));
      case 'scmhost.update_pr':
        return succeeded(await updatePullRequestOnce(await scmhost(), operation));
      case 'tracker.pull_request_link': {
        const client = tracker();
        const earlier = await client.findCommentByIdempotencyKey(operation.issue_key, key);
        if (earlier) return succeeded({ provider: 'tracker', ids: { comment_id: earlier.id }, adopted: true });
        const url = await pullRequestUrl(await scmhost(), operation);
        const comment = await client.addComment(operation.issue_key, redactSecrets(operation.text.split('{url}').join(url)), { idempotencyKey: key });
        return succeeded({ provider: 'tracker', ids: { comment_id: comment.id }, url });
      }
      case 'scmhost.pr_review':
        return succeeded(await submitReviewOnce(await scmhost(), operation, key));
      case 'scmhost.review_reply':
        return succeeded(await replyInReviewThreadOnce(await scmhost(), operation, key));
      case 'scmhost.pr_comment': {
        const client = await scmhost();
        const ref = parseRepoRef(operation.repository);
        const earlier = await client.findIssueCommentByIdempotencyKey(ref, operation.number, key);
        if (earlier) return succeeded({ provider: 'scmhost', ids: { comment_id: String(earlier.id) }, url: earlier.htmlUrl, adopted: true });
        const comment = await client.createIssueComment(ref, operation.number, redactSecrets(operation.body), { idempotencyKey: key });
        return succeeded({ provider: 'scmhost', ids: { comment_id: String(comment.id) }, url: comment.htmlUrl });
      }
    }
  }

  /** The pull-request effects of a repository of the registry, on its GitLab merge request. */
  async function performOnGitLab(key: string, operation: EffectOperation, gitlab: GitLabRepository): Promise<EffectAttemptResult> {
    switch (operation.kind) {
      case 'scmhost.open_pr':
        return succeeded(await openMergeRequestOnce(gitlab, operation));
      case 'scmhost.update_pr':
        return succeeded(await updateMergeRequestOnce(gitlab, operation));
      case 'tracker.pull_request_link': {
        const client = tracker();
        const earlier = await client.findCommentByIdempotencyKey(operation.issue_key, key);
        if (earlier) return succeeded({ provider: 'tracker', ids: { comment_id: earlier.id }, adopted: true });
        const url = await mergeRequestUrl(gitlab, operation);
        const comment = await client.addComment(operation.issue_key, redactSecrets(operation.text.split('{url}').join(url)), { idempotencyKey: key });
        return succeeded({ provider: 'tracker', ids: { comment_id: comment.id }, url });
      }
      case 'scmhost.pr_comment':
        return succeeded(await noteOnMergeRequestOnce(gitlab, operation.number, operation.body, key));
      case 'scmhost.pr_review':
        return succeeded(await reviewOnMergeRequestOnce(gitlab, operation, key));
      case 'scmhost.review_reply':
        return succeeded(await replyInDiscussionOnce(gitlab, operation, key));
      default:
        throw new NotConfigured(`${operation.kind} is not available for GitLab project ${gitlab.entry.namespace}`);
    }
  }

  return {
    async performEffect(raw: PerformEffectInput): Promise<EffectAttemptResult> {
      const input = inputSchema.parse(raw);
      const provider = input.operation.kind.startsWith('tracker') ? 'tracker' : 'scmhost';
      try {
        // Every text the service posts (model-written or quoting what a model or a person wrote) goes out with no
        // line that reads as a command: one place, before any provider sees it, also for replays and adoption checks.
        const result = await perform(input.idempotency_key, neutraliseEffectText(input.operation));
        deps.logger.info('effect attempt', { key: input.idempotency_key, attempt: input.attempt, status: result.status, adopted: result.evidence?.adopted ?? false });
        return result;
      } catch (error) {
        const result = input.operation.kind === 'git.push' && !(error instanceof NotConfigured) ? gitPushFailure(error) : failed(error, provider);
        deps.logger.warn('effect attempt failed', { key: input.idempotency_key, attempt: input.attempt, status: result.status, error: result.error });
        return result;
      }
    },
  };
}

export type EffectActivities = ReturnType<typeof createEffectActivities>;
