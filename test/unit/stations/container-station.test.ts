import { describe, expect, it } from 'vitest';
import { containerOutcome } from '../../../activities/stations/container-station';

describe('containerOutcome', () => {
  const run = { agentStatus: 'done', outputsMissing: false, verdict: 'not_reviewed', committed: false };
  it('maps what happened in the container; without a commit (always so in a read-only run) it is never changed', () => {
    expect(containerOutcome(run)).toBe('no_changes');
    expect(containerOutcome({ ...run, committed: true })).toBe('changed');
    expect(containerOutcome({ ...run, agentStatus: 'failed', outputsMissing: true })).toBe('agent_failed');
    expect(containerOutcome({ ...run, outputsMissing: true })).toBe('outputs_missing');
    expect(containerOutcome({ ...run, verdict: 'REJECTED' })).toBe('review_rejected');
  });
});
