import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../src/temporal/temporal-cli-locator';

const root = projectRoot();
let ready: string | undefined;

/**
 * The task image and the rootless account, prepared once per test process: the build script keeps the image and
 * rebuilds it only when its recipe changes, so this costs about a second after the first run. Fails (never skips)
 * with the script's message when podman is not installed.
 */
export function ensureContainerImage(tag = 'service-dev:latest'): string {
  if (ready === tag) return tag;
  const env = { ...process.env, SERVICE_PODMAN_SKIP_INSTALL: process.env.SERVICE_PODMAN_SKIP_INSTALL ?? '1' };
  execFileSync('bash', [join(root, 'scripts', 'setup-rootless-podman.sh')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('bash', [join(root, 'scripts', 'build-offline-image.sh'), tag], { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  ready = tag;
  return tag;
}
