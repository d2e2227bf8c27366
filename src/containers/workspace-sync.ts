import { chmod, cp, lchown, lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readContainedFile } from './contained-file';
import type { TreeEntry } from './link-resolution';
import { removeTree } from './remove-tree';
import { DEFAULT_PATH_BOUNDS, decodedName, displayPath, displayRawName, refusedLinkName, refusedName, type PathBounds } from './workspace-names';
import { planHostTree, type WorkspaceEntry } from './workspace-plan';

/**
 * The container boundary for repositories (issue 27). A container station keeps two trees:
 *
 * - the host tree (`<base>/host`): cloned by the host, never mounted into a container, the only tree host git ever
 *   runs in (add, commit, merge, push);
 * - the workspace (`<base>/workspace`): a plain copy of the host tree, `.git` included so the agent can use git, that
 *   the container may change at will.
 *
 * After the container exits, the host copies the worktree's contents back into the host tree as data: regular files
 * by their bytes and executable bit, symbolic links by their target text (never followed), folders by their names.
 * Every `.git` entry of the workspace, at any depth, and `.service/` are left behind, so hooks, configuration,
 * a `.git` file pointing elsewhere or a nested repository the agent planted never reach a tree git runs in.
 *
 * The copy has three steps (issue 41): the workspace is read (names, kinds, link targets, sizes) and refused as a
 * whole when host git could not commit it (a name another file system reads as `.git`, a path over the bounds, too
 * many files or bytes: workspace-names.ts); the host tree it will make is decided, links judged by where they
 * resolve in it (workspace-plan.ts); only then is anything written.
 */
export const HOST_TREE_DIRNAME = 'host';
export const SERVICE_OUTPUTS_DIRNAME = '.service';

export function hostTreeDir(base: string): string {
  return join(base, HOST_TREE_DIRNAME);
}

const RECOVERY_SMALLER = 'make the change smaller or remove the large files from the task, then add service:retry';
const RECOVERY_PATH = 'the agent made a path the host does not commit (named in the message): change the task or the skill so that it does not, then add service:retry';

/** A workspace the host does not take: the station ends as `workspace_refused`, the agent is not run again. */
export class WorkspaceSyncError extends Error {
  override readonly name = 'WorkspaceSyncError';
  constructor(message: string, readonly recovery: string = RECOVERY_SMALLER) {
    super(message);
  }
}

export interface WorkspaceSyncLimits extends PathBounds {
  /** A single file larger than this fails the sync (the commit would be refused by any source host anyway). */
  maxFileBytes: number;
  maxTotalBytes: number;
  maxEntries: number;
}

export const DEFAULT_SYNC_LIMITS: WorkspaceSyncLimits = { maxFileBytes: 100 * 1024 * 1024, maxTotalBytes: 1024 * 1024 * 1024, maxEntries: 200_000, ...DEFAULT_PATH_BOUNDS };

export interface WorkspaceSyncReport {
  /** Paths whose content, link target or mode the host tree took over. */
  written: string[];
  removed: string[];
  /** Entries the host did not take (it keeps what it had there): FIFOs, sockets, devices, hard-linked files, links that leave the repository. */
  refused: Array<{ path: string; reason: string }>;
}

/** Whether a workspace entry stays out of the host tree. `.git` in any case (a case-insensitive file system would take `.GIT` as `.git`). */
export function leftBehind(folder: string, name: string): boolean {
  return name.toLowerCase() === '.git' || (folder === '' && name === SERVICE_OUTPUTS_DIRNAME);
}

/** Changes ownership of a tree without following a link and without leaving the tree. */
export async function lchownTree(path: string, uid: number, gid: number): Promise<void> {
  const stat = await lstat(path);
  await lchown(path, uid, gid);
  if (!stat.isDirectory()) return;
  for (const entry of await readdir(path)) await lchownTree(join(path, entry), uid, gid);
}

