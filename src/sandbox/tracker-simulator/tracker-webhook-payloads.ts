/**
 * Jira Cloud webhook bodies for the simulator's events, in the documented shape
 * (developer.atlassian.com, "Webhooks": timestamp, webhookEvent, issue_event_type_name, user, issue, changelog,
 * comment). Jira sends issue fields in full; the simulator sends the fields it models.
 */
import type { TrackerSimEvent, TrackerState } from './tracker-state';

export interface JiraWebhookPayload {
  timestamp: number;
  webhookEvent: 'jira:issue_created' | 'jira:issue_updated' | 'comment_created';
  issue_event_type_name?: string;
  user: Record<string, unknown>;
  issue: ReturnType<TrackerState['issueJson']>;
  changelog?: { id: string; items: Array<Record<string, unknown>> };
  comment?: Record<string, unknown>;
  matchedWebhookIds?: number[];
}

/** Leaves out `emailAddress` from every user object in a payload, as Jira Cloud does for private profiles. */
export function withoutEmails<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutEmails) as T;
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'emailAddress').map(([key, inner]) => [key, withoutEmails(inner)])) as T;
}

export function jiraWebhookPayload(state: TrackerState, event: TrackerSimEvent, options: { privateEmails?: boolean } = {}): JiraWebhookPayload {
  const payload = webhookPayload(state, event);
  return options.privateEmails ? withoutEmails(payload) : payload;
}

/**
 * When the event happened, as Jira's `timestamp` says it (epoch milliseconds): the creation, the changelog entry or
 * the comment. The webhook's changelog carries no time of its own, so this is the only time of a label change in the
 * body; the issue's `updated` is read when the body is built and may be later.
 */
function eventTime(event: TrackerSimEvent): number {
  const at = event.type === 'issue_created' ? event.issue.created : event.type === 'issue_updated' ? event.history.created : event.comment.created;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? Date.now() : ms;
}

function webhookPayload(state: TrackerState, event: TrackerSimEvent): JiraWebhookPayload {
  const base = {
    timestamp: eventTime(event),
    user: {
      self: `${state.baseUrl()}/rest/api/3/user?accountId=${event.user.accountId}`,
      accountId: event.user.accountId,
      displayName: event.user.displayName,
      emailAddress: event.user.emailAddress,
      active: true,
      timeZone: 'UTC',
      accountType: 'atlassian',
    },
    issue: state.issueJson(event.issue),
    matchedWebhookIds: [1],
  };
  switch (event.type) {
    case 'issue_created':
      return { ...base, webhookEvent: 'jira:issue_created', issue_event_type_name: 'issue_created' };
    case 'issue_updated':
      return {
        ...base,
        webhookEvent: 'jira:issue_updated',
        issue_event_type_name: event.eventTypeName,
        changelog: {
          id: event.history.id,
          items: event.history.items.map((item) => ({ ...item, fieldId: item.field })),
        },
      };
    case 'comment_created':
      return {
        ...base,
        webhookEvent: 'comment_created',
        issue_event_type_name: 'issue_commented',
        comment: { ...state.commentJson(event.issue, event.comment, false), jsdPublic: true },
      };
  }
}
