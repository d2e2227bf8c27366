import { describe, expect, it } from 'vitest';
import { eventually, WaitAborted } from '../../helpers/webhooks';

describe('the tests\' wait', () => {
  it('stops at once, naming why, when the probe says the wait can no longer succeed', async () => {
    const started = Date.now();
    await expect(eventually(async () => { throw new WaitAborted('SBX-1 is blocked at implement_task: station_failed'); }, 60_000, 'SBX-1 at the review gate'))
      .rejects.toThrow('gave up waiting for SBX-1 at the review gate: SBX-1 is blocked at implement_task: station_failed');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('names the last error of a probe when the time runs out', async () => {
    await expect(eventually(async () => { throw new Error('not yet: 404'); }, 500, 'the branch')).rejects.toThrow('timed out waiting for the branch: not yet: 404');
  });
});
