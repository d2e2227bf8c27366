/**
 * At a restart, the source-host simulator's kept state (`scmhost.json`: branches, pull request heads) and its kept
 * git repositories must tell the same story. When git moved on after the last write of the state (a crash between a
 * push and the next save), git holds the commits, so the state follows git. When the state names a head that git
 * does not have (the git folder was deleted, or kept somewhere else by an older version), nothing can bring the
 * commits back: that is reported, never papered over with a fresh initial commit.
 */
import { BareRepository } from './bare-repository';
import type { ScmhostState } from './scmhost-state';

export interface GitStateCheck {
  /** State that points at commits git does not have: pull requests on these branches lost their content. */
  problems: string[];
  /** Branches whose state was moved to git's head (git is the truth for content). */
  followed: string[];
}

const short = (sha: string) => sha.slice(0, 7);

/**
 * Compares the branches of the repositories restored from a snapshot with their bare repositories; `pathOf` answers
 * a repository's folder when it exists, `expectedPathOf` where it would be.
 */
export async function checkStateAgainstGit(
  state: ScmhostState,
  restored: string[],
  pathOf: (fullName: string) => string | undefined,
  expectedPathOf: (fullName: string) => string,
): Promise<GitStateCheck> {
  const check: GitStateCheck = { problems: [], followed: [] };
  for (const key of restored) {
    const repo = state.repos.get(key.toLowerCase());
    if (!repo) continue;
    const fullName = state.fullName(repo);
    const path = pathOf(fullName);
    if (!path) {
      const branches = [...repo.branches].map(([branch, sha]) => `${branch} at ${short(sha)}`).join(', ');
      check.problems.push(`${fullName}: scmhost.json names the branches ${branches}, but there is no git repository at ${expectedPathOf(fullName)}; a new one starts with an initial commit and those commits are gone`);
      continue;
    }
    const git = new BareRepository(path);
    const heads = await git.heads();
    for (const [branch, sha] of [...repo.branches]) {
      const gitSha = heads.get(branch);
      if (gitSha === sha) continue;
      if (gitSha) {
        state.pushBranch(repo, branch, gitSha, repo.owner);
        check.followed.push(`${fullName}: ${branch} moved from ${short(sha)} (scmhost.json) to ${short(gitSha)} (git)`);
      } else if (await git.hasCommit(sha)) {
        // The commit is still there, only the ref went: put the branch back where the state says it is.
        await git.updateRef(`refs/heads/${branch}`, sha);
        check.followed.push(`${fullName}: ${branch} recreated in git at ${short(sha)}`);
      } else {
        check.problems.push(`${fullName}: scmhost.json says ${branch} is at ${short(sha)}, but ${path} has no such branch or commit`);
      }
    }
    for (const pull of state.pullsOf(repo)) {
      if (pull.state !== 'open' || pull.headRepo !== repo || repo.branches.get(pull.headRef) === pull.headSha) continue;
      if (!(await git.hasCommit(pull.headSha))) {
        check.problems.push(`${fullName}#${pull.number}: its head ${short(pull.headSha)} (${pull.headRef}) is not in ${path}`);
      }
    }
  }
  return check;
}
