import { randomBytes } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes a folder of any depth (issue 41). A container can build a tree whose paths are longer than PATH_MAX
 * (4096 bytes): `mkdir x && cd x`, again and again, never names a long path. Node's `fs.rm` names every entry by its
 * full path and fails on such a tree with ENAMETOOLONG, and Node has no `unlinkat` to walk it by relative names. So
 * the folders that lie deeper than HOIST_AT_BYTES are first moved up (a rename names two paths, both short enough)
 * to the top of the tree being removed, each under a fresh name, and walked again from there; once nothing lies that
 * deep, `fs.rm` removes it all. Links are never followed: they are removed as links.
 *
 * Only for trees nothing writes to any more (a container's workspace after the container exited, a station folder
 * at worker start).
 */
export const HOIST_AT_BYTES = 3072;

export class RemoveTreeError extends Error {
  override readonly name = 'RemoveTreeError';
}

const code = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

/** Rounds of moving folders up; one is enough unless entries vanish under the walk (see below). */
const MAX_ROUNDS = 8;

export async function removeTree(path: string): Promise<void> {
  for (let round = 0; ; round += 1) {
    try {
      await rm(path, { recursive: true, force: true });
      return;
    } catch (error) {
      if (code(error) !== 'ENAMETOOLONG' || round >= MAX_ROUNDS) throw error;
    }
    if (Buffer.byteLength(path) > HOIST_AT_BYTES / 2) {
      throw new RemoveTreeError(`${path.slice(0, 200)} is too deep to remove and its own path is too long to move its folders up; remove it by hand (rm -rf)`);
    }
    await hoistDeepFolders(path);
  }
}

/**
 * Moves every folder deeper than HOIST_AT_BYTES to the top of `root`, repeatedly, until none is left that deep. The
 * failed `fs.rm` before it may still be removing entries (it works on siblings in parallel and rejects at the first
 * error): an entry that is gone is skipped.
 */
async function hoistDeepFolders(root: string): Promise<void> {
  const pending = [root];
  while (pending.length > 0) {
    const start = pending.pop()!;
    const walk = async (folder: string): Promise<void> => {
      const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
        if (code(error) === 'ENOENT') return [];
        throw error;
      });
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        const path = join(folder, entry.name);
        if (Buffer.byteLength(path) <= HOIST_AT_BYTES) {
          await walk(path);
          continue;
        }
        const moved = join(root, `.deep-${randomBytes(8).toString('hex')}`);
        const done = await rename(path, moved).then(() => true, (error: unknown) => {
          if (code(error) === 'ENOENT') return false;
          throw error;
        });
        if (done) pending.push(moved);
      }
    };
    await walk(start);
  }
}
