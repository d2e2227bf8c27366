import { describe, expect, it } from 'vitest';
import { cachedFor } from '../../../src/health/cached-check';

describe('cachedFor', () => {
  it('evaluates once per ttl', async () => {
    let now = 1_000;
    let calls = 0;
    const check = cachedFor(15_000, async () => ++calls, () => now);
    expect(await check()).toBe(1);
    now += 14_999;
    expect(await check()).toBe(1);
    now += 1;
    expect(await check()).toBe(2);
  });

  it('shares one evaluation among callers that ask while it runs', async () => {
    let calls = 0;
    let finish!: (value: number) => void;
    const check = cachedFor(1_000, () => { calls += 1; return new Promise<number>((resolve) => { finish = resolve; }); });
    const both = Promise.all([check(), check()]);
    finish(7);
    expect(await both).toEqual([7, 7]);
    expect(calls).toBe(1);
  });

  it('keeps nothing from an evaluation that threw', async () => {
    let calls = 0;
    const check = cachedFor(60_000, async () => {
      calls += 1;
      if (calls === 1) throw new Error('first fails');
      return 'second';
    });
    await expect(check()).rejects.toThrow('first fails');
    expect(await check()).toBe('second');
  });
});
