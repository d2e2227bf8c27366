/**
 * Who did something, named per system. A tracker account id, a GitHub login and a GitLab username are separate
 * namespaces: the same string on two systems names two different people (a GitHub user can register a login equal
 * to a listed tracker account id). So every identity carries its system, as `<system>:<value>`:
 * `tracker:<accountId or Server/DC user name>`, `tracker-email:<email>`, `github:<login>`, `gitlab:<username>`, and
 * the source hosts' numeric user ids `github-id:<id>`, `gitlab-id:<id>`, which, unlike logins, are never renamed or
 * handed to someone else. Display names are never identities: anyone can set theirs to anything.
 *
 * Pure and deterministic: ingress tags what a delivery carries, the ticket workflow reads the tags, and the
 * allowed-actor check (src/config/allowed-actors.ts) matches them against entries written the same way.
 */

export const ACTOR_SYSTEMS = ['tracker', 'tracker-email', 'github', 'gitlab', 'github-id', 'gitlab-id'] as const;
export type ActorSystem = (typeof ACTOR_SYSTEMS)[number];

export function isActorSystem(value: string): value is ActorSystem {
  return (ACTOR_SYSTEMS as readonly string[]).includes(value);
}

/** Always prefixes, whatever the value looks like: a login that itself reads `tracker:x` stays a GitHub login. */
export function actorId(system: ActorSystem, value: string): string {
  return `${system}:${value}`;
}

/** The system an id is tagged with; undefined for an untagged id. */
export function systemOfActorId(id: string): ActorSystem | undefined {
  const colon = id.indexOf(':');
  if (colon <= 0) return undefined;
  const prefix = id.slice(0, colon).toLowerCase();
  return isActorSystem(prefix) ? prefix : undefined;
}

/** A tracker user as deliveries and the REST API show them; `displayName` is deliberately absent. */
export interface TrackerUserIds {
  emailAddress?: string | null;
  /** Jira Cloud. */
  accountId?: string | null;
  /** Jira Server/Data Center: the user name (a login, unlike the display name). */
  name?: string | null;
}

const present = (value: string | null | undefined): value is string => typeof value === 'string' && value.trim() !== '';

/** Every identity of a tracker user, the e-mail first (when the profile shows it), then the account id or user name. */
export function trackerActorIds(user: TrackerUserIds | undefined): string[] {
  if (!user) return [];
  const ids = [
    present(user.emailAddress) ? actorId('tracker-email', user.emailAddress.trim()) : undefined,
    present(user.accountId) ? actorId('tracker', user.accountId.trim()) : undefined,
    present(user.name) ? actorId('tracker', user.name.trim()) : undefined,
  ];
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/** The login of a source-host user, tagged with the host it is a login on. */
export function sourceHostActorId(sourceSystem: 'scmhost' | 'gitlab', login: string): string {
  return actorId(sourceSystem === 'gitlab' ? 'gitlab' : 'github', login);
}

/** The numeric user id of a source-host user, tagged with the host (`github-id:`, `gitlab-id:`). */
export function sourceHostUserId(sourceSystem: 'scmhost' | 'gitlab', id: number): string {
  return actorId(sourceSystem === 'gitlab' ? 'gitlab-id' : 'github-id', String(id));
}

/** Whether `id` is a numeric user id of that source host: the only tagged ids a source-host delivery may carry. */
export function isSourceHostUserId(sourceSystem: 'scmhost' | 'gitlab', id: string): boolean {
  return (sourceSystem === 'gitlab' ? /^gitlab-id:\d+$/ : /^github-id:\d+$/).test(id);
}

/**
 * A tracker id as carried by an observation. Ingress tags them; an observation signalled by a build from before the
 * tags (still in a workflow's inbox at the upgrade) carries them bare: an e-mail is read as `tracker-email:`, anything
 * else as `tracker:` (they came only from the e-mail, account id and user name fields).
 */
export function trackerActorIdOf(id: string): string {
  const system = systemOfActorId(id);
  if (system === 'tracker' || system === 'tracker-email') return id;
  return actorId(id.includes('@') ? 'tracker-email' : 'tracker', id);
}
