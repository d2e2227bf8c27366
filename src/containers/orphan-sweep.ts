import { hostname } from 'node:os';
import { CONTAINER_LABEL } from './container-args';
import { podman, type PodmanAccount } from './podman-account';
import { removeContainer } from './run-container';
import { processAlive } from '../process/process-alive';

export const WORKER_LABEL = 'service.worker';

/** The label that says which worker process owns a container: `<host>:<pid>`. */
export function workerLabelValue(pid = process.pid): string {
  return `${hostname()}:${pid}`;
}


/**
 * Which containers are orphans: owned by a worker of this host whose process is gone. Containers without the label
 * were not started by a worker (a person's, a test's) and are left alone.
 */
export function orphanNames(containers: Array<{ Names?: string[] | string; Labels?: Record<string, string> | null }>, host = hostname(), isAlive = processAlive): string[] {
  const names: string[] = [];
  for (const container of containers) {
    const owner = container.Labels?.[WORKER_LABEL] ?? '';
    const [ownerHost, ownerPid] = owner.split(':');
    if (!owner || ownerHost !== host || isAlive(Number(ownerPid))) continue;
    const name = Array.isArray(container.Names) ? container.Names[0] : container.Names;
    if (name) names.push(name);
  }
  return names;
}

/**
 * Removes task containers left behind by a worker that died (SIGKILL, a crash, a reboot): run at worker start. A
 * container of a worker that still runs on this host is left alone, so two workers can share the account.
 */
export async function sweepOrphanContainers(account: PodmanAccount): Promise<string[]> {
  const listed = await podman(account, ['ps', '--all', '--filter', `label=${CONTAINER_LABEL}=true`, '--format', 'json'], 60_000);
  if (listed.code !== 0) throw new Error(`podman ps failed: ${listed.stderr.trim()}`);
  const names = orphanNames(JSON.parse(listed.stdout || '[]') as Array<{ Names?: string[]; Labels?: Record<string, string> }>);
  for (const name of names) await removeContainer(account, name);
  return names;
}

type Listed = { Names?: string[] | string; Labels?: Record<string, string> | null; State?: string };

/**
 * Which containers a stopping worker removes: its own (its label), no longer running. A finished station's container
 * is removed when its run ends (run-container.ts); one whose removal did not get through (podman busy or interrupted
 * while the stack stopped) would otherwise wait for the next start's sweep. A running one is left to the shutdown
 * grace and the removal of its run, which already handle it.
 */
export function finishedOwnNames(containers: Listed[], owner = workerLabelValue()): string[] {
  return containers.flatMap((container) => {
    if (container.Labels?.[WORKER_LABEL] !== owner || (container.State ?? '').toLowerCase() === 'running') return [];
    const name = Array.isArray(container.Names) ? container.Names[0] : container.Names;
    return name ? [name] : [];
  });
}

/** At worker stop: removes this worker's finished task containers; returns their names. */
export async function removeFinishedOwnContainers(account: PodmanAccount): Promise<string[]> {
  const listed = await podman(account, ['ps', '--all', '--filter', `label=${WORKER_LABEL}=${workerLabelValue()}`, '--format', 'json'], 30_000);
  if (listed.code !== 0) throw new Error(`podman ps failed: ${listed.stderr.trim()}`);
  const names = finishedOwnNames(JSON.parse(listed.stdout || '[]') as Listed[]);
  for (const name of names) await removeContainer(account, name);
  return names;
}

/** At worker start: sweep in the background, never delaying or failing the start (podman may not be installed). */
export function sweepOrphansInBackground(account: () => PodmanAccount, logger: { info(m: string, f?: Record<string, unknown>): void; warn(m: string, f?: Record<string, unknown>): void }): void {
  void (async () => {
    try {
      const removed = await sweepOrphanContainers(account());
      if (removed.length > 0) logger.info('removed orphaned task containers', { containers: removed });
    } catch (error) {
      logger.warn('could not sweep orphaned task containers; container stations may fail on this host', { error: (error as Error).message });
    }
  })();
}
