import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { eventually } from './webhooks';

/**
 * Makes a build the current version of a worker deployment with the Temporal CLI. Until that version's worker has
 * polled, the command fails; `eventually` keeps that error and names it if the wait runs out.
 */
export function setCurrentVersion(cliPath: string, address: string, deployment: string, buildId: string, timeoutMs = 60_000): Promise<true> {
  return eventually(async () => {
    await promisify(execFile)(cliPath, [
      'worker', 'deployment', 'set-current-version', '--deployment-name', deployment, '--build-id', buildId,
      '--address', address, '--namespace', 'default', '--yes',
    ]);
    return true as const;
  }, timeoutMs, `${deployment} ${buildId} to become the current version`);
}
