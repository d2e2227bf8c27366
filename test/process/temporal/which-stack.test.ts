import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registerRunningStack, readRunningStacks, runningStacksFile, unregisterRunningStack, type RunningStack } from '../../../src/temporal/running-stacks';
import { writeRunningDev } from '../../../src/temporal/running-dev';
import { AmbiguousStackError, chooseStack, useRunningStack } from '../../../src/temporal/which-stack';

const stack = (dataDir: string, pid: number, extra: Partial<RunningStack> = {}): RunningStack => ({
  pid, started_at: '2026-01-01T00:00:00.000Z', data_dir: dataDir, temporal_address: `127.0.0.1:${7000 + pid}`, namespace: 'default',
  gateway_url: `http://127.0.0.1:${8000 + pid}`, sandbox: false, ...extra,
});
const alive = (pids: number[]) => (pid: number) => pids.includes(pid);

describe('which stack an operator command talks to (the decision)', () => {
  const a = stack('/a/.data', 1);
  const b = stack('/b/.data', 2, { sandbox: true });

  it('none running: none; one running: that one; two: ambiguous, listing both', () => {
    expect(chooseStack({ stacks: [], isAlive: alive([]) })).toEqual({ kind: 'none' });
    expect(chooseStack({ stacks: [a], isAlive: alive([1]) })).toEqual({ kind: 'stack', stack: a });
    expect(chooseStack({ stacks: [a, b], isAlive: alive([1, 2]) })).toEqual({ kind: 'ambiguous', stacks: [a, b] });
  });

  it('a stack whose process is gone does not count', () => {
    expect(chooseStack({ stacks: [a, b], isAlive: alive([2]) })).toEqual({ kind: 'stack', stack: b });
    expect(chooseStack({ stacks: [a], isAlive: alive([]) })).toEqual({ kind: 'none' });
  });

  it('--data-dir wins over everything; TEMPORAL_ADDRESS of the caller wins over the running stacks', () => {
    expect(chooseStack({ dataDir: '/c/.data', explicitAddress: '10.0.0.1:7233', stacks: [a, b], isAlive: alive([1, 2]) })).toEqual({ kind: 'data-dir', dataDir: '/c/.data' });
    expect(chooseStack({ explicitAddress: '10.0.0.1:7233', stacks: [a, b], isAlive: alive([1, 2]) })).toEqual({ kind: 'environment', address: '10.0.0.1:7233' });
    expect(chooseStack({ explicitAddress: '  ', stacks: [a], isAlive: alive([1]) })).toEqual({ kind: 'stack', stack: a });
  });

  it('the sandbox commands count only sandbox stacks', () => {
    expect(chooseStack({ stacks: [a, b], isAlive: alive([1, 2]), sandboxOnly: true })).toEqual({ kind: 'stack', stack: b });
    expect(chooseStack({ stacks: [a], isAlive: alive([1]), sandboxOnly: true })).toEqual({ kind: 'none' });
  });
});

describe('the per-user list of running stacks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'which-stack-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const gone = () => spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;

  it('lives in SERVICE_STACKS_FILE, else under XDG_RUNTIME_DIR, else ~/.local/state', () => {
    expect(runningStacksFile({ SERVICE_STACKS_FILE: '/x/s.json', XDG_RUNTIME_DIR: '/run/user/1' })).toBe('/x/s.json');
    expect(runningStacksFile({ XDG_RUNTIME_DIR: '/run/user/1', HOME: '/home/u' })).toBe('/run/user/1/service/stacks.json');
    expect(runningStacksFile({ HOME: '/home/u' })).toBe('/home/u/.local/state/service/stacks.json');
  });

  it('a start adds its stack and drops dead entries; a stop removes it; written 0600 with no temporary file left', () => {
    const file = join(dir, 'list', 'stacks.json');
    registerRunningStack(file, stack('/dead', gone()));
    registerRunningStack(file, stack('/mine', process.pid));
    expect(readRunningStacks(file).map((s) => s.data_dir)).toEqual(['/mine']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('"temporal_address"');
    unregisterRunningStack(file, '/mine');
    expect(readRunningStacks(file)).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });

  it('an operator command with two stacks running and no --data-dir refuses, naming both; with one it takes its settings', () => {
    const file = join(dir, 'two.json');
    const one = join(dir, 'one');
    const two = join(dir, 'two');
    mkdirSync(one);
    mkdirSync(two);
    writeRunningDev(one, { TEMPORAL_ADDRESS: '127.0.0.1:7301', MODEL_DEFAULT: 'sim:m' }, 'http://127.0.0.1:8301');
    registerRunningStack(file, stack(one, process.pid, { temporal_address: '127.0.0.1:7301', gateway_url: 'http://127.0.0.1:8301' }));
    const env: NodeJS.ProcessEnv = { SERVICE_STACKS_FILE: file };
    expect(useRunningStack(env)).toEqual({ dataDir: one, line: `using the stack of ${one} (Temporal 127.0.0.1:7301, gateway :8301)` });
    expect(env).toMatchObject({ TEMPORAL_ADDRESS: '127.0.0.1:7301', MODEL_DEFAULT: 'sim:m' });

    // A second stack of this user (a process that is alive: this test's parent).
    registerRunningStack(file, stack(two, process.ppid, { temporal_address: '127.0.0.1:7302', gateway_url: 'http://127.0.0.1:8302' }));
    expect(() => useRunningStack({ SERVICE_STACKS_FILE: file })).toThrow(AmbiguousStackError);
    expect(() => useRunningStack({ SERVICE_STACKS_FILE: file })).toThrow(new RegExp(`2 stacks of service dev are running; say which with --data-dir:\\n  --data-dir ${one} .*7301.*\\n  --data-dir ${two} .*7302`));
    // Named, or the caller's own TEMPORAL_ADDRESS: no refusal.
    expect(useRunningStack({ SERVICE_STACKS_FILE: file }, { dataDir: one }).line).toContain(`the stack of ${one}`);
    // A folder where no stack runs is said so, not taken silently for the defaults.
    expect(useRunningStack({ SERVICE_STACKS_FILE: file }, { dataDir: join(dir, 'typo') })).toEqual({
      dataDir: join(dir, 'typo'), line: `no service dev runs with the data folder ${join(dir, 'typo')}: going on with this environment's settings`,
    });
    const own: NodeJS.ProcessEnv = { SERVICE_STACKS_FILE: file, TEMPORAL_ADDRESS: '127.0.0.1:9999' };
    expect(useRunningStack(own).line).toBe('using Temporal 127.0.0.1:9999 from TEMPORAL_ADDRESS (no running stack consulted)');
    expect(own.MODEL_DEFAULT).toBeUndefined();
  });
});
