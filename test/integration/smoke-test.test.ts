import { describe, expect, inject, it } from 'vitest';
import { startService } from '../helpers/service-process';

describe('service smoke-test', () => {
  it('runs a 2-node graph that resumes on a second worker, a rootless container, and the agent in it; exit 0', async () => {
    const run = startService(['smoke-test'], { TEMPORAL_CLI_PATH: inject('temporalCliPath') });
    const code = await run.exited;
    const lines = run.stdout().split('\n').filter((line) => /^(ok|FAIL|n\/a)/.test(line));
    expect(lines.map((line) => line.slice(0, 4))).toEqual(['ok  ', 'ok  ', 'ok  ']);
    expect(lines[0]).toMatch(/^ok {3}2-node graph resumes after a worker restart: .*smoke_first@a → smoke_first@b → smoke_second@b; completed at the end node$/);
    expect(run.stdout()).toContain('smoke test passed');
    expect(code).toBe(0);
  }, 240_000);
});
