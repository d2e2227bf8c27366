/**
 * Which lines of a merge request's diff a thread can start on, as GitLab decides it: a position names a line of the
 * diff by its old and new line numbers, an added line by `new_line` alone, a removed one by `old_line` alone, an
 * unchanged line of a hunk by both. Any other position has no line code, and GitLab refuses the thread with 400.
 */
import { BareRepository, type ChangedFile } from '../scmhost-simulator/bare-repository';
import type { SimPosition } from './gitlab-discussions';

/** GitLab's answer to a position that is no line of the diff. */
export const NO_LINE_CODE = '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}';

interface DiffLine { oldLine: number | null; newLine: number | null }

/** The lines of a file's hunks (git's unified diff from the first `@@`), with their old and new numbers. */
export function diffLinesOf(patch: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  for (const text of patch.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
    } else if (text.startsWith('+')) {
      lines.push({ oldLine: null, newLine: newLine++ });
    } else if (text.startsWith('-')) {
      lines.push({ oldLine: oldLine++, newLine: null });
    } else if (text.startsWith(' ')) {
      lines.push({ oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return lines;
}

/** Whether `position` is a line of the diff whose changed files are `files`. */
export function isLineOfDiff(files: readonly ChangedFile[], position: Pick<SimPosition, 'new_path' | 'old_path' | 'new_line' | 'old_line'>): boolean {
  const file = files.find((f) => f.path === position.new_path && (f.previousPath ?? f.path) === position.old_path)
    ?? files.find((f) => f.path === position.new_path);
  if (!file?.patch) return false;
  return diffLinesOf(file.patch).some((line) => line.oldLine === position.old_line && line.newLine === position.new_line);
}

/**
 * Whether a diff thread's position is a line of the diff from the merge base of its `base_sha` to its `head_sha`, in
 * the target project's repository (`targetRepository`); the head of a merge request from a fork is fetched from the
 * fork's (`sourceRepository`) as GitLab keeps it, at `refs/merge-requests/<iid>/head`. Commits git has never seen
 * (no repository on disk, or a test that drives the state alone) cannot be checked: every position is taken then.
 */
export async function isLineOfMergeRequestDiff(
  repositories: { target: string | undefined; source: string | undefined }, mr: { iid: number; sourceBranch: string }, position: SimPosition,
): Promise<boolean> {
  if (!repositories.target) return true;
  const git = new BareRepository(repositories.target);
  if (!(await git.hasCommit(position.head_sha)) && repositories.source && repositories.source !== repositories.target) {
    await git.fetchBranch(repositories.source, mr.sourceBranch, `refs/merge-requests/${mr.iid}/head`);
  }
  if (!(await git.hasCommit(position.head_sha)) || !(await git.hasCommit(position.base_sha))) return true;
  const base = await git.mergeBase(position.base_sha, position.head_sha) ?? position.base_sha;
  return isLineOfDiff(await git.changedFiles(base, position.head_sha), position);
}
