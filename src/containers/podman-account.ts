import { execFile, execFileSync } from 'node:child_process';

/**
 * Who runs podman (DESIGN 3): containers are always rootless. A worker running as root runs podman as an
 * unprivileged account (SERVICE_PODMAN_USER, default `service-podman`, set up by scripts/setup-rootless-podman.sh
 * with subordinate ids); any other worker runs podman as itself. podman gets a minimal environment, never the
 * worker's, so no credential of the worker reaches it.
 */
export interface PodmanAccount {
  name: string;
  uid: number;
  gid: number;
  home: string;
  runtimeDir: string;
  /** True when the worker is root and switches to the account for every podman call. */
  switchUser: boolean;
}

export class PodmanSetupError extends Error {
  override readonly name = 'PodmanSetupError';
}

export const DEFAULT_PODMAN_USER = 'service-podman';

export function resolvePodmanAccount(env: NodeJS.ProcessEnv = process.env): PodmanAccount {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) {
    const name = env.USER ?? String(uid);
    return { name, uid, gid: process.getgid?.() ?? uid, home: env.HOME ?? '/tmp', runtimeDir: env.XDG_RUNTIME_DIR ?? `/tmp/podman-runtime-${uid}`, switchUser: false };
  }
  const name = env.SERVICE_PODMAN_USER || DEFAULT_PODMAN_USER;
  let entry: string;
  try {
    entry = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim();
  } catch {
    throw new PodmanSetupError(`the worker runs as root, so containers run as the unprivileged account "${name}", which does not exist: run scripts/setup-rootless-podman.sh (or set SERVICE_PODMAN_USER to an account with subordinate ids)`);
  }
  const [, , accountUid, accountGid, , home] = entry.split(':');
  const numericUid = Number(accountUid);
  return { name, uid: numericUid, gid: Number(accountGid), home: home ?? '/tmp', runtimeDir: `/tmp/${name}-runtime-${numericUid}`, switchUser: true };
}

export interface PodmanOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** The options that make a child process run as the account with only what podman needs in its environment. */
export function podmanSpawnOptions(account: PodmanAccount) {
  return {
    cwd: '/',
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: account.home, XDG_RUNTIME_DIR: account.runtimeDir, LANG: 'C.UTF-8' },
    ...(account.switchUser ? { uid: account.uid, gid: account.gid } : {}),
  };
}

/** One podman command to completion (not for `run`, which run-container.ts supervises). */
export function podman(account: PodmanAccount, args: string[], timeoutMs = 120_000): Promise<PodmanOutput> {
  return new Promise((resolve) => {
    execFile('podman', args, { ...podmanSpawnOptions(account), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (error as unknown as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr: stderr || (error && code !== 0 && !stderr ? error.message : '') });
    });
  });
}
