/**
 * A pull request's content read from the simulator's bare repositories (commits, files, diff, patch) and the merge
 * button (a real merge or squash commit on the base branch). Like GitHub, the base repository keeps every pull
 * request's head at `refs/pull/<n>/head`, fetched from the fork when the head lives there, so the commits stay
 * readable after the branch moved or the pull request was merged.
 */
import { BareRepository, type ChangedFile, type GitCommit } from './bare-repository';
import type { PullRequestSize, SimPull, SimRepo, SimUser } from './github-json';
import { BackgroundMergeChecks, checkPoint } from './background-merge-check';
import { MERGE_DOCS, ScmhostSimError, type ScmhostState } from './scmhost-state';

export interface PullRequestContent {
  /** What the changes are compared with: the base branch (its state before the merge, once merged). */
  base: string;
  head: string;
  commits: GitCommit[];
  files: ChangedFile[];
}

export type MergeMethod = 'merge' | 'squash' | 'rebase';

/** Where a pull request stood when an event was emitted: its head, its base branch's head, its merge commit if merged. */
export interface PullRequestMoment { headSha: string; baseSha?: string; mergeCommitSha?: string }

export interface MergeRequest {
  method?: string;
  /** The head the person saw: the merge is refused when the branch moved since. */
  sha?: string;
  title?: string;
  message?: string;
}

/** The e-mail GitHub gives a user who keeps theirs private; the simulator signs its merge commits with it. */
export function noreplyEmail(user: SimUser): string {
  return `${user.id}+${user.login}@users.noreply.simulator`;
}

/**
 * What a pull or merge request changes, in its base repository: for an open one, from where its head left the base
 * branch (`from`); for a merged one, from the base branch as it was before the merge (the merge commit's first
 * parent), so the diff stays readable after the merge. `base` is that base branch commit, for the commits and the
 * patch. Undefined when git has no base commit.
 */
export async function changeComparison(git: BareRepository, change: { head: string; baseRef: string; baseSha?: string; mergeCommitSha?: string }): Promise<{ base: string; from: string } | undefined> {
  const before = change.mergeCommitSha && await git.hasCommit(change.mergeCommitSha) ? (await git.commit(change.mergeCommitSha)).parents[0] : undefined;
  const base = before ?? await git.resolveCommit(`refs/heads/${change.baseRef}`) ?? (change.baseSha && await git.hasCommit(change.baseSha) ? change.baseSha : undefined);
  if (!base) return undefined;
  return { base, from: await git.mergeBase(base, change.head) ?? base };
}

const MERGE_COMMITTER = { name: 'Simulated GitHub', email: 'noreply@simulator.invalid' };

export class PullRequestGit {
  // One merge at a time per base repository: the base branch is read, merged into and moved as one step.
  private readonly merging = new Map<string, Promise<unknown>>();
  private readonly checks = new BackgroundMergeChecks();

  constructor(private readonly state: ScmhostState, private readonly repositoryPath: (fullName: string) => string) {}

  repository(repo: SimRepo): BareRepository {
    return new BareRepository(this.repositoryPath(this.state.fullName(repo)));
  }

  /**
   * Makes sure the base repository has the pull request's head commit (at `refs/pull/<n>/head`); false when git
   * has never seen it (a head set through the state only, as some tests do).
   */
  async ensureHead(repo: SimRepo, pull: SimPull): Promise<boolean> {
    const git = this.repository(repo);
    const ref = `refs/pull/${pull.number}/head`;
    if (!(await git.hasCommit(pull.headSha)) && pull.headRepo !== repo) {
      await git.fetchBranch(this.repositoryPath(this.state.fullName(pull.headRepo)), pull.headRef, ref);
    }
    if (!(await git.hasCommit(pull.headSha))) return false;
    if ((await git.resolveCommit(ref)) !== pull.headSha) await git.updateRef(ref, pull.headSha);
    return true;
  }

  private async headOrFail(repo: SimRepo, pull: SimPull): Promise<BareRepository> {
    if (!(await this.ensureHead(repo, pull))) {
      throw new ScmhostSimError(422, `No commit found for SHA: ${pull.headSha} (the simulator's git repository of ${this.state.fullName(pull.headRepo)} does not have the pull request's head)`);
    }
    return this.repository(repo);
  }

