import { ALLOWED_ACTORS_PROPERTY, AllowedActorsError, allowedActors, decideActor, groupsUnreadable } from '../src/config/allowed-actors';
import { systemOfActorId } from '../workflows/person-commands/actor-identity';
import { NotFoundProviderError } from '../src/providers/provider-errors';
import type { ProjectPropertiesPort } from '../src/config/project-properties-port';
import type { AuthorizeActorInput, AuthorizeActorResult } from '../workflows/person-commands/trusted-actors';

/**
 * Below the workflow's 30 s activity timeout, with room for the property read: a tracker that hangs must end in a
 * decision with its reason, not in an activity timeout.
 */
const GROUP_LOOKUP_TIMEOUT_MS = 10_000;

export interface ActorActivityDeps {
  env?: NodeJS.ProcessEnv;
  /** The project's `service.allowed_actors`, read fresh for every decision. */
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  /**
   * A tracker account's groups, for `group:<name>` entries (`listed`: the groups the list names), asked of the
   * tracker for this decision. Throws when the tracker cannot answer; a NotFoundProviderError means the tracker
   * knows no such account.
   */
  groupsOf?: (accountId: string, listed: readonly string[]) => Promise<string[]>;
  groupLookupTimeoutMs?: number;
}

/** The tracker did not answer a group lookup in time. */
export class GroupLookupTimeoutError extends Error {
  override readonly name = 'GroupLookupTimeoutError';
}

/** Groups are tracker groups: only the person's tracker account ids (`tracker:<id>`) can be asked about. */
const trackerAccountIds = (ids: string[]) => ids.filter((id) => systemOfActorId(id) === 'tracker').map((id) => id.slice('tracker:'.length));

function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GroupLookupTimeoutError(`the tracker did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The allowed-actor check of the ticket workflow (issue 17): approvals and commands count only from actors the
 * project (or the deployment) allows. An unreadable list fails closed: the approval is ignored with the reason. So do
 * unreadable group memberships: an approval never counts, and never is "not a member", because the tracker was down.
 */
export function createActorActivities(deps: ActorActivityDeps) {
  const env = deps.env ?? process.env;
  const lookupTimeoutMs = deps.groupLookupTimeoutMs ?? GROUP_LOOKUP_TIMEOUT_MS;
  return {
    async authorizeActor(input: AuthorizeActorInput): Promise<AuthorizeActorResult> {
      const property = deps.properties ? await deps.properties.getProjectProperty(input.project_key, ALLOWED_ACTORS_PROPERTY) : undefined;
      let allowed;
      try {
        allowed = allowedActors(env, property, input.project_key);
      } catch (error) {
        if (error instanceof AllowedActorsError) return { allowed: false, reason: error.message };
        throw error;
      }
      // A person listed by id needs no tracker call, and is not refused because the tracker is down.
      const byId = decideActor(allowed, input.actor_ids);
      if (byId.allowed || allowed === null || allowed.groups.length === 0) return byId;
      if (input.actor_ids.length === 0) return byId;
      const accounts = trackerAccountIds(input.actor_ids);
      // Unchecked groups must not read as "in none of its groups": the reason names the ids only, and why.
      const notById = decideActor({ ...allowed, groups: [] }, input.actor_ids).reason;
      const entries = allowed.groups.map((g) => `group:${g}`).join(', ');
      if (!deps.groupsOf) {
        return { allowed: false, reason: `${notById}; its group entries (${entries}) cannot be checked: this worker has no tracker client to look groups up (TRACKER_BASE_URL, TRACKER_USER_EMAIL, TRACKER_API_TOKEN), list tracker:<accountId> or tracker-email:<email> instead` };
      }
      if (accounts.length === 0) {
        return { allowed: false, reason: `${notById}; its group entries (${entries}) count for tracker accounts only, and the delivery names none` };
      }
      const groupsOf = deps.groupsOf;
      const listed = allowed.groups;
      let groups: string[];
      try {
        groups = (await Promise.all(accounts.map((id) => withinDeadline(
          // An account the tracker does not know is in no group: an answer, not a failure.
          groupsOf(id, listed).catch((error: unknown) => { if (error instanceof NotFoundProviderError) return []; throw error; }),
          lookupTimeoutMs,
        )))).flat();
      } catch (error) {
        return groupsUnreadable(allowed, input.actor_ids, error instanceof Error ? error.message : String(error), input.action);
      }
      return decideActor(allowed, input.actor_ids, groups);
    },
  };
}

export type ActorActivities = ReturnType<typeof createActorActivities>;
