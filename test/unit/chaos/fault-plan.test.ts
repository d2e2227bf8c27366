import { describe, expect, it } from 'vitest';
import { describeFault, planFaults } from '../../../chaos/fault-plan';
import { createPrng } from '../../../chaos/prng';
import { webhookFate } from '../../../src/sandbox/fault-injector';

describe('the fault plan of a seed', () => {
  it('is the same for the same seed, sorted by time and inside the span', () => {
    const plan = (seed: number) => planFaults(createPrng(seed), { spanMs: 30_000, count: [3, 6] });
    expect(plan(5)).toEqual(plan(5));
    const { faults } = plan(5);
    expect(faults.length).toBeGreaterThanOrEqual(3);
    expect(faults.length).toBeLessThanOrEqual(6);
    expect(faults.map((f) => f.atMs)).toEqual([...faults.map((f) => f.atMs)].sort((a, b) => a - b));
    for (const { atMs } of faults) expect(atMs >= 1_000 && atMs <= 30_000).toBe(true);
  });

  it('draws every kind of fault over a few seeds: kills of each process and each vendor fault', () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 60; seed += 1) {
      for (const { fault } of planFaults(createPrng(seed), { spanMs: 60_000, count: [2, 6] }).faults) {
        seen.add(fault.kind === 'kill' ? `kill ${fault.target}` : fault.kind === 'second-worker' ? `second worker ${fault.stop}` : `${fault.host} ${fault.rule.kind}`);
      }
    }
    for (const expected of ['second worker SIGTERM', 'second worker SIGKILL', 'kill worker', 'kill gateway', 'kill temporal', 'tracker rate-limit', 'tracker apply-then-timeout', 'scmhost status', 'scmhost drop-connection', 'git apply-then-timeout', 'model status']) {
      expect(seen).toContain(expected);
    }
    // A git push has no Retry-After to honour: its faults are the transport's.
    expect(seen).not.toContain('git rate-limit');
  });

  it('honours a plan without process or vendor faults', () => {
    for (let seed = 1; seed <= 20; seed += 1) {
      const vendorOnly = planFaults(createPrng(seed), { spanMs: 10_000, count: [5, 5], processFaults: false });
      expect(vendorOnly.faults.every((f) => f.fault.kind === 'vendor')).toBe(true);
    }
    const quietHooks = planFaults(createPrng(9), { spanMs: 10_000, count: [1, 1], webhookFaults: false });
    expect(quietHooks.webhooks).toMatchObject({ drop: 0, duplicate: 0, delay: 0 });
  });

  it('adds the second worker without shifting the faults a seed drew before it existed', () => {
    let withWorker = 0;
    for (let seed = 1; seed <= 40; seed += 1) {
      const plan = planFaults(createPrng(seed), { spanMs: 60_000, count: [2, 6] });
      const without = planFaults(createPrng(seed), { spanMs: 60_000, count: [2, 6], secondWorkerOdds: 0 });
      expect(plan.faults.filter((f) => f.fault.kind !== 'second-worker')).toEqual(without.faults);
      expect(plan.webhooks).toEqual(without.webhooks);
      const second = plan.faults.filter((f) => f.fault.kind === 'second-worker');
      expect(second.length).toBeLessThanOrEqual(1);
      for (const { atMs, fault } of second) {
        withWorker += 1;
        // Up for a while inside the busy part of the run, so activities can land on it.
        expect(atMs).toBeLessThanOrEqual(30_000);
        if (fault.kind === 'second-worker') expect(fault.upMs).toBeGreaterThanOrEqual(5_000);
      }
    }
    expect(withWorker).toBeGreaterThan(5);
    expect(withWorker).toBeLessThan(35);
  });

  it('describes a fault the way the timeline prints it', () => {
    expect(describeFault({ kind: 'kill', target: 'temporal', downMs: 1500 })).toBe('SIGKILL temporal, restarted after 1500 ms');
    expect(describeFault({ kind: 'second-worker', upMs: 12_000, stop: 'SIGKILL' })).toBe('second worker started, SIGKILL after 12000 ms');
    expect(describeFault({ kind: 'vendor', host: 'tracker', write: 'tracker comment', rule: { kind: 'rate-limit', retryAfterSeconds: 2, times: 2 } })).toBe('tracker: tracker comment → 429 Retry-After 2 s ×2');
  });
});

describe('a webhook delivery fate', () => {
  const odds = { drop: 0.1, duplicate: 0.2, delay: 0.3, maxDelayMs: 1000 };
  it('follows the odds in order: drop, duplicate, delay, forward', () => {
    expect(webhookFate(odds, () => 0.05).kind).toBe('drop');
    expect(webhookFate(odds, () => 0.25).kind).toBe('duplicate');
    const rolls = [0.5, 0.42];
    expect(webhookFate(odds, () => rolls.shift()!)).toEqual({ kind: 'delay', ms: 420 });
    expect(webhookFate(odds, () => 0.61).kind).toBe('forward');
    expect(webhookFate({ drop: 0, duplicate: 0, delay: 0, maxDelayMs: 0 }, () => 0).kind).toBe('forward');
  });
});
