import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adoptRunningDev, removeRunningDev, RUNNING_DEV_FILE, writeRunningDev } from '../../../src/temporal/running-dev';

const dataDir = mkdtempSync(join(tmpdir(), 'running-dev-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('operator commands beside a running service dev', () => {
  it('take the variables the caller left unset, never the ones it set, and say so without naming secrets', () => {
    const path = writeRunningDev(dataDir, { TEMPORAL_ADDRESS: '127.0.0.1:7299', TEMPORAL_NAMESPACE: 'default', TEMPORAL_CLI_PATH: '/opt/temporal', MODEL_DEFAULT: 'sim:m', TRACKER_API_TOKEN: 'sandbox-secret' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const env: NodeJS.ProcessEnv = { TEMPORAL_NAMESPACE: 'mine', TRACKER_API_TOKEN: '' };
    const line = adoptRunningDev(env, dataDir);
    expect(env).toMatchObject({ TEMPORAL_ADDRESS: '127.0.0.1:7299', TEMPORAL_NAMESPACE: 'mine', TEMPORAL_CLI_PATH: '/opt/temporal', MODEL_DEFAULT: 'sim:m', TRACKER_API_TOKEN: 'sandbox-secret' });
    expect(line).toContain(`using the running service dev (pid ${process.pid}, data ${dataDir})`);
    expect(line).toContain('TEMPORAL_ADDRESS');
    expect(line).not.toContain('TRACKER_API_TOKEN');
    expect(line).not.toContain('sandbox-secret');
  });

  it('ignore a file whose service dev is gone, and a data folder without one', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeRunningDev(dataDir, { TEMPORAL_ADDRESS: '127.0.0.1:7299' });
    const stale = JSON.parse(readFileSync(join(dataDir, RUNNING_DEV_FILE), 'utf8')) as { pid: number };
    stale.pid = gone;
    writeFileSync(join(dataDir, RUNNING_DEV_FILE), JSON.stringify(stale));
    const env: NodeJS.ProcessEnv = {};
    expect(adoptRunningDev(env, dataDir)).toBeUndefined();
    expect(env.TEMPORAL_ADDRESS).toBeUndefined();
    expect(adoptRunningDev(env, join(dataDir, 'nothing'))).toBeUndefined();
  });

  it('is removed when its service dev stops', () => {
    writeRunningDev(dataDir, { TEMPORAL_ADDRESS: '127.0.0.1:7299' });
    removeRunningDev(dataDir);
    expect(existsSync(join(dataDir, RUNNING_DEV_FILE))).toBe(false);
  });
});
