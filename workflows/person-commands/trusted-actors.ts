import { isSourceHostUserId, sourceHostActorId, trackerActorIdOf } from './actor-identity';
import type { Command } from './command-types';
import type { Observation } from '../ledger/observation';
import { MANAGED_LABEL, SERVICE_LABEL_PREFIX } from '../vocabulary/labels';

/**
 * Trusted input (issue 17): approvals and commands count only from allowed actors (see src/config/allowed-actors.ts
 * for the lists); the workflow asks the `authorizeActor` activity and records an ignored approval with its reason.
 */

export const TRUSTED_ACTORS_PATCH = 'trusted-actors';

export interface AuthorizeActorInput {
  project_key: string;
  /**
   * Every identity known of the person, each with its system (`tracker:<accountId>`, `tracker-email:<email>`,
   * `github:<login>`, `gitlab:<username>`, `github-id:<id>`, `gitlab-id:<id>`; workflows/person-commands/actor-identity.ts).
   */
  actor_ids: string[];
  /** The command type, for the log. */
  action: string;
}

export interface AuthorizeActorResult {
  allowed: boolean;
  reason: string;
}

/**
 * The commands that need an allowed actor: approvals (labels, `/service approve`, an approving review, a chosen RCA
 * option), switches (retry, yolo, stop) and `/service` verbs that change the work. Feedback and questions are
 * conversation; provider facts (CI, pushes, merges) are not a person's command.
 */
export function needsAllowedActor(command: Command): boolean {
  switch (command.type) {
    case 'approve':
    case 'retry':
    case 'yolo':
    case 'stop':
    case 'select_option':
    case 'review_approved':
    case 'skip_gate':
    case 'unskip_gate':
    case 'rebase':
    case 'draft_remove':
    case 'draft_exclude':
    case 'draft_update':
    case 'draft_add':
      return true;
    default:
      return false;
  }
}

/**
 * Who did it: every identity the delivery carries, tagged with the system it is an identity on, so that a GitHub
 * login never matches a tracker account id or a GitLab username. Tracker ids come tagged from ingress (which knows
 * the e-mail field from the account id field); a comment's `author` is a label for people to read and is not used.
 * Source-host logins are tagged here by the observation's own system; their numeric user ids come tagged from ingress
 * (`facts.actor_ids`), and only the ones of the observation's own host are taken.
 */
export function actorIdsOf(observation: Observation): string[] {
  const facts = observation.facts;
  const present = (id: string | undefined): id is string => typeof id === 'string' && id !== '';
  if (observation.source_system === 'tracker') return [...new Set((facts.actor_ids ?? []).filter(present).map(trackerActorIdOf))];
  const host = observation.source_system;
  const logins = [facts.comment?.author, facts.review?.author, facts.sender].filter(present).map((login) => sourceHostActorId(host, login));
  // Numeric user ids come tagged from ingress; only this host's count.
  const userIds = (facts.actor_ids ?? []).filter((id) => present(id) && isSourceHostUserId(host, id));
  return [...new Set([...logins, ...userIds])];
}

/** The `service:` labels of an ignored label command: taken off again so that an allowed person can add them. */
export function commandLabelsOf(observation: Observation): string[] {
  return (observation.facts.label_change?.added ?? []).filter((label) => label.startsWith(SERVICE_LABEL_PREFIX) && label !== MANAGED_LABEL);
}
