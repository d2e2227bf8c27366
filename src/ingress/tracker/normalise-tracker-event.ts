import type { Observation, ObservationSource } from '../../../workflows/ledger/observation';
import { isoOrNull } from '../normalised-delivery';
import { changelogObservation, commentObservation, fieldsUpdatedObservation, issueCreatedObservation, trackerCommentAuthor, type TrackerCommentFacts, type TrackerIssueFacts } from './tracker-observations';
import { trackerRichTextToMarkdown } from '../../providers/tracker/rich-text-to-markdown';
import type { IssuelessCommentWebhook, TrackerWebhook } from './tracker-webhook-schema';

export { labelChangeFrom } from './tracker-observations';

export type TrackerEvent = 'issue_created' | 'issue_updated' | 'issue_commented';

export type NormaliseResult =
  | {
    kind: 'observation';
    event: TrackerEvent;
    /** The event's own fact: the one the webhook answer names. */
    observation: Observation;
    /**
     * Every fact the delivery carries, in delivery order. An issue update can carry a change and a comment at once
     * (a transition with a comment, or an old-style update); both are facts, the change first, since it may be the
     * one that starts the ticket's workflow.
     */
    observations: Observation[];
  }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'invalid'; reason: string };

/** Maps the spec's and Jira's event names onto the three tracker events of SPEC 4.2. */
export function trackerEventName(payload: { webhookEvent: string; issue_event_type_name?: string; comment?: unknown }): TrackerEvent | undefined {
  const name = payload.webhookEvent.trim().toLowerCase().replace(/^(tracker|jira):/, '');
  switch (name) {
    case 'issue_created':
      return 'issue_created';
    case 'issue_commented':
    case 'comment_created':
    case 'comment_updated':
      return 'issue_commented';
    case 'issue_updated':
      // Jira reports a comment added to an issue as an issue update of type issue_commented; older Jira sends the
      // comment with no event type at all, and that comment must not be read as a field update and lost.
      if (payload.comment && (payload.issue_event_type_name === undefined || /^issue_comment(ed|_edited)$/.test(payload.issue_event_type_name))) return 'issue_commented';
      return 'issue_updated';
    default:
      return undefined;
  }
}

function commentFacts(comment: NonNullable<TrackerWebhook['comment']>): TrackerCommentFacts {
  return {
    id: comment.id,
    // Jira Cloud's webhooks carry the body as wiki markup, the poller reads it as ADF: one text either way.
    body: trackerRichTextToMarkdown(comment.body),
    ...trackerCommentAuthor(comment.author),
    created: comment.created,
    updated: comment.updated,
  };
}

/**
 * A comment event that names its issue only by id (Jira Server/Data Center), once the gateway looked the key up.
 * The issue's fields are not in the delivery, so the observation carries none (a comment needs only its ticket).
 */
export function normaliseIssuelessComment(
  payload: IssuelessCommentWebhook,
  issue: { id: string; key: string },
  options: { source?: ObservationSource; receivedAt?: Date } = {},
): Observation {
  return commentObservation({ id: issue.id, key: issue.key }, commentFacts(payload.comment), { source: options.source ?? 'webhook', receivedAt: options.receivedAt ?? new Date() });
}

function issueOf(payload: TrackerWebhook): TrackerIssueFacts {
  const fields = payload.issue.fields;
  return {
    id: payload.issue.id ?? payload.issue.key,
    key: payload.issue.key,
    issueType: fields.issuetype?.name,
    summary: fields.summary,
    status: fields.status?.name,
    labels: fields.labels,
    created: fields.created,
    updated: fields.updated,
  };
}

/**
 * Turns a validated tracker webhook into an observation through the same builders the poller uses, so a webhook and
 * a poller delivery of one fact carry one identity.
 */
export function normaliseTrackerEvent(
  payload: TrackerWebhook,
  options: { source?: ObservationSource; receivedAt?: Date } = {},
): NormaliseResult {
  const event = trackerEventName(payload);
  if (!event) return { kind: 'unsupported', reason: `unsupported tracker event "${payload.webhookEvent}"` };
  const context = { source: options.source ?? 'webhook', receivedAt: options.receivedAt ?? new Date() };
  const issue = issueOf(payload);

  const own = ownFact(event, payload, issue, context);
  if (own.kind !== 'observation') return own;
  // A deleted comment is not a new fact to act on (Jira sends it as an update of type issue_comment_deleted).
  const deleted = /comment_deleted/.test(payload.issue_event_type_name ?? '');
  const comment = payload.comment && event !== 'issue_commented' && !deleted ? commentObservation(issue, commentFacts(payload.comment), context) : undefined;
  const change = payload.changelog?.id && payload.changelog.items.length > 0 && event === 'issue_commented'
    ? changelogObservation(issue, { id: payload.changelog.id, created: changelogTime(payload), items: payload.changelog.items, author: payload.user }, context)
    : undefined;
  const observations = [change, own.observation, comment].filter((o): o is Observation => o !== undefined);
  return { kind: 'observation', event, observation: own.observation, observations };
}

/**
 * When the change a webhook reports was made. Jira's webhook changelog carries no time of its own (the REST changelog
 * has `created`); the body's top-level `timestamp` (epoch milliseconds) is when the event happened. Never the issue's
 * `updated`: Jira reads the issue when it sends, so a delayed or retried delivery of a label change made before the
 * service took the ticket would carry a later time and count as made after it (workflows/runtime/management-moment.ts).
 * A `created` on the changelog (as the REST changelog has it) wins when a sender includes one.
 */
export function changelogTime(payload: Pick<TrackerWebhook, 'timestamp' | 'changelog'>): string | undefined {
  const own = isoOrNull(payload.changelog?.created);
  if (own) return own;
  const at = payload.timestamp;
  return typeof at === 'number' && Number.isFinite(at) && at > 0 ? new Date(at).toISOString() : undefined;
}

function ownFact(
  event: TrackerEvent,
  payload: TrackerWebhook,
  issue: TrackerIssueFacts,
  context: { source: ObservationSource; receivedAt: Date },
): { kind: 'observation'; observation: Observation } | { kind: 'invalid'; reason: string } {
  if (event === 'issue_created') {
    const fallback = payload.timestamp ? new Date(payload.timestamp).toISOString() : undefined;
    return { kind: 'observation', observation: issueCreatedObservation(issue, context, fallback, payload.user) };
  }
  if (event === 'issue_commented') {
    const comment = payload.comment;
    if (!comment) return { kind: 'invalid', reason: 'a comment event needs a comment object with an id' };
    return { kind: 'observation', observation: commentObservation(issue, commentFacts(comment), context) };
  }
  const changelog = payload.changelog;
  if (changelog?.id) {
    return { kind: 'observation', observation: changelogObservation(issue, { id: changelog.id, created: changelogTime(payload), items: changelog.items, author: payload.user }, context) };
  }
  const updated = isoOrNull(issue.updated);
  if (!updated) return { kind: 'invalid', reason: 'an issue_updated event needs changelog.id or issue.fields.updated to identify the change' };
  return { kind: 'observation', observation: fieldsUpdatedObservation(issue, updated, context) };
}
