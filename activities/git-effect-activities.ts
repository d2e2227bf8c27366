import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { GitCommandError, remoteBranchHead, runGit } from '../src/containers/git-remote';
import type { GitRemote, GitRemotes } from '../src/providers/git-remote-types';
import { parseRepoRef } from '../src/providers/scmhost/repo-ref';
import type { ScmhostClient } from '../src/providers/scmhost/scmhost-client';
import type { RegistryRepository } from '../src/config/repository-registry';
import { forkRemote, serviceForkOf, type ForkClient } from '../src/providers/gitlab/gitlab-fork';
import { redactSecrets } from '../src/redaction/redact-secrets';
import { HOST_TREE_DIRNAME } from '../src/containers/workspace-sync';
import type { EffectAttemptResult, EffectOperation } from '../workflows/effects/effect-types';

export type GitPushOperation = Extract<EffectOperation, { kind: 'git.push' }>;

export interface GitPushDeps {
  remotes: GitRemotes;
  /** For `fork` mode on GitHub: creating the fork is idempotent there (an existing fork is returned). */
  scmhost?: () => Promise<Pick<ScmhostClient, 'createFork'>>;
  /** For `fork` mode on GitLab: the registry's project and its client (the fork is found or made through it). */
  gitlab?: (repository: string) => { entry: RegistryRepository; client: ForkClient } | undefined;
}

function result(status: EffectAttemptResult['status'], evidence: EffectAttemptResult['evidence'], error: string | null = null): EffectAttemptResult {
  return { status, evidence, error, retry_after_ms: null };
}

async function pushTarget(deps: GitPushDeps, operation: GitPushOperation): Promise<{ remote: GitRemote; repository: string }> {
  const remote = deps.remotes.remoteFor(operation.repository);
  const mode = operation.mode ?? remote.changeRequestMode;
  if (mode === 'direct') return { remote, repository: operation.repository };
  const gitlab = deps.gitlab?.(operation.repository);
  if (gitlab) {
    const fork = await serviceForkOf(gitlab.client, gitlab.entry.namespace);
    return { remote: forkRemote(remote, gitlab.entry.namespace, fork.pathWithNamespace), repository: fork.pathWithNamespace };
  }
  if (!deps.scmhost || !/^[^/\s]+\/[^/\s]+$/.test(operation.repository)) {
    throw new Error(`fork mode needs a GitHub repository and SCMHOST_TOKEN, or a GitLab project of the repository registry; ${operation.repository} cannot be forked by the service: use change_request_mode direct`);
  }
  const fork = await (await deps.scmhost()).createFork(parseRepoRef(operation.repository));
  return { remote: deps.remotes.remoteFor(fork.fullName), repository: fork.fullName };
}

/**
 * The `git.push` effect: one attempt to put a station's commit on the ticket branch. It reconciles first: when the
 * remote branch already is the commit (an earlier attempt pushed and the worker died before recording it), or
 * already contains it, the push is adopted and nothing is pushed again. A branch that moved elsewhere since the
 * station started is a precondition failure, never a force push over someone else's work.
 */
export async function performGitPush(deps: GitPushDeps, operation: GitPushOperation): Promise<EffectAttemptResult> {
  const attempt = await pushOnce(deps, operation);
  // Once the branch holds the commit, its tree has served: a later attempt adopts the remote head without it.
  if (attempt.status === 'succeeded') await removeStationFolder(operation.workspace);
  return attempt;
}

/** The station folder around a host tree (`<base>/host`): the host tree and the container's copy of it. */
async function removeStationFolder(hostTree: string): Promise<void> {
  if (basename(hostTree) !== HOST_TREE_DIRNAME) return;
  await rm(dirname(hostTree), { recursive: true, force: true }).catch(() => undefined);
}

async function pushOnce(deps: GitPushDeps, operation: GitPushOperation): Promise<EffectAttemptResult> {
  const { remote, repository } = await pushTarget(deps, operation);
  const evidence = { provider: 'git' as const, ids: { repository, branch: operation.branch, sha: operation.commit_sha } };
  const head = await remoteBranchHead(remote, operation.branch);
  if (head === operation.commit_sha) return result('succeeded', { ...evidence, adopted: true, note: 'the remote branch already is this commit' });
  // Host git runs only in a host tree (`<base>/host`), which no container ever had mounted. A push recorded by an
  // older build names the container's workspace, whose `.git` the agent could have changed: it is never run there.
  if (basename(operation.workspace) !== HOST_TREE_DIRNAME) {
    return result('terminal_failure', evidence, `the push names ${operation.workspace}, which is not a host-only tree (a push recorded before the container boundary of issue 27); rerun the station (service:retry) to make the change again`);
  }
  if (!existsSync(join(operation.workspace, '.git'))) {
    return result('terminal_failure', evidence, `the workspace ${operation.workspace} holding commit ${operation.commit_sha} is gone; rerun the station (service:retry) to make the change again`);
  }
  if (head !== null && head !== operation.base_sha) {
    await runGit(['fetch', '--quiet', '--no-tags', remote.url, `refs/heads/${operation.branch}`], { cwd: operation.workspace, auth: remote.auth });
    const contained = await runGit(['merge-base', '--is-ancestor', operation.commit_sha, head], { cwd: operation.workspace }).then(() => true, () => false);
    if (contained) return result('succeeded', { ...evidence, ids: { ...evidence.ids, head }, adopted: true, note: 'the remote branch already contains this commit' });
    return result('precondition_failure', { ...evidence, ids: { ...evidence.ids, head } },
      `${operation.branch} on ${repository} moved to ${head} while the station worked from ${operation.base_sha ?? 'no branch'}; rerun the station on the new head (service:retry)`);
  }
  // The lease makes the push fail rather than overwrite if the branch moves between the check above and now.
  const lease = `--force-with-lease=refs/heads/${operation.branch}:${head ?? ''}`;
  await runGit(['push', '--quiet', '--no-verify', lease, remote.url, `${operation.commit_sha}:refs/heads/${operation.branch}`], { cwd: operation.workspace, auth: remote.auth });
  return result('succeeded', { ...evidence, note: head ? `fast-forwarded from ${head}` : 'created the branch' });
}

/** A failed push attempt: rejected pushes and auth problems are not worth repeating as is; the network is. */
export function gitPushFailure(error: unknown): EffectAttemptResult {
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  const terminal = error instanceof GitCommandError && /(authentication failed|403|401|not found|rejected|stale info)/i.test(message);
  return result(terminal ? 'terminal_failure' : 'indeterminate', { provider: 'git', note: terminal ? undefined : 'the push may have happened; the next attempt reconciles against the remote head first' }, message);
}
