import { describe, expect, it } from 'vitest';
import { createGroupMembershipCache, trackerGroupMembership } from '../../../../src/providers/tracker/group-membership-cache';
import { RetryableProviderError } from '../../../../src/providers/provider-errors';

/** A tracker whose answers the test sets, counting the reads; `hold` keeps the next reads open until released. */
function world(initial: Record<string, string[]>) {
  const memberships = { ...initial };
  const reads: string[] = [];
  let failing: Error | undefined;
  let gate: Promise<void> | undefined;
  let open: () => void = () => undefined;
  const cache = createGroupMembershipCache({
    read: async (accountId) => {
      reads.push(accountId);
      if (gate) await gate;
      if (failing) throw failing;
      return memberships[accountId] ?? [];
    },
  });
  return {
    cache, reads, memberships,
    fail: (error: Error | undefined) => { failing = error; },
    hold: () => { gate = new Promise<void>((resolve) => { open = resolve; }); },
    release: () => { gate = undefined; open(); },
  };
}

const down = () => new RetryableProviderError('unavailable', { provider: 'tracker', method: 'GET', path: '/rest/api/3/user/groups', status: 503 });

describe('group membership lookups', () => {
  it('a membership read a moment ago does not answer when the tracker then fails: the failure reaches the caller', async () => {
    const w = world({ 'acc-1': ['Leads'] });
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['leads']);
    const failure = down();
    w.fail(failure);
    await expect(w.cache.groupsOf('acc-1', ['leads'])).rejects.toBe(failure);
    expect(w.reads).toEqual(['acc-1', 'acc-1']);
  });

  it('reads for every decision: someone added counts at once, someone removed stops counting at once', async () => {
    const w = world({ 'acc-1': ['devs'] });
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['devs']);
    w.memberships['acc-1'] = ['devs', 'leads'];
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['devs', 'leads']);
    w.memberships['acc-1'] = ['devs'];
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['devs']);
    expect(w.reads).toEqual(['acc-1', 'acc-1', 'acc-1']);
  });

  it('lookups of one account while its read is under way share that read, its answer or its failure', async () => {
    const w = world({ 'acc-1': ['leads'], 'acc-2': ['devs'] });
    w.hold();
    const together = [w.cache.groupsOf('acc-1', ['leads']), w.cache.groupsOf('acc-1', ['leads']), w.cache.groupsOf('acc-2', ['leads'])];
    w.release();
    expect(await Promise.all(together)).toEqual([['leads'], ['leads'], ['devs']]);
    expect(w.reads).toEqual(['acc-1', 'acc-2']);

    const failure = down();
    w.fail(failure);
    w.hold();
    const failing = [w.cache.groupsOf('acc-1', ['leads']), w.cache.groupsOf('acc-1', ['leads'])];
    w.release();
    for (const lookup of failing) await expect(lookup).rejects.toBe(failure);
    // The failed read is not kept: the next lookup asks again.
    w.fail(undefined);
    expect(await w.cache.groupsOf('acc-1', ['leads'])).toEqual(['leads']);
    expect(w.reads).toEqual(['acc-1', 'acc-2', 'acc-1', 'acc-1']);
  });

  it('reads group names from the tracker client, lower-cased', async () => {
    const membership = trackerGroupMembership({ getUserGroups: async () => [{ name: 'Release-Leads', groupId: 'g-1' }] });
    expect(await membership.groupsOf('acc-1', ['release-leads'])).toEqual(['release-leads']);
  });
});
