import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, type Stats } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import type { PodmanAccount } from './podman-account';

/**
 * A root worker runs containers as an unprivileged account, and podman must reach every file it mounts as that
 * account: the agent bundle, the workspace and the run folder. A checkout under a private folder (a root user's
 * home, mode 0700) builds and runs, but no container station can start there ("statfs ...: permission denied").
 * These checks find the folder in the way before a ticket is blocked by it, and the work folder moves out of the
 * way when the operator did not choose it.
 */
export class MountAccessError extends Error {
  override readonly name = 'MountAccessError';
}

export interface BlockedFolder {
  dir: string;
  mode: number;
  uid: number;
}

/** Whether the account may pass through (search) a folder, by its owner, group and other bits. */
export function canTraverse(stat: Pick<Stats, 'uid' | 'gid' | 'mode'>, account: Pick<PodmanAccount, 'uid' | 'gid'>): boolean {
  if (account.uid === 0) return true;
  if (stat.uid === account.uid) return (stat.mode & 0o100) !== 0;
  if (stat.gid === account.gid) return (stat.mode & 0o010) !== 0;
  return (stat.mode & 0o001) !== 0;
}

/** The first existing folder on the way to `path` (itself included) that the account cannot pass through. */
export function blockedFolder(path: string, account: Pick<PodmanAccount, 'uid' | 'gid'>, stat: (dir: string) => Stats | undefined = statOrUndefined): BlockedFolder | undefined {
  const target = resolve(path);
  const folders: string[] = [];
  for (let dir = target; ; dir = dirname(dir)) {
    folders.unshift(dir);
    if (dir === parse(dir).root) break;
  }
  for (const dir of folders) {
    const found = stat(dir);
    if (!found) break; // what does not exist yet is created by the worker, traversable
    if (!found.isDirectory()) continue;
    if (!canTraverse(found, account)) return { dir, mode: found.mode & 0o777, uid: found.uid };
  }
  return undefined;
}

function statOrUndefined(dir: string): Stats | undefined {
  try {
    return statSync(dir);
  } catch {
    return undefined;
  }
}

/** Where the workspaces go when the default one cannot be reached: a root-owned folder every account may pass through. */
export const FALLBACK_WORK_ROOT = '/var/lib/service';

const describe = (blocked: BlockedFolder) => `${blocked.dir} (mode ${blocked.mode.toString(8).padStart(4, '0')}, owner uid ${blocked.uid})`;

/**
 * The work folder containers can use. Rootless workers run containers as themselves: any folder they can write
 * works. A root worker's default folder (`.data/workspaces` under the checkout) moves to FALLBACK_WORK_ROOT when the
 * account cannot reach it; a folder the operator chose (CONTAINER_WORK_DIR) is never moved: the worker says what to
 * change instead (`unreachable`), and starts anyway, since a deployment may run no container station.
 */
export function containerWorkDir(options: { workDir: string; explicit: boolean; account: Pick<PodmanAccount, 'uid' | 'gid' | 'name' | 'switchUser'>; fallbackRoot?: string }): { workDir: string; moved?: string; unreachable?: string } {
  const { account } = options;
  if (!account.switchUser) return { workDir: options.workDir };
  // The work folder itself is the worker's to open up (stations make it 0711); its parents are not.
  const blocked = blockedFolder(dirname(resolve(options.workDir)), account);
  if (!blocked) return { workDir: options.workDir };
  if (options.explicit) {
    // Not a refusal: a deployment may run no container station at all. Those that do fail until this is changed.
    return { workDir: options.workDir, unreachable: `CONTAINER_WORK_DIR ${options.workDir} cannot be reached by the container account ${account.name}: ${describe(blocked)} does not let it pass, so every container station will fail. Choose a folder whose every parent it may pass through (for example ${join(options.fallbackRoot ?? FALLBACK_WORK_ROOT, 'workspaces')}), or allow it with chmod o+x ${blocked.dir}` };
  }
  const root = options.fallbackRoot ?? FALLBACK_WORK_ROOT;
  // Short: the model proxy's socket lives below it, and a unix socket path has at most 107 bytes.
  const workDir = join(root, `w-${createHash('sha256').update(resolve(options.workDir)).digest('hex').slice(0, 10)}`);
  const stillBlocked = blockedFolder(root, account);
  if (stillBlocked) throw new MountAccessError(`neither ${options.workDir} nor ${workDir} can be reached by the container account ${account.name}: ${describe(blocked)} and ${describe(stillBlocked)} do not let it pass; set CONTAINER_WORK_DIR to a folder it can reach`);
  mkdirSync(workDir, { recursive: true, mode: 0o711 });
  chmodSync(root, 0o711);
  chmodSync(workDir, 0o711);
  return { workDir, moved: `${options.workDir} cannot be reached by the container account ${account.name} (${describe(blocked)}): workspaces go to ${workDir}` };
}

const staged = new Map<string, string>();

/**
 * A copy of the agent bundle inside the work folder, which the containers' account reaches by construction (see
 * containerWorkDir), named by its content so that concurrent stations share one file and a new build gets a new one.
 */
export function stageAgentBundle(bundlePath: string, workDir: string): string {
  const stat = statSync(bundlePath);
  const key = `${bundlePath}:${stat.mtimeMs}:${stat.size}:${workDir}`;
  const known = staged.get(key);
  if (known && existsSync(known)) return known;
  const digest = createHash('sha256').update(readFileSync(bundlePath)).digest('hex').slice(0, 16);
  const dir = join(workDir, '.agent');
  const target = join(dir, `agent-${digest}.cjs`);
  if (!existsSync(target)) {
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    chmodSync(dir, 0o711);
    const temporary = `${target}.${process.pid}.tmp`;
    copyFileSync(bundlePath, temporary);
    chmodSync(temporary, 0o644);
    renameSync(temporary, target);
  }
  staged.set(key, target);
  return target;
}
