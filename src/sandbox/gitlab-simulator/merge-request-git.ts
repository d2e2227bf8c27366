/**
 * The GitLab simulator's "Merge" button in git: a merge request is merged in the target project's bare repository
 * with a real merge commit (GitLab's default "Merge commit" method), or, when squashing is asked for, a squash commit
 * of the source branch on the merge base that is then merged the same way (GitLab keeps both). The target branch
 * moves only if nobody pushed to it meanwhile. As on GitLab, the target repository keeps the source head at
 * `refs/merge-requests/<iid>/head`, fetched from the fork when the merge request comes from one. The same head gives
 * what a merge request changes (commits, files, diff, patch) for its web page and the API's raw_diffs.
 */
import { BareRepository, type ChangedFile, type GitCommit } from '../scmhost-simulator/bare-repository';
import { changeComparison } from '../scmhost-simulator/pull-request-git';
import { BackgroundMergeChecks, checkPoint } from '../scmhost-simulator/background-merge-check';
import type { MergeabilityShown } from './gitlab-json';
import { GitLabSimError, type GitLabState, type SimMergeRequest, type SimProject } from './gitlab-simulator';

export interface MergeOptions {
  /** The source head the person saw: the merge is refused with 409 when the branch moved since. */
  sha?: string;
  squash?: boolean;
  mergeCommitMessage?: string;
  squashCommitMessage?: string;
}

const MERGE_COMMITTER = { name: 'GitLab', email: 'noreply@gitlab.simulator.invalid' };

/** GitLab's default merge commit template: the branches, the title and the merge request's full reference. */
export function defaultMergeCommitMessage(project: SimProject, mr: SimMergeRequest): string {
  return `Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'\n\n${mr.title}\n\nSee merge request ${project.path}!${mr.iid}\n`;
}

export class MergeRequestGit {
  // One merge at a time per target project: the target branch is read, merged into and moved as one step.
  private readonly merging = new Map<string, Promise<unknown>>();
  private readonly checks = new BackgroundMergeChecks();

  constructor(private readonly state: GitLabState, private readonly repositoryPath: (path: string) => string) {}

  /**
   * Mergeability as a read of the merge request shows it (background-merge-check.ts): `checking` on the first read
   * after the source or target branch moved, which starts git's merge-tree of the two; the result on later reads.
   * A source head git has never seen (a test that drives the state alone) has nothing to conflict with: true.
   */
  async mergeabilityOnRead(project: SimProject, mr: SimMergeRequest): Promise<MergeabilityShown> {
    if (mr.state !== 'opened') return 'unchecked';
    if (!(mr.sourceProject ?? project).branches.get(mr.sourceBranch)) return 'unchecked';
    const headed = await this.withHead(project, mr);
    if (!headed) return true;
    const { git, head } = headed;
    const target = await git.resolveCommit(`refs/heads/${mr.targetBranch}`);
    if (!target) return 'unchecked';
    const at = checkPoint(target, head);
    const mergeable = await this.checks.read(`${project.path}!${mr.iid}`, at, mr.mergeCheck, async () => !('conflicts' in await git.mergeTree(target, head)), (check) => {
      mr.mergeCheck = check;
    });
    return mergeable ?? 'checking';
  }

  /** The commits, changed files and diff of the merge request, as its page shows them. */
  async content(project: SimProject, mr: SimMergeRequest): Promise<{ commits: GitCommit[]; files: ChangedFile[]; diff: string }> {
    const { git, head, base, from } = await this.compared(project, mr);
    const [commits, files, diff] = await Promise.all([git.commitsBetween(base, head), git.changedFiles(from, head), git.diff(from, head)]);
    return { commits, files, diff };
  }

  /** The merge request's diff (the page's `.diff`, the API's raw_diffs): git's, from where the source left the target. */
  async diff(project: SimProject, mr: SimMergeRequest): Promise<string> {
    const { git, head, from } = await this.compared(project, mr);
    return git.diff(from, head);
  }

  /** The merge request's commits as mail-formatted patches (the page's `.patch`). */
  async patch(project: SimProject, mr: SimMergeRequest): Promise<string> {
    const { git, head, base } = await this.compared(project, mr);
    return git.formatPatch(base, head);
  }

