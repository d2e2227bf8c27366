import { mkdir, rm, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readContainedText } from './contained-file';
import { remoteBranchHead, runGit } from './git-remote';
import type { GitRemote } from '../providers/git-remote-types';

/** The branch of a ticket (REFERENCE "Source host conventions"). */
export function serviceBranch(ticketKey: string): string {
  return `service/${ticketKey.toLowerCase()}`;
}

export interface Workspace {
  dir: string;
  branch: string;
  /** The commit the agent starts from (the branch head when it existed, else the base branch head). */
  baseSha: string;
  /** Whether the ticket branch already existed on the remote. */
  resumed: boolean;
}

export interface PrepareWorkspaceInput {
  dir: string;
  remote: GitRemote;
  /** Where the ticket branch lives when not on `remote`: the service account's fork in `fork` mode. */
  branchRemote?: GitRemote;
  branch: string;
  baseBranch?: string;
}

/**
 * Clones the repository on the host with the host's token (the tree and its `.git/config` never hold it), checks out
 * the ticket branch (continuing it when it exists on the remote, else starting it from the base branch) and ignores
 * `.service/` (the agent's outputs stay out of commits). The tree is the host's: a container gets a copy of it
 * (`exposeWorkspace`), never this one.
 */
export async function prepareWorkspace(input: PrepareWorkspaceInput): Promise<Workspace> {
  await rm(input.dir, { recursive: true, force: true });
  await mkdir(input.dir, { recursive: true, mode: 0o700 });
  const branchRemote = input.branchRemote ?? input.remote;
  const existing = await remoteBranchHead(branchRemote, input.branch);
  const checkout = existing && branchRemote === input.remote ? input.branch : input.baseBranch ?? input.remote.defaultBranch;
  await runGit(['clone', '--quiet', '--no-tags', ...(checkout ? ['--branch', checkout] : []), input.remote.url, input.dir], { auth: input.remote.auth });
  if (existing && branchRemote !== input.remote) {
    await runGit(['fetch', '--quiet', '--no-tags', branchRemote.url, `refs/heads/${input.branch}:refs/heads/${input.branch}`], { cwd: input.dir, auth: branchRemote.auth });
    await runGit(['checkout', '--quiet', input.branch], { cwd: input.dir });
  } else if (!existing) {
    await runGit(['checkout', '--quiet', '-b', input.branch], { cwd: input.dir });
  }
  await appendFile(join(input.dir, '.git', 'info', 'exclude'), '\n.service/\n');
  const baseSha = (await runGit(['rev-parse', 'HEAD'], { cwd: input.dir })).trim();
  return { dir: input.dir, branch: input.branch, baseSha, resumed: Boolean(existing) };
}

export interface WorkspaceCommit {
  /** Null when the agent changed nothing. */
  sha: string | null;
  files: string[];
}

/**
 * Host git refused to add or commit a tree (issue 41): the tree holds something git will not take (a path that the
 * sync's own checks missed). Running the agent again would make the same tree, so a station stops here.
 */
export class WorkspaceCommitError extends Error {
  override readonly name = 'WorkspaceCommitError';
}

/** Git's message, cut short: it can name thousands of paths. */
const gitRefusal = (error: unknown) => (error as Error).message.slice(0, 1000);

/** Commits everything the agent changed (outside `.service/`) as the service, on the host. */
export async function commitWorkspace(dir: string, message: string, author = { name: 'service', email: 'service@localhost' }): Promise<WorkspaceCommit> {
  await runGit(['add', '--all'], { cwd: dir }).catch((error: unknown) => {
    throw new WorkspaceCommitError(`host git did not add the tree: ${gitRefusal(error)}`);
  });
  const files = (await runGit(['diff', '--cached', '--name-only'], { cwd: dir })).split('\n').filter(Boolean);
  if (files.length === 0) return { sha: null, files };
  await runGit(['-c', `user.name=${author.name}`, '-c', `user.email=${author.email}`, 'commit', '--quiet', '--no-verify', '-m', message], { cwd: dir }).catch((error: unknown) => {
    throw new WorkspaceCommitError(`host git did not commit the tree: ${gitRefusal(error)}`);
  });
  return { sha: (await runGit(['rev-parse', 'HEAD'], { cwd: dir })).trim(), files };
}

/** What merging the base branch into the ticket branch left in the workspace. */
export interface BaseMerge {
  base: string;
  /** `up_to_date`: nothing to merge; `clean`: merged and staged; `conflicts`: files with conflicts, staged otherwise. */
  state: 'up_to_date' | 'clean' | 'conflicts';
  conflicts: string[];
}

/**
 * Starts a merge of `origin/<base>` into the checked-out branch without committing it, so that whoever resolves
 * the conflicts commits the merge (git records both parents while MERGE_HEAD exists). `/service rebase` merges
 * rather than rewriting history: the branch moves forward and the push needs no force.
 */
export async function startBaseMerge(dir: string, base: string): Promise<BaseMerge> {
  const ahead = (await runGit(['rev-list', '--count', `HEAD..origin/${base}`], { cwd: dir })).trim();
  if (ahead === '0') return { base, state: 'up_to_date', conflicts: [] };
  try {
    await runGit(['-c', 'user.name=service', '-c', 'user.email=service@localhost', 'merge', '--no-commit', '--no-ff', `origin/${base}`], { cwd: dir });
    return { base, state: 'clean', conflicts: [] };
  } catch (error) {
    const conflicts = (await runGit(['diff', '--name-only', '--diff-filter=U'], { cwd: dir })).split('\n').filter(Boolean);
    if (conflicts.length === 0) throw error;
    return { base, state: 'conflicts', conflicts };
  }
}

const MARKER = /^(<{7}|={7}|>{7})(\s|$)/m;

/**
 * Files of `files` that still hold a conflict marker line (`<<<<<<<`, `=======`, `>>>>>>>`). Their content came from
 * a container: they are read without following links, and a link is not a file with markers.
 */
export async function filesWithConflictMarkers(dir: string, files: readonly string[]): Promise<string[]> {
  const left: string[] = [];
  for (const file of files) {
    const text = await readContainedText(dir, file, 64 * 1024 * 1024) ?? '';
    if (MARKER.test(text)) left.push(file);
  }
  return left;
}
