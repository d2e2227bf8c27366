import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINER_LABEL } from '../../src/containers/container-args';
import { removeFinishedOwnContainers, WORKER_LABEL, workerLabelValue } from '../../src/containers/orphan-sweep';
import { podman, resolvePodmanAccount, type PodmanAccount } from '../../src/containers/podman-account';
import { ensureContainerImage } from '../helpers/container-image';

/**
 * Issue 43 point 7: a graceful stop of the worker removes the task containers of finished stations it started (the
 * stop path of src/worker.ts calls removeFinishedOwnContainers after the running ones settled). Real rootless podman:
 * a finished container of this worker goes; a running one of this worker (left to the shutdown grace) and a finished
 * one of another worker stay.
 */
describe('a stopping worker removes its finished task containers', () => {
  let account: PodmanAccount;
  let image: string;
  const suffix = `${process.pid}-${Date.now()}`;
  const names = { finished: `stop-cleanup-finished-${suffix}`, running: `stop-cleanup-running-${suffix}`, foreign: `stop-cleanup-foreign-${suffix}` };
  const run = async (name: string, owner: string, detached: boolean, command: string[]) => {
    const ran = await podman(account, ['run', ...(detached ? ['-d'] : []), '--name', name, '--runtime', 'runc', '--network', 'none',
      '--label', `${CONTAINER_LABEL}=true`, '--label', `${WORKER_LABEL}=${owner}`, image, ...command], 120_000);
    expect(ran.code, ran.stderr).toBe(0);
  };
  const exists = async (name: string) => (await podman(account, ['container', 'exists', name], 30_000)).code === 0;

  beforeAll(async () => {
    image = ensureContainerImage();
    account = resolvePodmanAccount();
    await run(names.finished, workerLabelValue(), false, ['true']);
    await run(names.foreign, `${workerLabelValue().split(':')[0]}:1`, false, ['true']);
    await run(names.running, workerLabelValue(), true, ['sleep', '120']);
  }, 600_000);

  afterAll(async () => {
    for (const name of Object.values(names)) await podman(account, ['rm', '--force', '--time', '0', '--ignore', name], 60_000);
  }, 120_000);

  it('removes the finished container of this worker, and only that one', async () => {
    expect(await exists(names.finished)).toBe(true);
    const removed = await removeFinishedOwnContainers(account);
    expect(removed).toEqual([names.finished]);
    expect(await exists(names.finished)).toBe(false);
    expect(await exists(names.running)).toBe(true);
    expect(await exists(names.foreign)).toBe(true);
  });
});
