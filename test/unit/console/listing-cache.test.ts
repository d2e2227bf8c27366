import { describe, expect, it } from 'vitest';
import { boardTicketOf, type BoardTicket } from '../../../src/console/board/board-ticket';
import { ListingCache } from '../../../src/console/listing-cache';
import { listedOf, viewOf } from '../../helpers/console-fixtures';

/** A walk of visibility the test answers by hand: each call waits until the test resolves or fails it. */
function manualWalk() {
  const calls: Array<{ days: number; resolve: (tickets: BoardTicket[]) => void; reject: (error: Error) => void }> = [];
  const walk = (days: number) => new Promise<BoardTicket[]>((resolve, reject) => calls.push({ days, resolve, reject }));
  return { walk, calls };
}

const tickets = (...keys: string[]) => keys.map((key) => boardTicketOf(listedOf(viewOf(key))));
const keysOf = (listing: { tickets: BoardTicket[] }) => listing.tickets.map((t) => t.key);
const settle = () => new Promise((r) => setImmediate(r));

/**
 * A cache whose first listing (BUG-1) was read at time 0 in `readTookMs`, on a clock the test moves by setting
 * `clock.now`.
 */
async function listedOnce(options: { readTookMs?: number; waitForReadMs?: number; onRefreshError?: (error: unknown) => void } = {}) {
  const clock = { now: 0 };
  const { walk, calls } = manualWalk();
  const cache = new ListingCache(walk, { refreshAfterMs: 3_000, maxAgeMs: 60_000, now: () => clock.now, ...options });
  const first = cache.list(7);
  clock.now = options.readTookMs ?? 0;
  calls[0]!.resolve(tickets('BUG-1'));
  await first;
  return { cache, calls, clock };
}

/** Whether `answer` settles without a timer running first (at once, not after a wait). */
async function answersAtOnce<T>(answer: Promise<T>): Promise<T> {
  let settled = false;
  void answer.then(() => { settled = true; }, () => { settled = true; });
  await settle();
  expect(settled, 'answered at once').toBe(true);
  return answer;
}

describe('ListingCache', () => {
  it('makes the first request wait for a walk, shares that walk, and answers from the listing until it is refreshAfterMs old', async () => {
    let clock = 1_000_000;
    const { walk, calls } = manualWalk();
    const cache = new ListingCache(walk, { refreshAfterMs: 3_000, maxAgeMs: 60_000, now: () => clock });
    const first = cache.list(7);
    const second = cache.list(7);
    expect(calls).toHaveLength(1);
    calls[0]!.resolve(tickets('BUG-1'));
    expect(keysOf(await first)).toEqual(['BUG-1']);
    expect(await second).toBe(await first);
    expect((await first).listedAt.getTime()).toBe(1_000_000);
    clock += 2_999;
    expect(await cache.list(7)).toBe(await first);
    expect(calls).toHaveLength(1);
  });

  it('past refreshAfterMs, when the last walk was slow, answers at once from the listing kept and reads it again in the background, one walk at a time', async () => {
    const { cache, calls, clock } = await listedOnce({ readTookMs: 2_000 });
    clock.now = 5_000;
    // Answered without waiting for the walk it started.
    expect(keysOf(await answersAtOnce(cache.list(7)))).toEqual(['BUG-1']);
    expect(calls).toHaveLength(2);
    expect(keysOf(await answersAtOnce(cache.list(7)))).toEqual(['BUG-1']);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve(tickets('BUG-1', 'BUG-2'));
    await settle();
    const next = await cache.list(7);
    expect(keysOf(next)).toEqual(['BUG-1', 'BUG-2']);
    expect(next.listedAt.getTime()).toBe(5_000);
    expect(calls).toHaveLength(2);
  });

  it('past refreshAfterMs, when walks are quick, waits for the walk it starts and answers with the new listing', async () => {
    const { cache, calls, clock } = await listedOnce({ readTookMs: 20 });
    clock.now = 5_000;
    const answer = cache.list(7);
    const joined = cache.list(7);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve(tickets('BUG-1', 'BUG-2'));
    expect(keysOf(await answer)).toEqual(['BUG-1', 'BUG-2']);
    expect(keysOf(await joined)).toEqual(['BUG-1', 'BUG-2']);
    expect((await answer).listedAt.getTime()).toBe(5_000);
  });

  it('waits no longer than waitForReadMs for a quick walk that hangs or fails: then the listing kept answers', async () => {
    const { cache, calls, clock } = await listedOnce({ readTookMs: 5, waitForReadMs: 30 });
    clock.now = 5_000;
    const began = performance.now();
    expect(keysOf(await cache.list(7))).toEqual(['BUG-1']);
    expect(performance.now() - began).toBeGreaterThanOrEqual(25);
    calls[1]!.reject(new Error('visibility unavailable'));
    await settle();
    clock.now = 9_000;
    const failing = cache.list(7);
    calls[2]!.reject(new Error('deadline exceeded'));
    expect(keysOf(await failing)).toEqual(['BUG-1']);
  });

  it('keeps serving the old listing when a background walk fails, says so, and tries again on a later request', async () => {
    const errors: unknown[] = [];
    const { cache, calls, clock } = await listedOnce({ readTookMs: 2_000, onRefreshError: (e) => errors.push(e) });
    clock.now = 4_000;
    await cache.list(7);
    calls[1]!.reject(new Error('visibility unavailable'));
    await settle();
    expect(errors.map((e) => (e as Error).message)).toEqual(['visibility unavailable']);
    expect(keysOf(await cache.list(7))).toEqual(['BUG-1']);
    expect(calls).toHaveLength(3);
  });

  it('makes a request wait for a new walk when the listing kept is maxAgeMs old, and fails it when that walk fails', async () => {
    const { cache, calls, clock } = await listedOnce();
    clock.now = 60_000;
    let answered = false;
    const late = cache.list(7).then((listing) => { answered = true; return listing; });
    await settle();
    expect(answered).toBe(false);
    calls[1]!.resolve(tickets('BUG-3'));
    expect(keysOf(await late)).toEqual(['BUG-3']);
    clock.now = 200_000;
    const failing = cache.list(7);
    calls[2]!.reject(new Error('deadline exceeded'));
    await expect(failing).rejects.toThrow('deadline exceeded');
    // The next request walks again.
    const again = cache.list(7);
    expect(calls).toHaveLength(4);
    calls[3]!.resolve(tickets('BUG-4'));
    expect(keysOf(await again)).toEqual(['BUG-4']);
  });

  it('keeps a listing per window of days, at most maxWindows of them, the least recently asked dropped first', async () => {
    const { walk, calls } = manualWalk();
    const cache = new ListingCache(walk, { maxWindows: 2, now: () => 0 });
    const answer = async (days: number) => {
      const listing = cache.list(days);
      const call = calls.at(-1)!;
      if (call.days === days) call.resolve(tickets(`D-${days}`));
      return keysOf(await listing);
    };
    expect(await answer(7)).toEqual(['D-7']);
    expect(await answer(30)).toEqual(['D-30']);
    expect(calls.map((c) => c.days)).toEqual([7, 30]);
    expect(await answer(7)).toEqual(['D-7']);
    expect(calls).toHaveLength(2);
    expect(await answer(90)).toEqual(['D-90']);
    // 30 was the least recently asked: it is read again, 7 is still kept.
    expect(await answer(7)).toEqual(['D-7']);
    expect(calls.map((c) => c.days)).toEqual([7, 30, 90]);
    expect(await answer(30)).toEqual(['D-30']);
    expect(calls.map((c) => c.days)).toEqual([7, 30, 90, 30]);
  });
});
