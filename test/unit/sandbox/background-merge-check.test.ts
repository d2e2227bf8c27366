import { describe, expect, it } from 'vitest';
import { BackgroundMergeChecks, checkPoint, knownMergeability, type MergeCheck } from '../../../src/sandbox/scmhost-simulator/background-merge-check';

describe('mergeability computed in the background, as GitHub and GitLab do', () => {
  it('is unknown on the first read after a move, known on the next, and unknown again after the next move', async () => {
    const checks = new BackgroundMergeChecks();
    let kept: MergeCheck | undefined;
    let runs = 0;
    const read = (at: string, clean: boolean) => checks.read('acme/app#1', at, kept, async () => { runs += 1; return clean; }, (check) => { kept = check; });

    expect(await read(checkPoint('b1', 'h1'), true)).toBeUndefined();
    expect(await read(checkPoint('b1', 'h1'), true)).toBe(true);
    expect(await read(checkPoint('b1', 'h1'), true)).toBe(true);
    expect(runs).toBe(1);
    // The base branch moved: the kept result is stale, whatever it said.
    expect(await read(checkPoint('b2', 'h1'), false)).toBeUndefined();
    expect(await read(checkPoint('b2', 'h1'), false)).toBe(false);
    expect(kept).toEqual({ at: 'b2..h1', mergeable: false });
    expect(knownMergeability(kept, 'b2..h1')).toBe(false);
    expect(knownMergeability(kept, 'b2..h2')).toBeUndefined();
  });

  it('keeps nothing when git could not tell, and tries again on the next read', async () => {
    const checks = new BackgroundMergeChecks();
    let kept: MergeCheck | undefined;
    let runs = 0;
    const answers: Array<() => Promise<boolean | undefined>> = [async () => { throw new Error('git failed'); }, async () => undefined, async () => true];
    const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
    const read = () => checks.read('p', 'b..h', kept, () => { runs += 1; return answers[runs - 1]!(); }, (check) => { kept = check; });
    expect(await read()).toBeUndefined();
    await settled();
    expect(await read()).toBeUndefined();
    await settled();
    expect(kept).toBeUndefined();
    expect(await read()).toBeUndefined();
    expect(await read()).toBe(true);
    expect(runs).toBe(3);
  });
});
