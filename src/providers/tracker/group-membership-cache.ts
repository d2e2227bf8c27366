/**
 * Tracker group membership for the `group:<name>` entries of the allowed actors (src/config/allowed-actors.ts).
 * Every approval and command asks, so a person's groups are kept for a short while; but a kept answer decides only
 * when it contains a group the list names. When it contains none, the groups are read again before the decision, so
 * someone just added to a group counts at once. The price is the other direction: someone just removed from a group
 * still counts until the kept answer expires. Failures are never kept and never read as "no groups": they reach the
 * caller, which fails closed.
 */
import type { TrackerClient } from './tracker-client';

export const GROUP_MEMBERSHIP_TTL_MS = 60_000;
/** Bounds memory on a site with many people: the oldest answers go first. */
const MAX_ENTRIES = 1_000;

export interface KeptGroups {
  /** Group names, lower-cased (the allowed-actor lists are compared lower-cased). */
  groups: string[];
  /** Clock reading (ms) when the tracker answered. */
  readAt: number;
}

/**
 * Whether a kept answer decides for a list naming `listed` groups (lower-cased), or the tracker must be asked first.
 * A clock that went backwards makes an answer stale rather than fresh forever.
 */
export function keptGroupsDecide(kept: KeptGroups | undefined, listed: readonly string[], now: number, ttlMs: number): boolean {
  if (!kept || now < kept.readAt || now - kept.readAt >= ttlMs) return false;
  return kept.groups.some((group) => listed.includes(group));
}

export interface GroupMembershipCacheOptions {
  /** A tracker account's group names; throws when the tracker cannot answer. */
  read: (accountId: string) => Promise<string[]>;
  ttlMs?: number;
  now?: () => number;
  maxEntries?: number;
}

export interface GroupMembership {
  /** The account's groups (lower-cased), read again unless a kept answer contains one of `listed`. */
  groupsOf: (accountId: string, listed: readonly string[]) => Promise<string[]>;
}

export function createGroupMembershipCache(options: GroupMembershipCacheOptions): GroupMembership {
  const ttlMs = options.ttlMs ?? GROUP_MEMBERSHIP_TTL_MS;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const kept = new Map<string, KeptGroups>();
  return {
    groupsOf: async (accountId, listed) => {
      const wanted = listed.map((group) => group.toLowerCase());
      const entry = kept.get(accountId);
      if (keptGroupsDecide(entry, wanted, now(), ttlMs)) return entry!.groups;
      const groups = (await options.read(accountId)).map((group) => group.toLowerCase());
      // Re-inserted so that the map's order is the order of reading, and the oldest answer is the first key.
      kept.delete(accountId);
      kept.set(accountId, { groups, readAt: now() });
      while (kept.size > maxEntries) kept.delete(kept.keys().next().value as string);
      return groups;
    },
  };
}

/** The tracker's answers, kept: what the worker gives the allowed-actor check. */
export function trackerGroupMembership(tracker: Pick<TrackerClient, 'getUserGroups'>, options: Omit<GroupMembershipCacheOptions, 'read'> = {}): GroupMembership {
  return createGroupMembershipCache({ ...options, read: async (accountId) => (await tracker.getUserGroups(accountId)).map((group) => group.name) });
}