/**
 * Makes the container's workspace: a copy (not hard links: the container's account gets its own files) of the host
 * tree, links copied as links with their target text, then handed to the container's account.
 */
export async function exposeWorkspace(hostDir: string, workspaceDir: string, owner?: { uid: number; gid: number }): Promise<void> {
  // An earlier attempt's workspace can be deeper than PATH_MAX.
  await removeTree(workspaceDir);
  await cp(hostDir, workspaceDir, { recursive: true, verbatimSymlinks: true, dereference: false, preserveTimestamps: true });
  if (owner) await lchownTree(workspaceDir, owner.uid, owner.gid);
}

const executable = (mode: number) => (mode & 0o111) !== 0;

const joinPath = (folder: string, name: string) => (folder === '' ? name : `${folder}/${name}`);

/**
 * The workspace's entries in a fixed order (folders before what they hold, names by their bytes), read without
 * following a link. Throws a WorkspaceSyncError at the first entry the host does not commit, before looking at it.
 */
async function readWorkspace(root: string, limits: WorkspaceSyncLimits): Promise<Map<string, WorkspaceEntry>> {
  const entries = new Map<string, WorkspaceEntry>();
  let total = 0;
  const walk = async (folder: string, depth: number): Promise<void> => {
    const names = (await readdir(join(root, folder), { encoding: 'buffer' })).sort(Buffer.compare);
    for (const raw of names) {
      const name = decodedName(raw);
      if (name === undefined) throw new WorkspaceSyncError(`${displayRawName(Buffer.concat([Buffer.from(folder === '' ? '' : `${folder}/`), raw]))} is not a UTF-8 name; the host commits only UTF-8 names`, RECOVERY_PATH);
      if (leftBehind(folder, name)) continue;
      const path = joinPath(folder, name);
      const refused = refusedName(path, name, depth, limits);
      if (refused) throw new WorkspaceSyncError(`the workspace holds ${displayPath(path)}, which the host does not commit: ${refused}`, RECOVERY_PATH);
      if (entries.size >= limits.maxEntries) throw new WorkspaceSyncError(`the workspace holds more than ${limits.maxEntries} entries; the host takes at most that many`);
      const full = join(root, path);
      const stat = await lstat(full);
      if (stat.isDirectory()) {
        entries.set(path, { kind: 'dir' });
        await walk(path, depth + 1);
      } else if (stat.isSymbolicLink()) {
        const linkName = refusedLinkName(name);
        if (linkName) throw new WorkspaceSyncError(`the workspace holds ${displayPath(path)}, which the host does not commit: ${linkName}`, RECOVERY_PATH);
        const rawTarget = await readlink(full, { encoding: 'buffer' });
        const target = decodedName(rawTarget);
        if (target === undefined) throw new WorkspaceSyncError(`the symbolic link ${displayPath(path)} has a target that is not UTF-8 (${displayRawName(rawTarget)}); the host commits only UTF-8 targets`, RECOVERY_PATH);
        if (rawTarget.length > limits.maxPathBytes) entries.set(path, { kind: 'other', reason: `a symbolic link whose target is longer than ${limits.maxPathBytes} bytes` });
        else entries.set(path, { kind: 'link', target });
      } else if (stat.isFile() && stat.nlink > 1) {
        entries.set(path, { kind: 'other', reason: `${path} has ${stat.nlink} hard links; the host reads only files with one` });
      } else if (stat.isFile()) {
        if (stat.size > limits.maxFileBytes) throw new WorkspaceSyncError(`${displayPath(path)} is ${stat.size} bytes; the host takes files of at most ${limits.maxFileBytes} bytes`);
        total += stat.size;
        if (total > limits.maxTotalBytes) throw new WorkspaceSyncError(`the workspace's files add up to more than ${limits.maxTotalBytes} bytes; the host takes at most that much`);
        entries.set(path, { kind: 'file' });
      } else {
        entries.set(path, { kind: 'other', reason: 'not a regular file, folder or symbolic link' });
      }
    }
  };
  await walk('', 1);
  return entries;
}

