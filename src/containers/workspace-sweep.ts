import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Station folders that outlived their use (issue 30, point 9). A station folder is removed as soon as its push
 * succeeded; what remains belongs to a station that failed, was blocked or changed nothing, or to a worker that died
 * mid-run. At worker start, folders of the work folder untouched for `maxAgeMs` are removed: by then no push can
 * still want them (an effect whose tree is gone fails with a message asking for `service:retry`, which makes the
 * change again). `.agent` (the staged agent bundle) and anything that is not a folder stay, except spend ledgers
 * (`spend-*.jsonl`, src/containers/spend-ledger.ts) of attempts that were never retried: after a day their station is
 * long settled, and nothing will charge them.
 */
export const WORKSPACE_RETENTION_MS = 24 * 60 * 60 * 1000;

export async function sweepStaleWorkspaces(workDir: string, options: { maxAgeMs?: number; now?: number } = {}): Promise<string[]> {
  const maxAge = options.maxAgeMs ?? WORKSPACE_RETENTION_MS;
  const now = options.now ?? Date.now();
  const removed: string[] = [];
  const sweep = async (folder: string, prefix: string) => {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (name === '.agent' || (folder === workDir && (name === 'proposals' || name === 'review-records'))) continue;
      const path = join(folder, name);
      const stat = await lstat(path).catch(() => undefined);
      const ledger = folder === workDir && /^spend-[0-9a-f]+\.jsonl$/.test(name) && stat?.isFile();
      if (!(stat?.isDirectory() || ledger) || now - stat!.mtimeMs < maxAge) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(`${prefix}${name}`);
    }
  };
  await sweep(workDir, '');
  await sweep(join(workDir, 'proposals'), 'proposals/');
  return removed;
}
