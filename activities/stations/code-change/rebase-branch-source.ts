/**
 * Where `/service rebase` finds the ticket branch of a pull request, and so where it pushes the merge. Pure.
 *
 * The pull request itself says where its head lives, not the repository's configured mode: a pull request (GitHub)
 * or merge request (GitLab) opened in fork mode has its head on the service account's fork, and the merge must land
 * there (the upstream has no such branch, and a branch pushed there would not move the pull request).
 */

export interface RebasePull {
  /** The repository the pull request targets (`owner/name`, or the registry name of a GitLab project). */
  repository: string;
  /** The `/service rebase` reference, for messages. */
  ref: string;
  host: 'github' | 'gitlab';
  baseRef: string;
  /** The configured change-request mode of the repository. */
  configuredMode: 'direct' | 'fork';
  /**
   * The repository holding the head branch when it is not `repository` itself, or undefined when it is (or is not
   * known); null when the host no longer knows it (the fork was deleted). GitHub: `owner/name` (the repository itself
   * is also accepted). GitLab: the source project's path, given only when the merge request comes from another project.
   */
  headRepository?: string | null;
  headRef?: string;
  /**
   * GitLab: the path of the service account's own fork of the project, null when it has none (asked only for a merge
   * request from another project). GitLab pushes go to that fork alone (`fork` mode finds it again at push time).
   */
  serviceFork?: string | null;
}

export type RebaseBranchSource =
  | { kind: 'upstream' }
  /** The branch is fetched from, and the merge pushed to, `repository` (the fork). */
  | { kind: 'fork'; repository: string }
  | { kind: 'refuse'; code: string; message: string; recovery: string };

export function rebaseBranchSource(pull: RebasePull, branch: string): RebaseBranchSource {
  const byHand = `merge ${pull.baseRef} into the branch by hand and push, then add service:retry`;
  if (pull.headRepository === null) {
    return {
      kind: 'refuse', code: 'rebase_fork_missing',
      message: `the head repository of ${pull.ref} no longer exists (its fork was deleted), so there is no branch to merge ${pull.baseRef} into`,
      recovery: 'close the pull request and let the ticket open a new one (service:retry of the pull-request step), or push the branch again by hand',
    };
  }
  if (pull.headRepository === undefined || pull.headRepository.toLowerCase() === pull.repository.toLowerCase()) return { kind: 'upstream' };
  // On the upstream the branch name is the ticket's by construction; on a fork only the pull request says which branch
  // it is, and a branch of another name is not the ticket's to merge into.
  if (pull.headRef !== undefined && pull.headRef !== branch) {
    return {
      kind: 'refuse', code: 'rebase_unsupported',
      message: `${pull.ref} comes from ${pull.headRepository}:${pull.headRef}, not from the ticket branch ${branch}`,
      recovery: byHand,
    };
  }
  // On GitLab the service pushes to a fork only through its own account's fork (found again at push time): a merge
  // request from anyone else's fork is not a branch the service may move.
  if (pull.host === 'gitlab' && pull.headRepository.toLowerCase() !== (pull.serviceFork ?? '').toLowerCase()) {
    return {
      kind: 'refuse', code: 'rebase_unsupported',
      message: `${pull.ref} comes from the project ${pull.headRepository}, which is not the service account's fork${pull.serviceFork ? ` (${pull.serviceFork})` : ''}`,
      recovery: byHand,
    };
  }
  return { kind: 'fork', repository: pull.headRepository };
}