  private async compared(project: SimProject, mr: SimMergeRequest): Promise<{ git: BareRepository; head: string; base: string; from: string }> {
    const headed = await this.withHead(project, mr);
    const missing = `the simulator's git repository of ${(mr.sourceProject ?? project).path} does not have the merge request's head`;
    if (!headed) throw new GitLabSimError(404, { message: `404 Commit Not Found (${missing})` });
    const compared = await changeComparison(headed.git, { head: headed.head, baseRef: mr.targetBranch, ...(mr.mergeCommitSha ? { mergeCommitSha: mr.mergeCommitSha } : {}) });
    if (!compared) throw new GitLabSimError(404, { message: `404 Commit Not Found (no commit of the target branch ${mr.targetBranch} in the simulator's git repository of ${project.path})` });
    return { ...headed, ...compared };
  }

  /**
   * The target project's repository with the merge request's head in it (fetched from the fork, as GitLab keeps it
   * at `refs/merge-requests/<iid>/head`); undefined when git has never seen the head. Once the source branch is
   * gone (deleted after the merge), the head is the one kept at that ref.
   */
  private async withHead(project: SimProject, mr: SimMergeRequest): Promise<{ git: BareRepository; head: string } | undefined> {
    const source = mr.sourceProject ?? project;
    const git = new BareRepository(this.repositoryPath(project.path));
    const headRef = `refs/merge-requests/${mr.iid}/head`;
    const head = source.branches.get(mr.sourceBranch) ?? await git.resolveCommit(headRef);
    if (!head) return undefined;
    if (!(await git.hasCommit(head))) await git.fetchBranch(this.repositoryPath(source.path), mr.sourceBranch, headRef);
    return await git.hasCommit(head) ? { git, head } : undefined;
  }

  merge(project: SimProject, mr: SimMergeRequest, user: string, options: MergeOptions = {}): Promise<SimMergeRequest> {
    const run = (this.merging.get(project.path) ?? Promise.resolve()).catch(() => undefined).then(() => this.mergeNow(project, mr, user, options));
    this.merging.set(project.path, run);
    return run;
  }

  private async mergeNow(project: SimProject, mr: SimMergeRequest, user: string, options: MergeOptions): Promise<SimMergeRequest> {
    if (mr.state !== 'opened') throw new GitLabSimError(405, { message: '405 Method Not Allowed' });
    const source = mr.sourceProject ?? project;
    const head = source.branches.get(mr.sourceBranch);
    if (!head) throw new GitLabSimError(405, { message: '405 Method Not Allowed' });
    if (options.sha && options.sha !== head) throw new GitLabSimError(409, { message: `SHA does not match HEAD of source branch: ${head}` });
    const git = new BareRepository(this.repositoryPath(project.path));
    const headRef = `refs/merge-requests/${mr.iid}/head`;
    await git.fetchBranch(this.repositoryPath(source.path), mr.sourceBranch, headRef);
    if (!(await git.hasCommit(head))) {
      throw new GitLabSimError(422, { message: `Branch cannot be merged (the simulator's git repository of ${source.path} does not have ${head})` });
    }
    const targetRef = `refs/heads/${mr.targetBranch}`;
    const target = await git.resolveCommit(targetRef);
    if (!target) throw new GitLabSimError(422, { message: 'Branch cannot be merged' });
    const people = { author: { name: user, email: `${user}@users.noreply.gitlab.simulator.invalid` }, committer: MERGE_COMMITTER };
    let merged = head;
    let squashSha: string | undefined;
    if (options.squash) {
      // The squash commit holds the source branch's whole change on the merge base, titled by default like the merge request.
      const base = await git.mergeBase(target, head);
      const tree = (await git.commit(head)).tree;
      squashSha = await git.commitTree(tree, base ? [base] : [], options.squashCommitMessage ?? `${mr.title}\n`, { author: people.author, committer: people.author });
      merged = squashSha;
    }
    const result = await git.mergeTree(target, merged);
    mr.mergeCheck = { at: checkPoint(target, head), mergeable: !('conflicts' in result) };
    // A merge request with conflicts is not mergeable at all: GitLab.com answers 405, not the documented 406/422.
    if ('conflicts' in result) throw new GitLabSimError(405, { message: '405 Method Not Allowed' });
    const mergeSha = await git.commitTree(result.tree, [target, merged], options.mergeCommitMessage ?? defaultMergeCommitMessage(project, mr), people);
    if (!(await git.updateRef(targetRef, mergeSha, target))) throw new GitLabSimError(409, { message: 'Target branch was modified. Try the merge again.' });
    // The merge request may have been closed while git worked: then the target goes back and nothing is merged.
    if (mr.state !== 'opened') {
      await git.updateRef(targetRef, target, mergeSha);
      throw new GitLabSimError(405, { message: '405 Method Not Allowed' });
    }
    return this.state.merge(project, mr, user, { mergeCommitSha: mergeSha, ...(squashSha ? { squashCommitSha: squashSha } : {}) });
  }
}
