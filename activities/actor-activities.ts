import { ALLOWED_ACTORS_PROPERTY, AllowedActorsError, allowedActors, decideActor } from '../src/config/allowed-actors';
import { systemOfActorId } from '../workflows/actor-identity';
import type { ProjectPropertiesPort } from '../src/providers/tracker/project-properties-port';
import type { AuthorizeActorInput, AuthorizeActorResult } from '../workflows/trusted-actors';

export interface ActorActivityDeps {
  env?: NodeJS.ProcessEnv;
  /** The project's `service.allowed_actors`, read fresh for every decision. */
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  /** A tracker account's groups, for `group:<name>` entries. */
  groupsOf?: (accountId: string) => Promise<string[]>;
}

/** Groups are tracker groups: only the person's tracker account ids (`tracker:<id>`) can be asked about. */
const trackerAccountIds = (ids: string[]) => ids.filter((id) => systemOfActorId(id) === 'tracker').map((id) => id.slice('tracker:'.length));

/**
 * The allowed-actor check of the ticket workflow (issue 17): approvals and commands count only from actors the
 * project (or the deployment) allows. An unreadable list fails closed: the approval is ignored with the reason.
 */
export function createActorActivities(deps: ActorActivityDeps) {
  const env = deps.env ?? process.env;
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
      let groups: string[] = [];
      if (allowed && allowed.groups.length > 0) {
        if (!deps.groupsOf) {
          const decision = decideActor(allowed, input.actor_ids);
          if (decision.allowed) return decision;
          return { allowed: false, reason: `${decision.reason}; its group entries (${allowed.groups.map((g) => `group:${g}`).join(', ')}) cannot be checked: this build does not look tracker groups up, list tracker:<accountId> or tracker-email:<email> instead` };
        }
        const accounts = trackerAccountIds(input.actor_ids);
        groups = (await Promise.all(accounts.map((id) => deps.groupsOf!(id).catch(() => [] as string[])))).flat();
      }
      return decideActor(allowed, input.actor_ids, groups);
    },
  };
}

export type ActorActivities = ReturnType<typeof createActorActivities>;