  /** What the pull request changes (changeComparison), or 422 when git has no base branch. */
  private async comparison(git: BareRepository, pull: SimPull): Promise<{ base: string; from: string }> {
    const compared = await changeComparison(git, { head: pull.headSha, baseRef: pull.baseRef, baseSha: pull.baseSha, ...(pull.merged && pull.mergeCommitSha ? { mergeCommitSha: pull.mergeCommitSha } : {}) });
    if (!compared) throw new ScmhostSimError(422, `No commit found for the base branch ${pull.baseRef} in the simulator's git repository of ${this.state.fullName(pull.headRepo)}`);
    return compared;
  }

  async content(repo: SimRepo, pull: SimPull): Promise<PullRequestContent> {
    const git = await this.headOrFail(repo, pull);
    const { base, from } = await this.comparison(git, pull);
    const [commits, files] = await Promise.all([git.commitsBetween(base, pull.headSha), git.changedFiles(from, pull.headSha)]);
    return { base, head: pull.headSha, commits, files };
  }

  /**
   * The counters GitHub puts on a pull request (commits, additions, deletions, changed_files) as they were at one
   * moment: the head and base branch an event saw, read from git later without moving any ref (the pull request may
   * have moved on meanwhile). Commits are those on the head and not on the base; the line and file counts are of the
   * diff from where the head left the base, as on the "Files changed" tab. Undefined when git lacks the commits (a
   * test that drives the state alone).
   */
  async countersAt(repo: SimRepo, pull: SimPull, moment: PullRequestMoment): Promise<PullRequestSize | undefined> {
    // The live head is fetched from a fork first; the head the event saw is the same commit or an ancestor of it.
    await this.ensureHead(repo, pull).catch(() => false);
    const git = this.repository(repo);
    if (!(await git.hasCommit(moment.headSha))) return undefined;
    const beforeMerge = moment.mergeCommitSha && await git.hasCommit(moment.mergeCommitSha) ? (await git.commit(moment.mergeCommitSha)).parents[0] : undefined;
    const base = beforeMerge ?? (moment.baseSha && await git.hasCommit(moment.baseSha) ? moment.baseSha : await git.resolveCommit(`refs/heads/${pull.baseRef}`));
    if (!base) return undefined;
    const from = await git.mergeBase(base, moment.headSha) ?? base;
    const [commits, files] = await Promise.all([git.commitsBetween(base, moment.headSha), git.changedFiles(from, moment.headSha)]);
    const sum = (key: 'additions' | 'deletions') => files.reduce((total, file) => total + file[key], 0);
    return { commits: commits.length, additions: sum('additions'), deletions: sum('deletions'), changedFiles: files.length };
  }

  /**
   * `mergeable` as a read of the pull request shows it (GitHub's protocol, background-merge-check.ts): null on the
   * first read after its head or base branch moved, which starts git's merge-tree of the two in the background;
   * the result on later reads (false when they conflict). Null once closed. A head git has never seen (a test that
   * drives the state alone) has nothing to conflict with: true.
   */
  async mergeableOnRead(repo: SimRepo, pull: SimPull): Promise<boolean | null> {
    if (pull.state !== 'open') return null;
    if (!(await this.ensureHead(repo, pull).catch(() => false))) return true;
    const git = this.repository(repo);
    const base = await git.resolveCommit(`refs/heads/${pull.baseRef}`);
    if (!base) return null;
    const at = checkPoint(base, pull.headSha);
    const id = `${this.state.fullName(repo).toLowerCase()}#${pull.number}`;
    const mergeable = await this.checks.read(id, at, pull.mergeCheck, async () => !('conflicts' in await git.mergeTree(base, pull.headSha)), (check) => {
      pull.mergeCheck = check;
    });
    return mergeable ?? null;
  }

  async diff(repo: SimRepo, pull: SimPull): Promise<string> {
    const git = await this.headOrFail(repo, pull);
    const { from } = await this.comparison(git, pull);
    return git.diff(from, pull.headSha);
  }

