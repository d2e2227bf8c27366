import { describe, expect, it } from 'vitest';
import { failed, passed } from '../../../src/health/readiness';
import { createReadinessProbe } from '../../../src/health/readiness-probe';

describe('createReadinessProbe', () => {
  it('runs every check and flattens chains of checks', async () => {
    const probe = createReadinessProbe({
      checks: [
        { name: 'temporal', run: async () => [passed('temporal', 'up'), passed('namespace', 'ns')] },
        { name: 'podman', run: async () => passed('podman', 'podman 4.3.1') },
      ],
      stopping: () => undefined,
    });
    const answer = await probe();
    expect(answer.statusCode).toBe(200);
    expect(answer.body.checks.map((c) => c.name)).toEqual(['temporal', 'namespace', 'podman']);
  });

  it('reports a check that throws under its name, with the error', async () => {
    const probe = createReadinessProbe({
      checks: [{ name: 'podman', run: async () => { throw new Error('spawn podman ENOENT'); } }],
      stopping: () => undefined,
    });
    expect((await probe()).body.failed).toEqual([{ name: 'podman', reason: 'spawn podman ENOENT' }]);
  });

  it('fails a check that does not answer in time, without waiting for it', async () => {
    const probe = createReadinessProbe({
      checks: [{ name: 'temporal', run: () => new Promise(() => undefined) }, { name: 'podman', run: async () => passed('podman', 'ok') }],
      stopping: () => undefined,
      timeoutMs: 50,
    });
    const started = Date.now();
    const answer = await probe();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(answer.statusCode).toBe(503);
    expect(answer.body.failed).toEqual([{ name: 'temporal', reason: 'did not answer within 0.05 s' }]);
  });

  it('names the rest of a chain as not checked when the chain throws', async () => {
    const probe = createReadinessProbe({
      checks: [{ name: 'temporal', dependents: ['namespace'], run: async () => { throw new Error('boom'); } }],
      stopping: () => undefined,
    });
    expect((await probe()).body.failed).toEqual([{ name: 'temporal', reason: 'boom' }, { name: 'namespace', reason: 'not checked: temporal did not answer' }]);
  });

  it('answers 503 at once while stopping, without running the checks', async () => {
    let ran = 0;
    const probe = createReadinessProbe({
      checks: [{ name: 'temporal', run: async () => { ran += 1; return passed('temporal', 'up'); } }],
      stopping: () => 'the gateway is shutting down',
    });
    const answer = await probe();
    expect(ran).toBe(0);
    expect(answer).toEqual({
      statusCode: 503,
      body: { status: 'not_ready', failed: [{ name: 'shutdown', reason: 'the gateway is shutting down' }], checks: [failed('shutdown', 'the gateway is shutting down')] },
    });
  });

  it('lets a stop that began during the checks win over their passes', async () => {
    let stopping: string | undefined;
    const probe = createReadinessProbe({
      checks: [{ name: 'temporal', run: async () => { stopping = 'stopping now'; return passed('temporal', 'up'); } }],
      stopping: () => stopping,
    });
    expect((await probe()).body.failed).toEqual([{ name: 'shutdown', reason: 'stopping now' }]);
  });
});
