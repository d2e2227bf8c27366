/**
 * Tracker group membership for the `group:<name>` entries of the allowed actors (src/config/allowed-actors.ts).
 * Every decision asks the tracker: an answer read earlier never approves, so when the tracker cannot be asked the
 * approval is refused (docs/security.md §5), and someone removed from a group stops counting at once. What is shared
 * is only a read in flight: lookups of one account that arrive while its read is under way take that read's answer
 * (or its failure) instead of sending another. Approvals and commands come at the pace of people, so one read per
 * decision costs little; a kept answer would trade the refusal promised above for requests saved.
 * Failures are never read as "no groups": they reach the caller, which fails closed.
 */
import type { TrackerClient } from './tracker-client';

export interface GroupMembershipCacheOptions {
  /** A tracker account's group names; throws when the tracker cannot answer. */
  read: (accountId: string) => Promise<string[]>;
}

export interface GroupMembership {
  /**
   * The account's groups (lower-cased), read from the tracker now (or by the read of the same account in flight).
   * `listed` (the groups the list names) is accepted for callers that pass it; the answer does not depend on it.
   */
  groupsOf: (accountId: string, listed: readonly string[]) => Promise<string[]>;
}

export function createGroupMembershipCache(options: GroupMembershipCacheOptions): GroupMembership {
  const inFlight = new Map<string, Promise<string[]>>();
  return {
    groupsOf: (accountId) => {
      const pending = inFlight.get(accountId);
      if (pending) return pending;
      const read = (async () => (await options.read(accountId)).map((group) => group.toLowerCase()))()
        .finally(() => inFlight.delete(accountId));
      inFlight.set(accountId, read);
      return read;
    },
  };
}

/** The tracker's answers, coalesced: what the worker gives the allowed-actor check. */
export function trackerGroupMembership(tracker: Pick<TrackerClient, 'getUserGroups'>): GroupMembership {
  return createGroupMembershipCache({ read: async (accountId) => (await tracker.getUserGroups(accountId)).map((group) => group.name) });
}
