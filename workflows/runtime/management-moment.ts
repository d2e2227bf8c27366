import type { Observation } from '../ledger/observation';
import { MANAGED_LABEL } from '../vocabulary/labels';

/**
 * Only what a person writes after the service took the ticket may command it ("Promises to a newcomer kept", point
 * 2). A `/service` command or a `?` written before `service:managed` was added was not addressed to the service, yet
 * the poller's lookback (and a late or redelivered webhook) hands it to the new workflow like any other fact. This
 * module fixes the moment of management from the observation that started the ticket and judges each later tracker
 * comment and label change by the provider's own time.
 *
 * Times are the provider's (Jira's clock on both sides of the comparison), never the worker's, except for the
 * fallback below. Workflow code: pure, no clock, no I/O.
 */


/** Marks runs that judge comments and label changes by the moment of management; histories from before replay unchanged. */
export const BEFORE_MANAGEMENT_PATCH = 'before-management';

/** The reason code on the timeline for a fact made before the service took the ticket. */
export const BEFORE_MANAGEMENT = 'before_management';

export interface Management {
  /** When the service took the ticket (ISO 8601 UTC). */
  since: string;
  /**
   * What says so: the changelog that added `service:managed`; the ticket's creation with the label on it; or, when no
   * starting fact with a time was seen before the first judged one, the workflow's own start (the worker's clock).
   */
  source: 'label_added' | 'issue_created' | 'workflow_start';
  /** The delivery identity of the starting fact (absent for the workflow start). */
  delivery_identity?: string;
  /**
   * A creation read by the poller: it carries the ticket's labels of today, not those it was created with, so a
   * changelog that adds `service:managed` later than the creation shows the label came afterwards.
   */
  provisional?: true;
}

function validTime(time: string | null | undefined): string | undefined {
  return time && !Number.isNaN(Date.parse(time)) ? time : undefined;
}

/** The moment a starting fact says the ticket became managed, if the observation is one and carries a time. */
export function managementMomentOf(observation: Observation): Management | undefined {
  const at = validTime(observation.observed_at);
  if (!at) return undefined;
  if (observation.event === 'issue_updated' && observation.facts.label_change?.added.includes(MANAGED_LABEL)) {
    return { since: at, source: 'label_added', delivery_identity: observation.delivery_identity };
  }
  if (observation.event === 'issue_created' && (observation.facts.labels ?? []).includes(MANAGED_LABEL)) {
    return { since: at, source: 'issue_created', delivery_identity: observation.delivery_identity, ...(observation.source === 'poller' ? { provisional: true as const } : {}) };
  }
  return undefined;
}

/**
 * The moment after this observation. The first starting fact fixes it. One exception: a start from the poller's
 * creation is provisional (its labels are today's), and a changelog that adds `service:managed` later than the
 * creation shows the label came afterwards: its time is the moment. (The poller delivers that changelog before the
 * creation, src/poller/tracker-poll.ts; this covers a changelog that reaches the workflow by another way.) A webhook's
 * creation carries the labels the ticket was created with, and a label added again after someone removed it does not
 * move the moment: the service had the ticket all along.
 */
export function noteManagement(current: Management | undefined, observation: Observation): Management | undefined {
  const moment = managementMomentOf(observation);
  if (!moment) return current;
  if (!current) return moment;
  if (current.provisional && moment.source === 'label_added' && Date.parse(moment.since) > Date.parse(current.since)) return moment;
  return current;
}

/**
 * The moment to judge by: the one noted, else the workflow's start. Returned so the caller keeps it: once a fact was
 * judged against the start, a starting fact arriving later must not move the line under facts already judged.
 */
export function managementFor(current: Management | undefined, workflowStartedAt: string): Management {
  return current ?? { since: workflowStartedAt, source: 'workflow_start' };
}

/**
 * When a person made what this observation reports, by the provider's clock: a comment's creation (an edit made
 * after management of a comment written before it is still a comment written before it: the creation time counts),
 * a changelog's time. Undefined for everything else: pull-request events happen only once the service opened a
 * pull request, so after it took the ticket, and the ticket's creation is what starts it.
 */
export function madeAt(observation: Observation): string | undefined {
  if (observation.source_system !== 'tracker') return undefined;
  if (observation.event === 'issue_commented') return validTime(observation.facts.comment?.created) ?? validTime(observation.observed_at);
  if (observation.event === 'issue_updated') return validTime(observation.observed_at);
  return undefined;
}

function describe(observation: Observation): string {
  if (observation.event === 'issue_commented') return `comment ${observation.facts.comment?.id ?? observation.resource.id}`;
  const change = observation.facts.label_change;
  const labels = change ? [...change.added.map((l) => `+${l}`), ...change.removed.map((l) => `-${l}`)] : [];
  return labels.length > 0 ? `label change ${labels.join(' ')}` : 'ticket update';
}

function sourceText(management: Management): string {
  switch (management.source) {
    case 'label_added': return `${MANAGED_LABEL} was added`;
    case 'issue_created': return `the ticket was created with ${MANAGED_LABEL}`;
    case 'workflow_start': return 'the workflow started';
  }
}

/**
 * Why this tracker comment or label change cannot command the ticket: it was made before the service took it.
 * Undefined when it was made at or after that moment, or when it carries no time to judge by (then it is judged like
 * any fact: refusing it would lose a real command on a provider that sends no times).
 */
export function beforeManagement(observation: Observation, management: Management): string | undefined {
  const made = madeAt(observation);
  if (made === undefined || Date.parse(made) >= Date.parse(management.since)) return undefined;
  return `${BEFORE_MANAGEMENT}: ${describe(observation)} was made at ${made}, before the service took ${observation.ticket_key} at ${management.since} (${sourceText(management)}); only what people write after that commands the ticket`;
}