  async patch(repo: SimRepo, pull: SimPull): Promise<string> {
    const git = await this.headOrFail(repo, pull);
    const { base } = await this.comparison(git, pull);
    return git.formatPatch(base, pull.headSha);
  }

  /**
   * The merge button: a merge commit (two parents: the base branch and the head) or one squashed commit on the base
   * branch, the branch moved only if nobody pushed to it meanwhile, then the pull request closed as merged.
   */
  merge(repo: SimRepo, number: number, request: MergeRequest, user: SimUser): Promise<SimPull> {
    const key = this.state.fullName(repo).toLowerCase();
    const run = (this.merging.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => this.mergeNow(repo, number, request, user));
    this.merging.set(key, run);
    return run;
  }

  private async mergeNow(repo: SimRepo, number: number, request: MergeRequest, user: SimUser): Promise<SimPull> {
    const pull = this.state.pull(repo, number);
    const method = request.method ?? 'merge';
    if (!['merge', 'squash', 'rebase'].includes(method)) {
      throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequest', field: 'merge_method', code: 'invalid' }]);
    }
    // Rebase merges need a commit-by-commit replay this git (merge-tree without --merge-base) cannot do in a bare
    // repository; GitHub answers the same when a repository turned them off.
    if (method === 'rebase') throw new ScmhostSimError(405, 'Rebase merges are not allowed on this repository.', undefined, MERGE_DOCS);
    if (pull.state !== 'open') throw new ScmhostSimError(405, 'Pull Request is not mergeable', undefined, MERGE_DOCS);
    if (request.sha && request.sha !== pull.headSha) throw new ScmhostSimError(409, 'Head branch was modified. Review and try the merge again.', undefined, MERGE_DOCS);
    if (!(await this.ensureHead(repo, pull))) {
      throw new ScmhostSimError(405, `Pull Request is not mergeable: the simulator's git repository does not have its head ${pull.headSha}`, undefined, MERGE_DOCS);
    }
    const git = this.repository(repo);
    const baseRef = `refs/heads/${pull.baseRef}`;
    const base = await git.resolveCommit(baseRef);
    if (!base) throw new ScmhostSimError(405, `Pull Request is not mergeable: the base branch ${pull.baseRef} does not exist in git`, undefined, MERGE_DOCS);
    // Decided by git now, whatever an earlier read showed: the merge button is what GitHub checks last.
    const merged = await git.mergeTree(base, pull.headSha);
    pull.mergeCheck = { at: checkPoint(base, pull.headSha), mergeable: !('conflicts' in merged) };
    if ('conflicts' in merged) throw new ScmhostSimError(405, 'Pull Request is not mergeable', undefined, MERGE_DOCS);
    const people = { author: { name: user.login, email: noreplyEmail(user) }, committer: MERGE_COMMITTER };
    const headLabel = `${pull.headRepo.owner.login}/${pull.headRef}`;
    let sha: string;
    if (method === 'squash') {
      const commits = await git.commitsBetween(base, pull.headSha);
      const title = request.title ?? `${pull.title} (#${pull.number})`;
      const message = request.message ?? commits.map((commit) => `* ${commit.message.split('\n')[0]}`).join('\n');
      sha = await git.commitTree(merged.tree, [base], `${title}\n\n${message}\n`, people);
    } else {
      const title = request.title ?? `Merge pull request #${pull.number} from ${headLabel}`;
      const message = request.message ?? pull.title;
      sha = await git.commitTree(merged.tree, [base, pull.headSha], `${title}\n\n${message}\n`, people);
    }
    if (!(await git.updateRef(baseRef, sha, base))) throw new ScmhostSimError(409, 'Base branch was modified. Review and try the merge again.', undefined, MERGE_DOCS);
    // The pull request may have been closed while git worked: then the base branch goes back and nothing is merged.
    if (pull.state !== 'open') {
      await git.updateRef(baseRef, base, sha);
      throw new ScmhostSimError(405, 'Pull Request is not mergeable', undefined, MERGE_DOCS);
    }
    return this.state.mergePull(repo, number, user, sha);
  }
}
