import { describe, expect, it } from 'vitest';
import { MAX_POLL_LOOKBACK_SECONDS, pollWindow } from '../../../src/poller/poll-window';
import { lastPollWatermarks } from '../../../workflows/polling/poll-watermarks';

const now = new Date('2026-11-25T10:00:00Z');

describe('the poll window', () => {
  it('reads the configured lookback when no poll has succeeded yet', () => {
    expect(pollWindow({ now, lookbackSeconds: 600, overlapSeconds: 60, watermark: null })).toEqual({ lookbackSeconds: 600, since: new Date('2026-11-25T09:50:00Z') });
  });

  it('reads from the last watermark less the overlap, however long ago it was', () => {
    expect(pollWindow({ now, lookbackSeconds: 600, overlapSeconds: 60, watermark: '2026-11-25T09:58:00.000Z' }).since).toEqual(new Date('2026-11-25T09:57:00Z'));
    // The worker was down for an hour: the poll catches up on the whole hour, not just the configured lookback.
    expect(pollWindow({ now, lookbackSeconds: 600, overlapSeconds: 60, watermark: '2026-11-25T09:00:00.000Z' }).lookbackSeconds).toBe(3660);
    expect(pollWindow({ now, lookbackSeconds: 600, overlapSeconds: 0, watermark: '2026-10-01T00:00:00.000Z' }).lookbackSeconds).toBe(MAX_POLL_LOOKBACK_SECONDS);
  });

  it('ignores a watermark from the future (a clock that jumped back) and one that does not parse', () => {
    expect(pollWindow({ now, lookbackSeconds: 600, overlapSeconds: 60, watermark: '2026-11-25T11:00:00.000Z' }).lookbackSeconds).toBe(600);
    expect(pollWindow({ now, lookbackSeconds: 600, overlapSeconds: 60, watermark: 'yesterday' }).lookbackSeconds).toBe(600);
  });

  it('takes each source\'s watermark from the last successful poll\'s result, and nothing from an older result', () => {
    expect(lastPollWatermarks([
      { source: 'tracker', observed: 3, started: 0, signalled: 3, ignored: 0, skipped: null, watermark: '2026-11-25T09:58:00.000Z' },
      { source: 'scmhost', observed: 0, started: 0, signalled: 0, ignored: 0, skipped: 'source host is not configured', watermark: null },
      { source: 'gitlab', observed: 1, started: 0, signalled: 1, ignored: 0, skipped: null, watermark: '2026-11-25T09:58:01.000Z' },
    ])).toEqual({ tracker: '2026-11-25T09:58:00.000Z', gitlab: '2026-11-25T09:58:01.000Z' });
    expect(lastPollWatermarks([{ source: 'tracker', observed: 3, started: 0, signalled: 3, ignored: 0, skipped: null }])).toEqual({});
    expect(lastPollWatermarks(undefined)).toEqual({});
  });
});
