/**
 * Who may approve and command (issue 17, "trusted input"). A list of actors: tracker account ids, e-mail addresses
 * and source-host logins. The project property `service.allowed_actors` (a JSON array of such strings) wins over the
 * deployment's SERVICE_ALLOWED_ACTORS (comma-separated). When neither is set, anyone counts, and the worker says so
 * at startup. Tracker groups (`group:<name>`) are decided here, but this build does not look a person's groups up
 * (the tracker client has no group call yet), so a list naming a group fails closed with a reason saying so.
 * Pure functions; the activity reads the settings.
 */

export const ALLOWED_ACTORS_ENV = 'SERVICE_ALLOWED_ACTORS';
export const ALLOWED_ACTORS_PROPERTY = 'service.allowed_actors';
const GROUP = /^group:(.+)$/i;

export class AllowedActorsError extends Error {
  override readonly name = 'AllowedActorsError';
}

export interface AllowedActors {
  /** Account ids, e-mails and logins, lower-cased. */
  ids: string[];
  /** Tracker group names, lower-cased. */
  groups: string[];
  source: 'project' | 'environment';
}

function split(entries: string[]): Omit<AllowedActors, 'source'> {
  const ids: string[] = [];
  const groups: string[] = [];
  for (const entry of entries.map((e) => e.trim()).filter(Boolean)) {
    const group = GROUP.exec(entry);
    if (group) groups.push(group[1]!.trim().toLowerCase());
    else ids.push(entry.toLowerCase());
  }
  return { ids, groups };
}

/** The allowed actors of a project: its property when set, else the environment's list, else null (anyone). */
export function allowedActors(env: NodeJS.ProcessEnv, property: unknown, projectKey: string): AllowedActors | null {
  if (property !== undefined && property !== null) {
    if (!Array.isArray(property) || property.some((entry) => typeof entry !== 'string')) {
      throw new AllowedActorsError(`${ALLOWED_ACTORS_PROPERTY} of project ${projectKey} must be a JSON array of strings (account ids, e-mails, logins, "group:<name>"), got ${JSON.stringify(property).slice(0, 200)}`);
    }
    return { ...split(property as string[]), source: 'project' };
  }
  const listed = (env[ALLOWED_ACTORS_ENV] ?? '').split(',').filter((entry) => entry.trim() !== '');
  return listed.length > 0 ? { ...split(listed), source: 'environment' } : null;
}

export type ActorDecision = { allowed: true; reason: string } | { allowed: false; reason: string };

/**
 * Whether an actor (every identifier known of them, and their tracker groups) is allowed. An unknown actor (a
 * delivery that named nobody) is never allowed when a list applies.
 */
export function decideActor(allowed: AllowedActors | null, actorIds: string[], actorGroups: string[] = []): ActorDecision {
  if (allowed === null) return { allowed: true, reason: `no allowed actors are configured (${ALLOWED_ACTORS_PROPERTY}, ${ALLOWED_ACTORS_ENV}): anyone counts` };
  const where = allowed.source === 'project' ? `the project property ${ALLOWED_ACTORS_PROPERTY}` : ALLOWED_ACTORS_ENV;
  const ids = actorIds.map((id) => id.toLowerCase());
  if (ids.length === 0) return { allowed: false, reason: `the delivery does not say who did it, and only actors listed in ${where} count` };
  const byId = ids.find((id) => allowed.ids.includes(id));
  if (byId) return { allowed: true, reason: `${byId} is listed in ${where}` };
  const group = actorGroups.map((g) => g.toLowerCase()).find((g) => allowed.groups.includes(g));
  if (group) return { allowed: true, reason: `${actorIds[0]} is in the group ${group}, listed in ${where}` };
  return { allowed: false, reason: `${actorIds[0]} is not listed in ${where}${allowed.groups.length > 0 ? ' and is in none of its groups' : ''}` };
}

/** The startup warning when no deployment-wide list is set (a project may still set its own). */
export function allowedActorsWarning(env: NodeJS.ProcessEnv): string | undefined {
  if ((env[ALLOWED_ACTORS_ENV] ?? '').trim() !== '') return undefined;
  return `${ALLOWED_ACTORS_ENV} is not set: approvals and commands count from anyone, except in projects that set the property ${ALLOWED_ACTORS_PROPERTY}`;
}
