import { describe, expect, it } from 'vitest';
import { createGroupMembershipCache, GROUP_MEMBERSHIP_TTL_MS, keptGroupsDecide, trackerGroupMembership } from '../../../../src/providers/tracker/group-membership-cache';
import { RetryableProviderError } from '../../../../src/providers/provider-errors';

/** A tracker whose answers the test sets, counting the reads, on a clock the test moves. */
function world(initial: Record<string, string[]>) {
  const memberships = { ...initial };
  const reads: string[] = [];
  let failing: Error | undefined;
  let clock = 1_000_000;
  const cache = createGroupMembershipCache({
    read: async (accountId) => {
      reads.push(accountId);
      if (failing) throw failing;
      return memberships[accountId] ?? [];
    },
    now: () => clock,
  });
  return {
    cache, reads, memberships,
    advance: (ms: number) => { clock += ms; },
    fail: (error: Error | undefined) => { failing = error; },
  };
}

describe('keptGroupsDecide', () => {
  const kept = { groups: ['leads', 'devs'], readAt: 1_000 };
  it('decides with a fresh answer that contains a listed group', () => {
    expect(keptGroupsDecide(kept, ['leads'], 1_000, 60_000)).toBe(true);
    expect(keptGroupsDecide(kept, ['ops', 'devs'], 60_999, 60_000)).toBe(true);
  });
  it('asks the tracker again when nothing is kept, the answer is stale, or it contains none of the listed groups', () => {
    expect(keptGroupsDecide(undefined, ['leads'], 1_000, 60_000)).toBe(false);
    expect(keptGroupsDecide(kept, ['leads'], 61_000, 60_000)).toBe(false);
    expect(keptGroupsDecide(kept, ['ops'], 1_001, 60_000)).toBe(false);
    expect(keptGroupsDecide(kept, [], 1_001, 60_000)).toBe(false);
  });
  it('reads a clock that went backwards as stale', () => {
    expect(keptGroupsDecide(kept, ['leads'], 999, 60_000)).toBe(false);
  });
});

describe('group membership cache', () => {
  it('keeps a member\'s groups for the TTL, then reads them again', async () => {
    const w = world({ 'acc-1': ['Leads'] });
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['leads']);
    w.advance(GROUP_MEMBERSHIP_TTL_MS - 1);
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['leads']);
    expect(w.reads).toEqual(['acc-1']);
    w.advance(1);
    await w.cache.groupsOf('acc-1', ['leads']);
    expect(w.reads).toEqual(['acc-1', 'acc-1']);
  });

  it('reads again at once when the kept groups contain none of the listed ones: someone just added counts', async () => {
    const w = world({ 'acc-1': ['devs'] });
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['devs']);
    w.memberships['acc-1'] = ['devs', 'leads'];
    w.advance(1_000);
    expect(await w.cache.groupsOf('acc-1', ['Leads'])).toEqual(['devs', 'leads']);
    expect(w.reads).toEqual(['acc-1', 'acc-1']);
    // Now kept: the next decision needs no read.
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['devs', 'leads']);
    expect(w.reads).toHaveLength(2);
  });

  it('keeps answers per account', async () => {
    const w = world({ 'acc-1': ['leads'], 'acc-2': ['devs'] });
    await w.cache.groupsOf('acc-1', ['leads']);
    expect(await w.cache.groupsOf('acc-2', ['devs'])).toEqual(['devs']);
    await w.cache.groupsOf('acc-1', ['leads']);
    expect(w.reads).toEqual(['acc-1', 'acc-2']);
  });

  it('never keeps a failure and never turns it into "no groups"', async () => {
    const w = world({ 'acc-1': ['devs'] });
    await w.cache.groupsOf('acc-1', ['leads']);
    const down = new RetryableProviderError('unavailable', { provider: 'tracker', method: 'GET', path: '/rest/api/3/user/groups', status: 503 });
    w.fail(down);
    // A kept answer without the listed group must be read again, and the read fails: the failure reaches the caller.
    await expect(w.cache.groupsOf('acc-1', ['leads'])).rejects.toBe(down);
    w.fail(undefined);
    w.memberships['acc-1'] = ['leads'];
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['leads']);
  });

  it('forgets the oldest answers beyond its bound', async () => {
    const reads: string[] = [];
    const cache = createGroupMembershipCache({ read: async (id) => { reads.push(id); return ['leads']; }, now: () => 0, maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) await cache.groupsOf(id, ['leads']);
    await cache.groupsOf('c', ['leads']);
    await cache.groupsOf('b', ['leads']);
    expect(reads).toEqual(['a', 'b', 'c']);
    await cache.groupsOf('a', ['leads']);
    expect(reads).toEqual(['a', 'b', 'c', 'a']);
  });

  it('reads group names from the tracker client', async () => {
    const membership = trackerGroupMembership({ getUserGroups: async () => [{ name: 'Release-Leads', groupId: 'g-1' }] });
    expect(await membership.groupsOf('acc-1', ['release-leads'])).toEqual(['release-leads']);
  });
});
