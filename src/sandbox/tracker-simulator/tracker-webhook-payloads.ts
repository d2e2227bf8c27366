/**
 * Jira Cloud webhook bodies for the simulator's events, in the shape real deliveries have (a corpus of captured
 * deliveries under test/fixtures/vendor-deliveries/jira, compared field by field in
 * test/process/sandbox/jira-delivery-corpus.test.ts):
 * - `jira:issue_created` / `jira:issue_updated`: timestamp, webhookEvent, issue_event_type_name, user, the issue with
 *   every system field, and a changelog (a creation has one too: every field it set, from nothing);
 * - `comment_created`: timestamp, webhookEvent, the comment and a short issue (summary, issuetype, project, assignee,
 *   priority, status); no `user` and no `issue_event_type_name`.
 * Webhooks speak REST v2: `self` links point at /rest/api/2 and descriptions and comment bodies are wiki markup
 * strings, while the REST v3 answers of the same simulator carry ADF.
 */
import { adfToJiraWiki } from './adf-to-jira-wiki';
import { ISSUE_TYPES, statusByName, type SimComment, type SimIssue, type TrackerSimEvent, type TrackerState } from './tracker-state';
import type { JiraUser } from '../../providers/tracker/tracker-types';

type Json = Record<string, unknown>;

export interface JiraWebhookPayload {
  timestamp: number;
  webhookEvent: 'jira:issue_created' | 'jira:issue_updated' | 'comment_created';
  issue_event_type_name?: string;
  user?: Json;
  issue: { id: string; self: string; key: string; fields: Json };
  changelog?: { id: string; items: Array<Record<string, unknown>> };
  comment?: Json;
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
 * The issue as a delivery sent now would carry it: Jira reads the issue when it sends, so a webhook redelivered late
 * carries the issue as it is then. `comment` gives the short issue of comment events, `issue` every system field.
 */
export function jiraWebhookIssue(state: TrackerState, issue: SimIssue, event: 'comment' | 'issue'): JiraWebhookPayload['issue'] {
  const view = new WebhookView(state);
  return event === 'comment' ? view.shortIssue(issue) : view.fullIssue(issue);
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
  const view = new WebhookView(state);
  const timestamp = eventTime(event);
  switch (event.type) {
    case 'issue_created':
      return {
        timestamp,
        webhookEvent: 'jira:issue_created',
        issue_event_type_name: 'issue_created',
        user: view.user(event.user),
        issue: view.fullIssue(event.issue),
        changelog: { id: event.changelogId, items: view.creationItems(event.issue) },
      };
    case 'issue_updated':
      return {
        timestamp,
        webhookEvent: 'jira:issue_updated',
        issue_event_type_name: event.eventTypeName,
        user: view.user(event.user),
        issue: view.fullIssue(event.issue),
        changelog: { id: event.history.id, items: event.history.items.map((item) => ({ ...item, fieldId: item.field })) },
      };
    case 'comment_created':
      return { timestamp, webhookEvent: 'comment_created', comment: view.comment(event.issue, event.comment), issue: view.shortIssue(event.issue) };
  }
}

const CATEGORY = {
  new: { id: 2, colorName: 'blue-gray', name: 'To Do' },
  indeterminate: { id: 4, colorName: 'yellow', name: 'In Progress' },
  done: { id: 3, colorName: 'green', name: 'Done' },
} as const;

/** The simulator does not model priorities; Jira gives every new issue the default one. */
const DEFAULT_PRIORITY = { id: '3', name: 'Medium' };

class WebhookView {
  private readonly api: string;

  constructor(private readonly state: TrackerState) {
    this.api = `${state.baseUrl()}/rest/api/2`;
  }

  user(user: JiraUser): Json {
    const avatar = (size: string) => `${this.state.baseUrl()}/secure/useravatar?size=${size}&avatarId=10122`;
    return {
      self: `${this.api}/user?accountId=${encodeURIComponent(user.accountId)}`,
      accountId: user.accountId,
      avatarUrls: { '48x48': avatar('large'), '24x24': avatar('small'), '16x16': avatar('xsmall'), '32x32': avatar('medium') },
      displayName: user.displayName,
      ...(user.emailAddress ? { emailAddress: user.emailAddress } : {}),
      active: user.active ?? true,
      timeZone: 'UTC',
      accountType: 'atlassian',
    };
  }

