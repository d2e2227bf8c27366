import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTree } from './remove-tree';

/**
 * Station folders that outlived their use (issue 30, point 9). A station folder is removed as soon as its push
 * succeeded; what remains belongs to a station that failed, was blocked or changed nothing, or to a worker that died
 * mid-run. At worker start, folders of the work folder untouched for `maxAgeMs` are removed: by then no push can
 * still want them (an effect whose tree is gone fails with a message asking for `service:retry`, which makes the
 * change again). `.agent` (the staged agent bundle) and anything that is not a folder stay, except spend ledgers
 * (`spend-*.jsonl`, src/containers/spend-ledger.ts) of attempts that were never retried: after a day their station is
 * long settled, and nothing will charge them.
 *
 * A folder that cannot be removed is reported and passed over (issue 41): one bad folder must not keep every later
 * one on the disk. Folders deeper than PATH_MAX, which a container can build, are removed (remove-tree.ts).
 */
export const WORKSPACE_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface WorkspaceSweep {
  removed: string[];
  /** Folders left in place, with what stopped their removal. */
  failed: Array<{ path: string; error: string }>;
}

export async function sweepStaleWorkspaces(workDir: string, options: { maxAgeMs?: number; now?: number } = {}): Promise<WorkspaceSweep> {
  const maxAge = options.maxAgeMs ?? WORKSPACE_RETENTION_MS;
  const now = options.now ?? Date.now();
  const removed: string[] = [];
  const failed: WorkspaceSweep['failed'] = [];
  const sweep = async (folder: string, prefix: string) => {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (name === '.agent' || (folder === workDir && (name === 'proposals' || name === 'review-records'))) continue;
      const path = join(folder, name);
      const stat = await lstat(path).catch(() => undefined);
      const ledger = folder === workDir && /^spend-[0-9a-f]+\.jsonl$/.test(name) && stat?.isFile();
      if (!(stat?.isDirectory() || ledger) || now - stat!.mtimeMs < maxAge) continue;
      try {
        await removeTree(path);
        removed.push(`${prefix}${name}`);
      } catch (error) {
        failed.push({ path: `${prefix}${name}`, error: (error as Error).message.slice(0, 500) });
      }
    }
  };
  await sweep(workDir, '');
  await sweep(join(workDir, 'proposals'), 'proposals/');
  return { removed, failed };
}