/** The host tree as it is (the host's own clone: nothing a container wrote), in the same order. */
async function readHostTree(root: string): Promise<Map<string, TreeEntry>> {
  const entries = new Map<string, TreeEntry>();
  const walk = async (folder: string): Promise<void> => {
    for (const name of (await readdir(join(root, folder))).sort()) {
      if (leftBehind(folder, name)) continue;
      const path = joinPath(folder, name);
      const stat = await lstat(join(root, path));
      if (stat.isDirectory()) {
        entries.set(path, { kind: 'dir' });
        await walk(path);
      } else if (stat.isSymbolicLink()) {
        entries.set(path, { kind: 'link', target: await readlink(join(root, path)) });
      } else {
        entries.set(path, { kind: 'file' });
      }
    }
  };
  await walk('');
  return entries;
}

/** Makes the host tree's worktree equal to the workspace's, reading the workspace as data (see the module comment). */
export async function syncWorkspaceIntoHostTree(workspaceDir: string, hostDir: string, limits: Partial<WorkspaceSyncLimits> = {}): Promise<WorkspaceSyncReport> {
  const bounds = { ...DEFAULT_SYNC_LIMITS, ...limits };
  const workspace = await readWorkspace(workspaceDir, bounds);
  const base = await readHostTree(hostDir);
  const plan = planHostTree(workspace, base);
  if (plan.blocked) throw new WorkspaceSyncError(`${displayPath(plan.blocked.path)}: ${plan.blocked.reason}`, RECOVERY_PATH);

  const report: WorkspaceSyncReport = { written: [], removed: [], refused: [] };
  for (const [path, entry] of workspace) {
    const refusal = entry.kind === 'other' ? entry.reason : plan.refusedLinks.get(path);
    if (refusal) {
      report.refused.push({ path, reason: refusal });
      continue;
    }
    const hostPath = join(hostDir, path);
    const there = await lstat(hostPath).catch(() => undefined);
    if (entry.kind === 'dir') {
      if (there && !there.isDirectory()) await rm(hostPath, { recursive: true, force: true });
      if (!there || !there.isDirectory()) await mkdir(hostPath);
    } else if (entry.kind === 'link') {
      if (there?.isSymbolicLink() && (await readlink(hostPath)) === entry.target) continue;
      if (there) await rm(hostPath, { recursive: true, force: true });
      await symlink(entry.target, hostPath);
      report.written.push(path);
    } else {
      const read = await readContainedFile(workspaceDir, path, bounds.maxFileBytes);
      // The container has exited: a file that is no longer what the host read a moment ago means something still
      // writes to the workspace, and the host tree would no longer be the one that was judged.
      if (!read.ok || read.truncated) throw new WorkspaceSyncError(`${displayPath(path)} changed while the host copied the workspace${read.ok ? '' : ` (${read.detail})`}`, RECOVERY_PATH);
      const mode = executable(read.mode) ? 0o755 : 0o644;
      if (there?.isFile() && executable(there.mode) === executable(mode) && there.size === read.size && (await readFile(hostPath)).equals(read.bytes)) continue;
      if (there && !there.isFile()) await rm(hostPath, { recursive: true, force: true });
      await writeFile(hostPath, read.bytes, { mode });
      await chmod(hostPath, mode);
      report.written.push(path);
    }
  }
  for (const path of base.keys()) {
    if (plan.tree.has(path)) continue;
    const slash = path.lastIndexOf('/');
    // Under a folder that is gone or became a file or a link, it went with it.
    if (slash >= 0 && plan.tree.get(path.slice(0, slash))?.kind !== 'dir') continue;
    await rm(join(hostDir, path), { recursive: true, force: true });
    report.removed.push(path);
  }
  return report;
}
