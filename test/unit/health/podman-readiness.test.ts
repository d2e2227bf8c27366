import { describe, expect, it } from 'vitest';
import { PodmanSetupError, type PodmanAccount } from '../../../src/containers/podman-account';
import { podmanReadiness } from '../../../src/health/podman-readiness';

const account: PodmanAccount = { name: 'service-podman', uid: 999, gid: 995, home: '/var/lib/service-podman', runtimeDir: '/tmp/service-podman-runtime-999', switchUser: true };

describe('podmanReadiness', () => {
  it('passes with podman\'s version when `podman info` works as the account', async () => {
    const calls: string[][] = [];
    const check = await podmanReadiness(() => account, async (_a, args) => { calls.push(args); return { code: 0, stdout: '4.3.1\n', stderr: '' }; });
    expect(check).toEqual({ name: 'podman', status: 'pass', detail: 'podman 4.3.1 as service-podman (the rootless account of a root worker)' });
    expect(calls).toEqual([['info', '--format', '{{.Version.Version}}']]);
  });

  it('fails with podman\'s last error line', async () => {
    const check = await podmanReadiness(() => account, async () => ({ code: 125, stdout: '', stderr: 'time="x" level=warning\nError: cannot set up namespace using "/usr/bin/newuidmap"\n' }));
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('podman info as service-podman failed: Error: cannot set up namespace using "/usr/bin/newuidmap"');
  });

  it('fails when the containers\' account does not exist', async () => {
    const check = await podmanReadiness(() => { throw new PodmanSetupError('the account "service-podman" does not exist'); }, async () => { throw new Error('must not run'); });
    expect(check).toEqual({ name: 'podman', status: 'fail', detail: 'the account "service-podman" does not exist' });
  });
});
