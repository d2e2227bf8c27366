/**
 * Who may approve and command (issue 17, "trusted input"). A list of identities, each named with its system, because
 * the same string on two systems names two different people (workflows/person-commands/actor-identity.ts):
 * `tracker:<accountId>` (or a Jira Server/DC user name), `tracker-email:<email>`, `github:<login>`,
 * `gitlab:<username>`, and `group:<name>` for tracker groups. The project property `service.allowed_actors` (a JSON
 * array of such strings) wins over the deployment's SERVICE_ALLOWED_ACTORS (comma-separated). When neither is set,
 * anyone counts, and the worker says so at startup. A `group:<name>` entry counts for a person whose tracker account
 * (`tracker:<accountId>`) is in that tracker group: the activity asks the tracker (activities/actor-activities.ts,
 * through src/providers/tracker/group-membership-cache.ts) only when no id entry matches. Groups are tracker groups,
 * so a source-host login alone never matches one. When the tracker cannot answer, or the worker has no tracker
 * client, the decision fails closed with a reason saying so, never as "not a member".
 *
 * Migration from the flat lists of earlier builds, where one entry matched on every system: an entry without a
 * system prefix is read only where that is unambiguous, never on the source hosts. An e-mail address is read as
 * `tracker-email:` (only the tracker names people by e-mail; GitHub and GitLab logins cannot contain `@`) and a
 * string shaped like a Jira Cloud account id as `tracker:`. Any other unprefixed entry (a login or a Server user
 * name: which system is unknowable) matches nobody. Either way the worker logs at startup, and a decision's reason
 * says, how to write the entry. Pure functions; the activity reads the settings.
 *
 * Weaker forms: a login (`github:`, `gitlab:`) can be renamed and a freed one registered by someone else, a Jira
 * Server/Data Center user can change their own e-mail (`tracker-email:`) and an administrator their user name. With
 * SERVICE_ALLOWED_ACTORS_REQUIRE_IDS=true only ids that never change count: `tracker:<Cloud accountId>`,
 * `github-id:<numeric id>`, `gitlab-id:<numeric id>` (ingress carries the latter from the webhooks); an entry of a
 * weaker form matches nobody and is reported like an unprefixed one.
 */
import { isActorSystem } from '../../workflows/person-commands/actor-identity';

export const ALLOWED_ACTORS_ENV = 'SERVICE_ALLOWED_ACTORS';
export const ALLOWED_ACTORS_PROPERTY = 'service.allowed_actors';
export const ALLOWED_ACTORS_REQUIRE_IDS_ENV = 'SERVICE_ALLOWED_ACTORS_REQUIRE_IDS';
const ENTRY_FORMS = 'tracker:<accountId>, tracker-email:<email>, github:<login>, gitlab:<username>, github-id:<numeric id>, gitlab-id:<numeric id>, group:<name>';

export class AllowedActorsError extends Error {
  override readonly name = 'AllowedActorsError';
}

export interface AllowedActors {
  /** Namespaced identities (`github:octocat`), lower-cased. */
  ids: string[];
  /** Tracker group names, lower-cased. */
  groups: string[];
  source: 'project' | 'environment';
  /**
   * Entries written without a system prefix: how each was read (or that it matches nobody) and how to write it.
   * Logged by the worker at startup and added to the reasons of decisions.
   */
  notes: string[];
  /** The namespaced id an unprefixed entry was read as -> the entry as written. */
  unprefixed: Record<string, string>;
}

export type AllowedActorEntry =
  | { kind: 'id'; id: string; note?: string }
  | { kind: 'group'; name: string }
  | { kind: 'unusable'; note: string };