  /** The issue as `jira:issue_*` events carry it: every system field, set or not. */
  fullIssue(issue: SimIssue): JiraWebhookPayload['issue'] {
    const rest = this.state.issueJson(issue).fields;
    const creator = issue.creator ? this.user(issue.creator) : null;
    const watchersAndVotes = `${this.api}/issue/${issue.key}`;
    const fields: Json = {
      statuscategorychangedate: issue.created,
      issuetype: this.issueType(issue, true),
      timespent: null,
      project: this.project(issue),
      fixVersions: [],
      aggregatetimespent: null,
      resolution: null,
      resolutiondate: null,
      workratio: -1,
      issuerestriction: { issuerestrictions: {}, shouldDisplay: true },
      lastViewed: null,
      watches: { self: `${watchersAndVotes}/watchers`, watchCount: 0, isWatching: false },
      created: issue.created,
      priority: this.priority(),
      labels: [...issue.labels],
      timeestimate: null,
      aggregatetimeoriginalestimate: null,
      versions: [],
      issuelinks: rest.issuelinks ?? [],
      assignee: null,
      updated: issue.updated,
      status: this.status(issue),
      components: [],
      timeoriginalestimate: null,
      description: issue.description ? adfToJiraWiki(issue.description) : null,
      timetracking: {},
      security: null,
      aggregatetimeestimate: null,
      attachment: [],
      summary: issue.summary,
      creator,
      subtasks: [],
      reporter: creator,
      aggregateprogress: { progress: 0, total: 0 },
      environment: null,
      duedate: null,
      progress: { progress: 0, total: 0 },
      votes: { self: `${watchersAndVotes}/votes`, votes: 0, hasVoted: false },
      ...(rest.parent ? { parent: rest.parent } : {}),
    };
    return { id: issue.id, self: this.issueSelf(issue), key: issue.key, fields };
  }

  /** The issue as comment events carry it: these six fields only. */
  shortIssue(issue: SimIssue): JiraWebhookPayload['issue'] {
    return {
      id: issue.id,
      self: this.issueSelf(issue),
      key: issue.key,
      fields: { summary: issue.summary, issuetype: this.issueType(issue, false), project: this.project(issue), assignee: null, priority: this.priority(), status: this.status(issue) },
    };
  }

  comment(issue: SimIssue, comment: SimComment): Json {
    const author = this.user(comment.author);
    return {
      self: `${this.api}/issue/${issue.id}/comment/${comment.id}`,
      id: comment.id,
      author,
      body: adfToJiraWiki(comment.body),
      updateAuthor: author,
      created: comment.created,
      updated: comment.updated,
      jsdPublic: true,
    };
  }

  /** A creation's changelog: each field the creation set, from nothing (Jira lists them under one history id). */
  creationItems(issue: SimIssue): Array<Record<string, unknown>> {
    const status = statusByName(issue.status);
    const item = (field: string, fieldId: string, to: string | null, toString: string | null) => ({ field, fieldtype: 'jira', fieldId, from: null, fromString: null, to, toString });
    const creator = issue.creator;
    return [
      ...(issue.description ? [item('description', 'description', null, adfToJiraWiki(issue.description))] : []),
      ...(issue.labels.length ? [item('labels', 'labels', null, issue.labels.join(' '))] : []),
      item('priority', 'priority', DEFAULT_PRIORITY.id, DEFAULT_PRIORITY.name),
      ...(creator ? [{ ...item('reporter', 'reporter', creator.accountId, creator.displayName ?? null), tmpFromAccountId: null, tmpToAccountId: creator.accountId }] : []),
      item('Status', 'status', status.id, status.name),
      item('summary', 'summary', null, issue.summary),
    ];
  }

  /** Jira's quirk, kept: a webhook's `issue.self` has no `/issue/` segment (the comment's `self` has one). */
  private issueSelf(issue: SimIssue): string {
    return `${this.api}/${issue.id}`;
  }

  private issueType(issue: SimIssue, withEntityId: boolean): Json {
    const id = String(10_000 + ISSUE_TYPES.indexOf(issue.issueType));
    return {
      self: `${this.api}/issuetype/${id}`,
      id,
      description: '',
      iconUrl: `${this.api}/universal_avatar/view/type/issuetype/avatar/10318?size=medium`,
      name: issue.issueType,
      subtask: issue.issueType === 'Sub-task',
      avatarId: 10318,
      // Newer deliveries name the type's entity too; the corpus's comment events (2021) do not.
      ...(withEntityId ? { entityId: `00000000-0000-4000-8000-0000000${id}` } : {}),
      hierarchyLevel: issue.issueType === 'Sub-task' ? -1 : issue.issueType === 'Epic' ? 1 : 0,
    };
  }

  private project(issue: SimIssue): Json {
    const project = this.state.project(issue.projectKey);
    const avatar = (size: string) => `${this.api}/universal_avatar/view/type/project/avatar/10421?size=${size}`;
    return {
      self: `${this.api}/project/${project.id}`,
      id: project.id,
      key: project.key,
      name: project.name,
      projectTypeKey: 'software',
      simplified: false,
      avatarUrls: { '48x48': avatar('large'), '24x24': avatar('small'), '16x16': avatar('xsmall'), '32x32': avatar('medium') },
    };
  }

  private priority(): Json {
    return { self: `${this.api}/priority/${DEFAULT_PRIORITY.id}`, iconUrl: `${this.state.baseUrl()}/images/icons/priorities/medium.svg`, ...DEFAULT_PRIORITY };
  }

  private status(issue: SimIssue): Json {
    const status = statusByName(issue.status);
    const category = CATEGORY[status.category as keyof typeof CATEGORY] ?? CATEGORY.new;
    return {
      self: `${this.api}/status/${status.id}`,
      description: '',
      iconUrl: `${this.state.baseUrl()}/`,
      name: status.name,
      id: status.id,
      statusCategory: { self: `${this.api}/statuscategory/${category.id}`, id: category.id, key: status.category, colorName: category.colorName, name: category.name },
    };
  }
}
