import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * `npm run dev` must do only what `service dev` needs (issue 43): on a machine that already has the npm packages, the
 * build, the Temporal CLI and podman with its image, scripts/dev.sh starts no package manager and no Go build. Every
 * such program is shadowed on PATH by a stand-in that writes its name down and fails, so a call shows either way.
 */
const SHADOWED = ['apt-get', 'apt', 'dpkg', 'debootstrap', 'go', 'npm', 'pg_ctlcluster', 'pg_createcluster', 'initdb', 'pg_ctl'];

describe('scripts/dev.sh', () => {
  const shims = mkdtempSync(join(tmpdir(), 'dev-script-shims-'));
  const calls = join(shims, 'calls.log');
  afterAll(() => rmSync(shims, { recursive: true, force: true }));

  it('starts no package manager, no Go build and no PostgreSQL when what service dev needs is present', { timeout: 120_000 }, () => {
    for (const name of SHADOWED) {
      writeFileSync(join(shims, name), `#!/bin/sh\necho "${name} $*" >> "${calls}"\nexit 1\n`);
      chmodSync(join(shims, name), 0o755);
    }
    // What the test stands on: the packages, the build and the Temporal CLI are here (CI installs them first).
    expect(existsSync(join(ROOT, 'node_modules', '.package-lock.json'))).toBe(true);

    const result = spawnSync(join(ROOT, 'scripts', 'dev.sh'), ['--help'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${shims}:${process.env.PATH ?? ''}` },
      timeout: 110_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status, output.slice(-2000)).toBe(0);
    // The --help of `service dev` itself: dev.sh went all the way to the command.
    expect(result.stdout).toContain('--sandbox');
    expect(existsSync(calls) ? readFileSync(calls, 'utf8') : '', 'programs dev.sh started that service dev does not need').toBe('');
  });

  it('leaves PostgreSQL and promtool to the tests', () => {
    const dev = readFileSync(join(ROOT, 'scripts', 'dev.sh'), 'utf8') + readFileSync(join(ROOT, 'scripts', 'ensure-deps.sh'), 'utf8');
    expect(dev).not.toMatch(/setup-postgres|install-promtool|install-temporal-server/);
    expect(readFileSync(join(ROOT, 'scripts', 'test.sh'), 'utf8')).toContain('./scripts/ensure-test-deps.sh');
  });
});
