import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';

/**
 * Reading what a container wrote. Everything under a container's mounts is the container's to shape: a file can be a
 * symlink to a host secret, a folder on its path can be a link to /etc, a hard link, a FIFO that never ends or a
 * sparse file of terabytes. The host reads such a file only when every component of its path is a real folder, the
 * file itself is a regular file with one link, and it is opened without following a link (O_NOFOLLOW) and checked
 * again after opening; it reads at most `maxBytes`. Anything else is refused with a reason, never followed.
 */
export type ContainedRead =
  | { ok: true; bytes: Buffer; truncated: boolean; size: number; mode: number }
  | { ok: false; reason: 'missing' | 'not_regular' | 'outside' | 'link' | 'hard_link'; detail: string };

export class ContainedPathError extends Error {
  override readonly name = 'ContainedPathError';
}

/** The path parts of `relative` under a root, refusing absolute paths and `..` that would leave it. */
export function containedParts(relative: string): string[] {
  if (isAbsolute(relative)) throw new ContainedPathError(`${relative} is absolute; a path inside the workspace is relative`);
  const parts = normalize(relative).split(sep).filter((part) => part !== '' && part !== '.');
  if (parts.length === 0 || parts.includes('..')) throw new ContainedPathError(`${relative} leaves the workspace`);
  return parts;
}

export async function readContainedFile(root: string, relative: string, maxBytes: number): Promise<ContainedRead> {
  let parts: string[];
  try {
    parts = containedParts(relative);
  } catch (error) {
    return { ok: false, reason: 'outside', detail: (error as Error).message };
  }
  let path = root;
  for (const [index, part] of parts.entries()) {
    path = join(path, part);
    const stat = await lstat(path).catch(() => undefined);
    if (!stat) return { ok: false, reason: 'missing', detail: `${relative} does not exist` };
    if (stat.isSymbolicLink()) return { ok: false, reason: 'link', detail: `${parts.slice(0, index + 1).join('/')} is a symbolic link; the host does not follow links a container made` };
    const last = index === parts.length - 1;
    if (!last && !stat.isDirectory()) return { ok: false, reason: 'not_regular', detail: `${parts.slice(0, index + 1).join('/')} is not a folder` };
    if (last && !stat.isFile()) return { ok: false, reason: 'not_regular', detail: `${relative} is not a regular file` };
    if (last && stat.nlink > 1) return { ok: false, reason: 'hard_link', detail: `${relative} has ${stat.nlink} hard links; the host reads only files with one` };
  }
  // O_NONBLOCK: a FIFO swapped in after the checks above must not block the open.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return { ok: false, reason: 'link', detail: `${relative} could not be opened without following a link` };
  try {
    // The checks above and the open are two steps: a container still running can swap a folder of the path for a
    // link in between (O_NOFOLLOW guards the last part only). What the kernel opened is what counts.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== join(await realpath(root), ...parts)) return { ok: false, reason: 'link', detail: `${relative} was reached through a link while it was opened; the host does not follow links a container made` };
    const stat = await handle.stat();
    if (!stat.isFile() || stat.nlink > 1) return { ok: false, reason: 'not_regular', detail: `${relative} changed into something other than a regular file` };
    const want = Math.min(stat.size, maxBytes);
    const bytes = Buffer.alloc(want);
    let read = 0;
    while (read < want) {
      const { bytesRead } = await handle.read(bytes, read, want - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { ok: true, bytes: bytes.subarray(0, read), truncated: stat.size > maxBytes, size: stat.size, mode: stat.mode };
  } finally {
    await handle.close();
  }
}

/** A contained file as UTF-8 text, or undefined when it is missing or may not be read (the reason is logged by callers that care). */
export async function readContainedText(root: string, relative: string, maxBytes: number): Promise<string | undefined> {
  const read = await readContainedFile(root, relative, maxBytes);
  return read.ok ? read.bytes.toString('utf8') : undefined;
}
