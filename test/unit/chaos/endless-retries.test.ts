import { describe, expect, it } from 'vitest';
import { ENDLESS_RETRY_ATTEMPT, checkNoEndlessRetries, retryingActivities } from '../../../chaos/endless-retries';

describe('no activity retries without end', () => {
  it('passes first attempts and a second attempt that a cleared fault left behind', () => {
    const pending = [
      { workflowId: 'ticket-SBX-1', activity: 'runStation', attempt: 1 },
      { workflowId: 'poll-scmhost', activity: 'pollScmHost', attempt: ENDLESS_RETRY_ATTEMPT - 1, lastFailure: '503 from the source host' },
    ];
    expect(retryingActivities(pending)).toEqual([]);
    expect(checkNoEndlessRetries(pending, 60)).toEqual([]);
  });

  it('names the ticket, the activity, its attempt and its last failure when one is still failing after the grace period', () => {
    const [violation, ...rest] = checkNoEndlessRetries([
      { workflowId: 'ticket-SBX-7', activity: 'applyEffect', attempt: 9, lastFailure: 'TypeError: cannot read properties of undefined' },
      { workflowId: 'poller', activity: 'pollTracker', attempt: ENDLESS_RETRY_ATTEMPT },
    ], 60);
    expect(violation).toEqual({
      invariant: 'no activity retries without end', ticket: 'SBX-7', write: 'applyEffect',
      detail: 'ticket-SBX-7: applyEffect is at attempt 9 60 s after the faults were cleared; last failure: TypeError: cannot read properties of undefined',
    });
    expect(rest).toHaveLength(1);
    expect(rest[0]!.ticket).toBeUndefined();
    expect(rest[0]!.detail).toContain('poller: pollTracker is at attempt 3');
  });
});