/** Jira Cloud account ids: 24 hex digits (older accounts) or `<number>:<uuid>`. */
const TRACKER_ACCOUNT_ID = /^(?:[0-9a-f]{24}|\d{1,10}:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * Under SERVICE_ALLOWED_ACTORS_REQUIRE_IDS: why an id of a form its owner (or someone else) can change matches
 * nobody, and what to write; undefined for an id that never changes.
 */
export function changeableIdNote(id: string, written: string): string | undefined {
  const colon = id.indexOf(':');
  const system = id.slice(0, colon);
  const value = id.slice(colon + 1);
  const set = `and ${ALLOWED_ACTORS_REQUIRE_IDS_ENV} is set`;
  switch (system) {
    case 'github': return `"${written}" names a login that can be renamed and then registered by someone else, ${set}: write github-id:<numeric user id> (GitHub's GET /users/${value} shows it)`;
    case 'gitlab': return `"${written}" names a username that can be renamed and then registered by someone else, ${set}: write gitlab-id:<numeric user id> (GitLab's GET /api/v4/users?username=${value} shows it)`;
    case 'tracker-email': return `"${written}" names an e-mail address, which a Jira Server/Data Center user can change, ${set}: write tracker:<accountId>`;
    case 'tracker': return TRACKER_ACCOUNT_ID.test(value) ? undefined : `"${written}" is not a Jira Cloud account id (a Server/Data Center user name can be changed), ${set}: write tracker:<accountId>, or use group:<name>`;
    default: return undefined;
  }
}

/** One entry of a list, read with the migration rule above; `requireIds`: SERVICE_ALLOWED_ACTORS_REQUIRE_IDS. */
export function readAllowedActorEntry(raw: string, options: { requireIds?: boolean } = {}): AllowedActorEntry {
  const entry = readEntry(raw);
  if (entry.kind !== 'id' || !options.requireIds) return entry;
  const note = changeableIdNote(entry.id, raw.trim());
  return note ? { kind: 'unusable', note } : entry;
}

function readEntry(raw: string): AllowedActorEntry {
  const entry = raw.trim();
  const colon = entry.indexOf(':');
  const prefix = colon > 0 ? entry.slice(0, colon).trim().toLowerCase() : '';
  const value = colon > 0 ? entry.slice(colon + 1).trim() : '';
  if (prefix === 'group') {
    return value ? { kind: 'group', name: value.toLowerCase() } : { kind: 'unusable', note: `"${entry}" names no group: write group:<name>` };
  }
  if (isActorSystem(prefix)) {
    if (!value) return { kind: 'unusable', note: `"${entry}" names nobody: write ${prefix}:<id>` };
    if (prefix === 'tracker-email' && !EMAIL.test(value)) return { kind: 'unusable', note: `"${entry}" is not an e-mail address: write tracker-email:<email>` };
    if ((prefix === 'github-id' || prefix === 'gitlab-id') && !/^\d+$/.test(value)) return { kind: 'unusable', note: `"${entry}" is not a numeric user id: write ${prefix}:<numeric user id>` };
    return { kind: 'id', id: `${prefix}:${value}`.toLowerCase() };
  }
  // No known prefix. A Cloud account id has a colon of its own, so it is recognised before an unknown prefix is.
  if (TRACKER_ACCOUNT_ID.test(entry)) {
    return { kind: 'id', id: `tracker:${entry}`.toLowerCase(), note: `"${entry}" has no system prefix and is read as tracker:${entry} (a tracker account id); write it so` };
  }
  if (EMAIL.test(entry)) {
    return { kind: 'id', id: `tracker-email:${entry}`.toLowerCase(), note: `"${entry}" has no system prefix and is read as tracker-email:${entry}; write it so` };
  }
  if (/\s/.test(entry)) {
    return { kind: 'unusable', note: `"${entry}" looks like a display name, which never counts (anyone can take one): list the person's id with its system (${ENTRY_FORMS})` };
  }
  if (/^[a-z][a-z-]*$/i.test(prefix)) {
    return { kind: 'unusable', note: `"${entry}" names an unknown system "${prefix}": use ${ENTRY_FORMS}` };
  }
  return { kind: 'unusable', note: `"${entry}" has no system prefix and matches nobody (a login is a different person on each system): write tracker:${entry}, github:${entry} or gitlab:${entry}` };
}

function read(entries: string[], source: AllowedActors['source'], requireIds: boolean): AllowedActors {
  const result: AllowedActors = { ids: [], groups: [], source, notes: [], unprefixed: {} };
  for (const raw of entries.map((e) => e.trim()).filter(Boolean)) {
    const entry = readAllowedActorEntry(raw, { requireIds });
    if (entry.kind === 'group') result.groups.push(entry.name);
    else if (entry.kind === 'unusable') result.notes.push(entry.note);
    else {
      result.ids.push(entry.id);
      if (entry.note) {
        result.notes.push(entry.note);
        result.unprefixed[entry.id] = raw;
      }
    }
  }
  return result;
}

/** SERVICE_ALLOWED_ACTORS_REQUIRE_IDS; a value that is neither true nor false throws (the decision fails closed). */
export function requireIdsOf(env: NodeJS.ProcessEnv): boolean {
  const raw = env[ALLOWED_ACTORS_REQUIRE_IDS_ENV]?.trim() ?? '';
  if (raw === '' || /^(false|0|no)$/i.test(raw)) return false;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  throw new AllowedActorsError(`${ALLOWED_ACTORS_REQUIRE_IDS_ENV} must be true or false, got "${raw.slice(0, 50)}"`);
}

/** The allowed actors of a project: its property when set, else the environment's list, else null (anyone). */
export function allowedActors(env: NodeJS.ProcessEnv, property: unknown, projectKey: string): AllowedActors | null {
  const requireIds = requireIdsOf(env);
  if (property !== undefined && property !== null) {
    if (!Array.isArray(property) || property.some((entry) => typeof entry !== 'string')) {
      throw new AllowedActorsError(`${ALLOWED_ACTORS_PROPERTY} of project ${projectKey} must be a JSON array of strings (${ENTRY_FORMS}), got ${JSON.stringify(property).slice(0, 200)}`);
    }
    return read(property as string[], 'project', requireIds);
  }
  const listed = (env[ALLOWED_ACTORS_ENV] ?? '').split(',').filter((entry) => entry.trim() !== '');
  return listed.length > 0 ? read(listed, 'environment', requireIds) : null;
}

export type ActorDecision = { allowed: true; reason: string } | { allowed: false; reason: string };

/** Notes are bounded: a reason ends up in a tracker comment and on the timeline. */
function notesOf(allowed: AllowedActors): string {
  if (allowed.notes.length === 0) return '';
  const shown = allowed.notes.slice(0, 3).join('; ');
  return `; about its entries: ${shown}${allowed.notes.length > 3 ? `; and ${allowed.notes.length - 3} more` : ''}`;
}

/**
 * Whether an actor (their namespaced ids, and their tracker groups) is allowed. An unknown actor (a delivery that
 * named nobody) is never allowed when a list applies. Ids must carry their system: an untagged id matches nothing.
 */
export function decideActor(allowed: AllowedActors | null, actorIds: string[], actorGroups: string[] = []): ActorDecision {
  if (allowed === null) return { allowed: true, reason: `no allowed actors are configured (${ALLOWED_ACTORS_PROPERTY}, ${ALLOWED_ACTORS_ENV}): anyone counts` };
  const where = allowed.source === 'project' ? `the project property ${ALLOWED_ACTORS_PROPERTY}` : ALLOWED_ACTORS_ENV;
  const ids = actorIds.map((id) => id.toLowerCase());
  if (ids.length === 0) return { allowed: false, reason: `the delivery does not say who did it, and only actors listed in ${where} count` };
  const byId = ids.find((id) => allowed.ids.includes(id));
  if (byId) {
    const written = allowed.unprefixed[byId];
    return { allowed: true, reason: `${byId} is listed in ${where}${written ? ` (as "${written}", without its system prefix: write ${byId})` : ''}` };
  }
  const group = actorGroups.map((g) => g.toLowerCase()).find((g) => allowed.groups.includes(g));
  if (group) return { allowed: true, reason: `${actorIds[0]} is in the group ${group}, listed in ${where}` };
  return { allowed: false, reason: `${actorIds[0]} is not listed in ${where}${allowed.groups.length > 0 ? ' and is in none of its groups' : ''}${notesOf(allowed)}` };
}

/** The word for what was not counted, in a reason the person reads. */
function whatOf(action: string): string {
  return ['approve', 'review_approved', 'select_option'].includes(action) ? 'approval' : `${action} command`;
}

/** Error texts end up in a tracker comment: bounded. */
const DETAIL_LIMIT = 300;

/**
 * The decision when no id entry matched and the tracker could not say which groups the person is in (network error,
 * 5xx, timeout, no permission): not allowed, and the reason says the approval was not counted because of the tracker,
 * so nobody mistakes it for "not a member". Trying again asks the tracker again.
 */
export function groupsUnreadable(allowed: AllowedActors, actorIds: string[], detail: string, action: string): ActorDecision {
  const where = allowed.source === 'project' ? `the project property ${ALLOWED_ACTORS_PROPERTY}` : ALLOWED_ACTORS_ENV;
  const bounded = detail.length > DETAIL_LIMIT ? `${detail.slice(0, DETAIL_LIMIT)}…` : detail;
  const groups = allowed.groups.map((group) => `group:${group}`).join(', ');
  return {
    allowed: false,
    reason: `${actorIds[0] ?? 'the actor'} is not listed by id in ${where}, and the tracker's group membership (for ${groups}) could not be read: ${bounded}; the ${whatOf(action)} was not counted, try again`,
  };
}

/**
 * What the worker logs at startup about the deployment-wide list: that it is not set (a project may still set its
 * own), or how its unprefixed entries are read and how to write them.
 */
export function allowedActorsWarnings(env: NodeJS.ProcessEnv): string[] {
  let allowed: AllowedActors | null;
  try {
    allowed = allowedActors(env, undefined, '');
  } catch (error) {
    if (error instanceof AllowedActorsError) return [error.message];
    throw error;
  }
  if (allowed === null) {
    return [`${ALLOWED_ACTORS_ENV} is not set: approvals and commands count from anyone, except in projects that set the property ${ALLOWED_ACTORS_PROPERTY}`];
  }
  return allowed.notes.map((note) => `${ALLOWED_ACTORS_ENV}: ${note} (entries are ${ENTRY_FORMS})`);
}
