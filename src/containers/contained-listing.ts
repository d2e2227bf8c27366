import { constants } from 'node:fs';
import { lstat, open, opendir, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { containedParts } from './contained-file';

/**
 * Listing a folder a container wrote, under the rules of contained-file.ts: the folder is listed only when no part
 * of its path is a link (a link to a host folder would tell the host's file names, or how many there are), and at
 * most `maxNames` names are looked at, so a folder of a million entries costs one bounded read.
 */
export type ContainedListing =
  | { ok: true; names: string[]; cut: boolean }
  | { ok: false; reason: 'missing' | 'outside' | 'link' | 'not_folder' | 'unreadable'; detail: string };

export async function listContainedFolder(root: string, relative: string, maxNames: number): Promise<ContainedListing> {
  let parts: string[];
  try {
    parts = containedParts(relative);
  } catch (error) {
    return { ok: false, reason: 'outside', detail: (error as Error).message };
  }
  const path = join(root, ...parts);
  // O_NOFOLLOW refuses a link as the folder itself; O_NONBLOCK keeps a FIFO in its place from blocking the open.
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, reason: 'missing', detail: `${relative} does not exist` };
    // With O_DIRECTORY, Linux answers a link in the folder's place with ENOTDIR rather than ELOOP.
    const link = code === 'ELOOP' || (code === 'ENOTDIR' && (await lstat(path).catch(() => undefined))?.isSymbolicLink());
    if (link) return { ok: false, reason: 'link', detail: `${relative} is a symbolic link; the host does not follow links a container made` };
    if (code === 'ENOTDIR') return { ok: false, reason: 'not_folder', detail: `${relative} is not a folder` };
    return { ok: false, reason: 'unreadable', detail: `${relative} could not be opened: ${code ?? (error as Error).message}` };
  }
  try {
    // A folder on the way may be a link (O_NOFOLLOW guards the last part only): what the kernel opened is what counts.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== join(await realpath(root), ...parts)) return { ok: false, reason: 'link', detail: `${relative} was reached through a link; the host does not follow links a container made` };
    // Listed through the descriptor, so a folder swapped in after the check is not the one listed.
    const names: string[] = [];
    let cut = false;
    try {
      const dir = await opendir(`/proc/self/fd/${handle.fd}`, { bufferSize: 64 });
      for await (const entry of dir) {
        if (names.length >= maxNames) {
          cut = true;
          break;
        }
        names.push(entry.name);
      }
    } catch (error) {
      return { ok: false, reason: 'unreadable', detail: `${relative} could not be listed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
    }
    return { ok: true, names, cut };
  } finally {
    await handle.close();
  }
}
