import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeRunningDev, RUNNING_DEV_FILE, writeRunningDev } from '../../../src/temporal/running-dev';
import { useRunningStack } from '../../../src/temporal/which-stack';

const dataDir = mkdtempSync(join(tmpdir(), 'running-dev-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
/** No stack registered for these: only --data-dir leads to the file. */
const noStacks = { SERVICE_STACKS_FILE: join(dataDir, 'no-stacks.json') };

describe('operator commands beside a running service dev', () => {
  it('take the variables the caller left unset, never the ones it set, and say which stack without naming secrets', () => {
    const path = writeRunningDev(dataDir, { TEMPORAL_ADDRESS: '127.0.0.1:7299', TEMPORAL_NAMESPACE: 'default', TEMPORAL_CLI_PATH: '/opt/temporal', MODEL_DEFAULT: 'sim:m', TRACKER_API_TOKEN: 'sandbox-secret' }, 'http://127.0.0.1:8123');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const env: NodeJS.ProcessEnv = { ...noStacks, TEMPORAL_NAMESPACE: 'mine', TRACKER_API_TOKEN: '' };
    const { line } = useRunningStack(env, { dataDir });
    expect(env).toMatchObject({ TEMPORAL_ADDRESS: '127.0.0.1:7299', TEMPORAL_NAMESPACE: 'mine', TEMPORAL_CLI_PATH: '/opt/temporal', MODEL_DEFAULT: 'sim:m', TRACKER_API_TOKEN: 'sandbox-secret' });
    expect(line).toBe(`using the stack of ${dataDir} (Temporal 127.0.0.1:7299, gateway :8123)`);
    expect(line).not.toContain('sandbox-secret');
  });

  it('ignore a file whose service dev is gone, and a data folder without one', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeRunningDev(dataDir, { TEMPORAL_ADDRESS: '127.0.0.1:7299' });
    const stale = JSON.parse(readFileSync(join(dataDir, RUNNING_DEV_FILE), 'utf8')) as { pid: number };
    stale.pid = gone;
    writeFileSync(join(dataDir, RUNNING_DEV_FILE), JSON.stringify(stale));
    const env: NodeJS.ProcessEnv = { ...noStacks };
    const nothingRuns = (dir: string) => `no service dev runs with the data folder ${dir}: going on with this environment's settings`;
    expect(useRunningStack(env, { dataDir }).line).toBe(nothingRuns(dataDir));
    expect(env.TEMPORAL_ADDRESS).toBeUndefined();
    expect(useRunningStack(env, { dataDir: join(dataDir, 'nothing') }).line).toBe(nothingRuns(join(dataDir, 'nothing')));
  });

  it('is removed when its service dev stops', () => {
    writeRunningDev(dataDir, { TEMPORAL_ADDRESS: '127.0.0.1:7299' });
    removeRunningDev(dataDir);
    expect(existsSync(join(dataDir, RUNNING_DEV_FILE))).toBe(false);
  });
});
