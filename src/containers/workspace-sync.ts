import { chmod, cp, lchown, lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { readContainedFile } from './contained-file';

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
 */
export const HOST_TREE_DIRNAME = 'host';
export const SERVICE_OUTPUTS_DIRNAME = '.service';

export function hostTreeDir(base: string): string {
  return join(base, HOST_TREE_DIRNAME);
}

export class WorkspaceSyncError extends Error {
  override readonly name = 'WorkspaceSyncError';
}

export interface WorkspaceSyncLimits {
  /** A single file larger than this fails the sync (the commit would be refused by any source host anyway). */
  maxFileBytes: number;
  maxTotalBytes: number;
  maxEntries: number;
}

export const DEFAULT_SYNC_LIMITS: WorkspaceSyncLimits = { maxFileBytes: 100 * 1024 * 1024, maxTotalBytes: 1024 * 1024 * 1024, maxEntries: 200_000 };

export interface WorkspaceSyncReport {
  /** Paths whose content, link target or mode the host tree took over. */
  written: string[];
  removed: string[];
  /** Entries the host did not take: FIFOs, sockets, devices, hard-linked files. */
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
  await rm(workspaceDir, { recursive: true, force: true });
  await cp(hostDir, workspaceDir, { recursive: true, verbatimSymlinks: true, dereference: false, preserveTimestamps: true });
  if (owner) await lchownTree(workspaceDir, owner.uid, owner.gid);
}

const executable = (mode: number) => (mode & 0o111) !== 0;

/** Whether a link at `path` (relative to the tree) with `target` resolves inside the tree, by its text alone. */
export function linkStaysInside(path: string, target: string): boolean {
  if (target === '' || isAbsolute(target)) return false;
  const resolved = normalize(join(dirname(path), target));
  return resolved !== '..' && !resolved.startsWith(`..${sep}`) && !isAbsolute(resolved);
}

/** Makes the host tree's worktree equal to the workspace's, reading the workspace as data (see the module comment). */
export async function syncWorkspaceIntoHostTree(workspaceDir: string, hostDir: string, limits: WorkspaceSyncLimits = DEFAULT_SYNC_LIMITS): Promise<WorkspaceSyncReport> {
  const report: WorkspaceSyncReport = { written: [], removed: [], refused: [] };
  let entries = 0;
  let total = 0;

  async function mirror(folder: string): Promise<void> {
    const kept = new Set<string>();
    for (const entry of await readdir(join(workspaceDir, folder), { withFileTypes: true })) {
      if (leftBehind(folder, entry.name)) continue;
      if (++entries > limits.maxEntries) throw new WorkspaceSyncError(`the workspace holds more than ${limits.maxEntries} entries; the host takes at most that many`);
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      const hostPath = join(hostDir, path);
      const there = await lstat(hostPath).catch(() => undefined);
      kept.add(entry.name);
      if (entry.isDirectory()) {
        if (there && !there.isDirectory()) await rm(hostPath, { recursive: true, force: true });
        if (!there || !there.isDirectory()) await mkdir(hostPath);
        await mirror(path);
      } else if (entry.isSymbolicLink()) {
        const target = await readlink(join(workspaceDir, path));
        if (there?.isSymbolicLink() && (await readlink(hostPath)) === target) continue;
        // A link the agent made may only point inside the repository: one to /etc or ../../ names host paths in a
        // commit that others check out.
        if (!linkStaysInside(path, target)) {
          report.refused.push({ path, reason: `a symbolic link to ${target.slice(0, 200)}, outside the repository` });
          continue;
        }
        if (there) await rm(hostPath, { recursive: true, force: true });
        await symlink(target, hostPath);
        report.written.push(path);
      } else if (entry.isFile()) {
        const read = await readContainedFile(workspaceDir, path, limits.maxFileBytes);
        if (!read.ok) {
          report.refused.push({ path, reason: read.detail });
          continue;
        }
        if (read.truncated) throw new WorkspaceSyncError(`${path} is ${read.size} bytes; the host takes files of at most ${limits.maxFileBytes} bytes`);
        total += read.size;
        if (total > limits.maxTotalBytes) throw new WorkspaceSyncError(`the workspace's files add up to more than ${limits.maxTotalBytes} bytes; the host takes at most that much`);
        const mode = executable(read.mode) ? 0o755 : 0o644;
        if (there?.isFile() && executable(there.mode) === executable(mode) && there.size === read.size && (await readFile(hostPath)).equals(read.bytes)) continue;
        if (there && !there.isFile()) await rm(hostPath, { recursive: true, force: true });
        await writeFile(hostPath, read.bytes, { mode });
        await chmod(hostPath, mode);
        report.written.push(path);
      } else {
        report.refused.push({ path, reason: 'not a regular file, folder or symbolic link' });
      }
    }
    for (const name of await readdir(join(hostDir, folder))) {
      if (leftBehind(folder, name) || kept.has(name)) continue;
      await rm(join(hostDir, folder, name), { recursive: true, force: true });
      report.removed.push(folder === '' ? name : `${folder}/${name}`);
    }
  }

  await mirror('');
  return report;
}
