import { failed, passed, type CheckResult } from './readiness';
import { podman, PodmanSetupError, type PodmanAccount, type PodmanOutput } from '../containers/podman-account';

export const PODMAN_CHECK = 'podman';

/**
 * Whether podman works as the containers' account, which every container station needs. `podman info` reads the
 * account's storage and runtime without starting a container; it still forks, so callers cache the answer.
 */
export async function podmanReadiness(
  account: () => PodmanAccount,
  run: (account: PodmanAccount, args: string[], timeoutMs: number) => Promise<PodmanOutput> = podman,
  timeoutMs = 10_000,
): Promise<CheckResult> {
  let resolved: PodmanAccount;
  try {
    resolved = account();
  } catch (error) {
    if (error instanceof PodmanSetupError) return failed(PODMAN_CHECK, error.message);
    throw error;
  }
  const info = await run(resolved, ['info', '--format', '{{.Version.Version}}'], timeoutMs);
  if (info.code !== 0) {
    const why = info.stderr.trim().split('\n').pop() || `exit code ${info.code}`;
    return failed(PODMAN_CHECK, `podman info as ${resolved.name} failed: ${why} (scripts/setup-rootless-podman.sh sets the account up)`);
  }
  return passed(PODMAN_CHECK, `podman ${info.stdout.trim()} as ${resolved.name}${resolved.switchUser ? ' (the rootless account of a root worker)' : ''}`);
}
