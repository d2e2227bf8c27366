/**
 * Jira Cloud REST v3 client: everything the service reads from and writes to the tracker. Rich text goes in and
 * out as Markdown. Reads are retried briefly; writes are not (the effect journal reconciles them), except where the
 * write is set-like (labels, properties), so repeating it cannot do harm.
 */
import { JsonHttpClient, LatencyHook } from '../http/json-http-client';
import { NotFoundProviderError, PreconditionProviderError } from '../provider-errors';
import { cachedIdentity, serviceIdentityUnknown } from '../own-writes';
import type { RetryPolicy } from '../retry-policy';
import { adfToMarkdown } from './adf/adf-to-markdown';
import { trackerRichTextToMarkdown } from './rich-text-to-markdown';
import { isAdfDocument, type AdfDocument } from './adf/adf-types';
import { markdownToAdf } from './adf/markdown-to-adf';
import { neutraliseAdfCommands } from './adf/neutralise-adf-commands';
import type { ProjectPropertiesPort } from '../../config/project-properties-port';
import type {
  CreateIssueInput,
  CreatedIssue,
  JiraChangelogHistory,
  JiraComment,
  JiraGroupName,
  JiraIssue,
  JiraUser,
  SearchPage,
  TrackerChangelogEntry,
  TrackerComment,
  TrackerGroup,
  TrackerIssue,
  TrackerIssueLink,
  TrackerTransition,
  TrackerUser,
} from './tracker-types';

/** The comment property that carries an effect's idempotency key, so a posted comment can be found again. */
export const IDEMPOTENCY_PROPERTY_KEY = 'service.idempotency';

/** Fields requested for issues; search returns only ids unless fields are named. */
export const ISSUE_FIELDS = ['summary', 'description', 'labels', 'issuetype', 'status', 'project', 'parent', 'created', 'updated'];
/** A single issue is read with its links too (e.g. to see whether a bug-fix task relates to its bug already). */
const SINGLE_ISSUE_FIELDS = [...ISSUE_FIELDS, 'issuelinks', 'creator'];

const API = '/rest/api/3';
const PAGE_SIZE = 100;

export interface TrackerClientOptions {
  /** The site URL, e.g. `https://acme.atlassian.net`. */
  baseUrl: string;
  /** Service account e-mail and API token: Jira Cloud basic credentials. */
  email: string;
  apiToken: string;
  /** Per request attempt; default 30 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  onLatency?: LatencyHook;
  fetch?: typeof fetch;
}

/** Reads TRACKER_BASE_URL, TRACKER_USER_EMAIL and TRACKER_API_TOKEN; throws naming every missing variable. */
export function trackerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): TrackerClientOptions {
  const missing = ['TRACKER_BASE_URL', 'TRACKER_USER_EMAIL', 'TRACKER_API_TOKEN'].filter((name) => !env[name]?.trim());
  if (missing.length) throw new Error(`Tracker client is not configured: set ${missing.join(', ')}`);
  return {
    baseUrl: (env.TRACKER_BASE_URL ?? '').trim(),
    email: (env.TRACKER_USER_EMAIL ?? '').trim(),
    apiToken: (env.TRACKER_API_TOKEN ?? '').trim(),
  };
}

export function createTrackerClient(options: TrackerClientOptions): TrackerClient {
  return new TrackerClient(options);
}

export class TrackerClient implements ProjectPropertiesPort {
  private readonly http: JsonHttpClient;
  private readonly accountId = cachedIdentity(async () => {
    const { accountId } = await this.getMyself();
    if (!accountId) throw new Error('the tracker named no account id for the service account');
    return accountId;
  });

  constructor(options: TrackerClientOptions) {
    const basic = Buffer.from(`${options.email}:${options.apiToken}`).toString('base64');
    this.http = new JsonHttpClient({
      provider: 'tracker',
      baseUrl: options.baseUrl,
      headers: { authorization: `Basic ${basic}` },
      timeoutMs: options.timeoutMs,
      retry: options.retry,
      onLatency: options.onLatency,
      secrets: [options.apiToken, basic],
      fetch: options.fetch,
    });
  }

  /** The service account, e.g. to recognise its own comments. */
  async getMyself(): Promise<TrackerUser> {
    const { body } = await this.http.request<JiraUser>({ operation: 'getMyself', method: 'GET', path: `${API}/myself` });
    return toUser(body);
  }

  /**
   * The service account's id (`GET /myself`), asked once per client; a failed lookup is asked again next time. It
   * fails as a retryable error naming the lookup, as nothing can be adopted without it.
   */
  async serviceAccountId(): Promise<string> {
    try {
      return await this.accountId();
    } catch (error) {
      throw serviceIdentityUnknown('tracker', { method: 'GET', path: `${API}/myself` }, error);
    }
  }

  /**
   * The groups of a user (Jira Cloud: GET /user/groups by account id; the service account needs the "Browse users
   * and groups" permission). An unknown account is a NotFoundProviderError, so that callers can tell "no such
   * person" from "no groups".
   */
  async getUserGroups(accountId: string): Promise<TrackerGroup[]> {
    const { body } = await this.http.request<JiraGroupName[]>({ operation: 'getUserGroups', method: 'GET', path: `${API}/user/groups`, query: { accountId } });
    return body.map((group) => ({ name: group.name, ...(group.groupId ? { groupId: group.groupId } : {}) }));
  }

  /** An issue with its labels, type, status, parent and links; with `changelog: true` also its full change history. */
  async getIssue(issueKey: string, options: { changelog?: boolean } = {}): Promise<TrackerIssue> {
    const { body } = await this.http.request<JiraIssue>({
      operation: 'getIssue',
      method: 'GET',
      path: `${API}/issue/${enc(issueKey)}`,
      query: { fields: SINGLE_ISSUE_FIELDS.join(','), expand: options.changelog ? 'changelog' : undefined },
    });
    const issue = toIssue(body);
    if (options.changelog && body.changelog) {
      let histories = body.changelog.histories;
      // expand=changelog returns at most 100 entries; the dedicated endpoint pages through the rest.
      if (body.changelog.total > histories.length) histories = await this.getChangelog(issueKey);
      issue.changelog = histories.map(toChangelogEntry).sort((a, b) => Number(a.id) - Number(b.id));
    }
    return issue;
  }

  private async getChangelog(issueKey: string): Promise<JiraChangelogHistory[]> {
    const all: JiraChangelogHistory[] = [];
    for (let startAt = 0; ; ) {
      const { body } = await this.http.request<{ values: JiraChangelogHistory[]; total: number; isLast?: boolean }>({
        operation: 'getChangelog',
        method: 'GET',
        path: `${API}/issue/${enc(issueKey)}/changelog`,
        query: { startAt, maxResults: PAGE_SIZE },
      });
      all.push(...body.values);
      startAt += body.values.length;
      if (body.isLast || body.values.length === 0 || startAt >= body.total) return all;
    }
  }

  /** All comments, oldest first, with the idempotency key of those the service wrote. */
  async getComments(issueKey: string): Promise<TrackerComment[]> {
    const all: TrackerComment[] = [];
    for (let startAt = 0; ; ) {
      const { body } = await this.http.request<{ comments: JiraComment[]; total: number; startAt: number }>({
        operation: 'getComments',
        method: 'GET',
        path: `${API}/issue/${enc(issueKey)}/comment`,
        query: { startAt, maxResults: PAGE_SIZE, orderBy: 'created', expand: 'properties' },
      });
      all.push(...body.comments.map(toComment));
      startAt += body.comments.length;
      if (body.comments.length === 0 || startAt >= body.total) return all;
    }
  }

  /** One comment (REST v3: its body as ADF), for a webhook whose wiki-markup body lost what a command needs. */
  async getComment(issueKey: string, commentId: string): Promise<TrackerComment> {
    const { body } = await this.http.request<JiraComment>({
      operation: 'getComment',
      method: 'GET',
      path: `${API}/issue/${enc(issueKey)}/comment/${enc(commentId)}`,
      query: { expand: 'properties' },
    });
    return toComment(body);
  }

  /**
   * Posts a Markdown comment. With an idempotency key the comment carries it as a comment property, so that
   * `findCommentByIdempotencyKey` can tell whether a write whose outcome was unknown actually happened.
   */
  async addComment(issueKey: string, markdown: string, options: { idempotencyKey?: string } = {}): Promise<TrackerComment> {
    const { body } = await this.http.request<JiraComment>({
      operation: 'addComment',
      method: 'POST',
      path: `${API}/issue/${enc(issueKey)}/comment`,
      query: { expand: 'properties' },
      body: {
        body: postedAdf(markdown),
        ...(options.idempotencyKey
          ? { properties: [{ key: IDEMPOTENCY_PROPERTY_KEY, value: { key: options.idempotencyKey } }] }
          : {}),
      },
    });
    const comment = toComment(body);
    return { ...comment, idempotencyKey: comment.idempotencyKey ?? options.idempotencyKey };
  }

  /**
   * The service's own comment carrying the key. Any user may set the property on a comment of theirs, so a comment by
   * anyone else is not the service's write, whatever it carries (src/providers/own-writes.ts).
   */
  async findCommentByIdempotencyKey(issueKey: string, idempotencyKey: string): Promise<TrackerComment | undefined> {
    const self = await this.serviceAccountId();
    const comments = await this.getComments(issueKey);
    return comments.find((comment) => comment.idempotencyKey === idempotencyKey && comment.author?.accountId === self);
  }

  /** Posts the comment unless the service wrote one with the same idempotency key already. */
  async addCommentOnce(issueKey: string, markdown: string, idempotencyKey: string): Promise<{ comment: TrackerComment; created: boolean }> {
    const existing = await this.findCommentByIdempotencyKey(issueKey, idempotencyKey);
    if (existing) return { comment: existing, created: false };
    return { comment: await this.addComment(issueKey, markdown, { idempotencyKey }), created: true };
  }

  /** Adds labels; labels already present are left alone (Jira's `add` is set-like). */
  async addLabels(issueKey: string, labels: string[]): Promise<void> {
    await this.updateLabels(issueKey, labels.map((label) => ({ add: label })), 'addLabels');
  }

  /** Removes labels; removing an absent label is not an error. */
  async removeLabels(issueKey: string, labels: string[]): Promise<void> {
    await this.updateLabels(issueKey, labels.map((label) => ({ remove: label })), 'removeLabels');
  }

  /** Adds and removes labels in one edit, so a stage change appears as a single changelog entry. */
  async updateLabels(issueKey: string, operations: Array<{ add: string } | { remove: string }>, operation = 'updateLabels'): Promise<void> {
    if (operations.length === 0) return;
    await this.http.request({
      operation,
      method: 'PUT',
      path: `${API}/issue/${enc(issueKey)}`,
      body: { update: { labels: operations } },
    });
  }

  async getTransitions(issueKey: string): Promise<TrackerTransition[]> {
    const { body } = await this.http.request<{ transitions: Array<{ id: string; name: string; to: { id: string; name: string; statusCategory?: { key: string } } }> }>({
      operation: 'getTransitions',
      method: 'GET',
      path: `${API}/issue/${enc(issueKey)}/transitions`,
    });
    return body.transitions.map((t) => ({
      id: t.id,
      name: t.name,
      to: { id: t.to.id, name: t.to.name, statusCategory: t.to.statusCategory?.key },
    }));
  }

  /**
   * Moves the issue using the transition whose name or target status matches `target`, case-insensitively
   * (REFERENCE: tracker conventions). An issue already in that status is left alone, so the call is set-like.
   * No matching transition is a precondition failure that lists what is available.
   */
  async transitionIssue(issueKey: string, target: string): Promise<{ transitioned: boolean; status: string }> {
    const wanted = target.trim().toLowerCase();
    const issue = await this.getIssue(issueKey);
    if (issue.status.toLowerCase() === wanted) return { transitioned: false, status: issue.status };
    const transitions = await this.getTransitions(issueKey);
    const transition = transitions.find((t) => t.name.toLowerCase() === wanted) ??
      transitions.find((t) => t.to.name.toLowerCase() === wanted);
    const path = `${API}/issue/${enc(issueKey)}/transitions`;
    if (!transition) {
      const available = transitions.map((t) => `"${t.name}" (to ${t.to.name})`).join(', ') || 'none';
      throw new PreconditionProviderError(`no transition named or leading to "${target}" from "${issue.status}"; available: ${available}`, {
        provider: 'tracker', operation: 'transitionIssue', method: 'POST', path,
      });
    }
    if (transition.to.name.toLowerCase() === issue.status.toLowerCase()) return { transitioned: false, status: issue.status };
    await this.http.request({ operation: 'transitionIssue', method: 'POST', path, body: { transition: { id: transition.id } }, idempotent: false });
    return { transitioned: true, status: transition.to.name };
  }

  /** Creates an issue (with parent and links). Not idempotent: callers find existing items by label first. */
  async createIssue(input: CreateIssueInput): Promise<CreatedIssue> {
    const fields: Record<string, unknown> = {
      project: { key: input.projectKey },
      issuetype: { name: input.issueType },
      summary: input.summary,
    };
    if (input.description !== undefined) fields.description = postedAdf(input.description);
    if (input.labels?.length) fields.labels = input.labels;
    if (input.parentKey) fields.parent = { key: input.parentKey };
    const { body } = await this.http.request<CreatedIssue>({ operation: 'createIssue', method: 'POST', path: `${API}/issue`, body: { fields } });
    for (const link of input.links ?? []) {
      const [outward, inward] = link.direction === 'inward' ? [link.issueKey, body.key] : [body.key, link.issueKey];
      await this.linkIssues(link.type, outward, inward);
    }
    return { id: body.id, key: body.key, self: body.self };
  }

  /** Links two issues, e.g. `linkIssues('Relates', fixTask, bug)`. */
  async linkIssues(linkType: string, outwardIssueKey: string, inwardIssueKey: string): Promise<void> {
    await this.http.request({
      operation: 'linkIssues',
      method: 'POST',
      path: `${API}/issueLink`,
      body: { type: { name: linkType }, outwardIssue: { key: outwardIssueKey }, inwardIssue: { key: inwardIssueKey } },
    });
  }

  async getIssueProperty(issueKey: string, propertyKey: string): Promise<unknown | undefined> {
    return this.getProperty(`${API}/issue/${enc(issueKey)}/properties/${enc(propertyKey)}`, 'getIssueProperty', /Issue does not exist/i);
  }

  async setIssueProperty(issueKey: string, propertyKey: string, value: unknown): Promise<void> {
    await this.http.request({ operation: 'setIssueProperty', method: 'PUT', path: `${API}/issue/${enc(issueKey)}/properties/${enc(propertyKey)}`, body: value });
  }

  async deleteIssueProperty(issueKey: string, propertyKey: string): Promise<void> {
    await this.deleteProperty(`${API}/issue/${enc(issueKey)}/properties/${enc(propertyKey)}`, 'deleteIssueProperty', /Issue does not exist/i);
  }

  /** A project property's value; undefined when unset. An unknown project is an error, not "unset". */
  async getProjectProperty(projectKey: string, propertyKey: string): Promise<unknown | undefined> {
    return this.getProperty(`${API}/project/${enc(projectKey)}/properties/${enc(propertyKey)}`, 'getProjectProperty', /No project could be found/i);
  }

  async setProjectProperty(projectKey: string, propertyKey: string, value: unknown): Promise<void> {
    await this.http.request({ operation: 'setProjectProperty', method: 'PUT', path: `${API}/project/${enc(projectKey)}/properties/${enc(propertyKey)}`, body: value });
  }

  async deleteProjectProperty(projectKey: string, propertyKey: string): Promise<void> {
    await this.deleteProperty(`${API}/project/${enc(projectKey)}/properties/${enc(propertyKey)}`, 'deleteProjectProperty', /No project could be found/i);
  }

  private async getProperty(path: string, operation: string, missingEntity: RegExp): Promise<unknown | undefined> {
    try {
      const { body } = await this.http.request<{ key: string; value: unknown }>({ operation, method: 'GET', path });
      return body.value;
    } catch (error) {
      if (error instanceof NotFoundProviderError && !missingEntity.test(error.providerMessage ?? '')) return undefined;
      throw error;
    }
  }

  private async deleteProperty(path: string, operation: string, missingEntity: RegExp): Promise<void> {
    try {
      await this.http.request({ operation, method: 'DELETE', path });
    } catch (error) {
      if (error instanceof NotFoundProviderError && !missingEntity.test(error.providerMessage ?? '')) return;
      throw error;
    }
  }

  /** One page of a JQL search (POST /search/jql, token paging). */
  async searchIssues(jql: string, options: { maxResults?: number; nextPageToken?: string } = {}): Promise<SearchPage> {
    const { body } = await this.http.request<{ issues: JiraIssue[]; nextPageToken?: string; isLast?: boolean }>({
      operation: 'searchIssues',
      method: 'POST',
      path: `${API}/search/jql`,
      idempotent: true,
      body: { jql, fields: ISSUE_FIELDS, maxResults: options.maxResults ?? 50, ...(options.nextPageToken ? { nextPageToken: options.nextPageToken } : {}) },
    });
    return { issues: body.issues.map(toIssue), nextPageToken: body.isLast === false || (body.isLast === undefined && body.nextPageToken) ? body.nextPageToken : undefined };
  }

  /** Every issue matching the JQL, following page tokens, up to `limit` issues. */
  async searchAllIssues(jql: string, options: { limit?: number; pageSize?: number } = {}): Promise<TrackerIssue[]> {
    const limit = options.limit ?? 1000;
    const all: TrackerIssue[] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await this.searchIssues(jql, { maxResults: Math.min(options.pageSize ?? 100, limit - all.length), nextPageToken });
      all.push(...page.issues);
      nextPageToken = page.nextPageToken;
    } while (nextPageToken && all.length < limit);
    return all.slice(0, limit);
  }
}

/**
 * Rich text as the service posts it: no line of it, as any reader renders the document, reads as a command
 * (src/providers/tracker/adf/neutralise-adf-commands.ts); a text that would still command is refused, not posted.
 */
function postedAdf(markdown: string): AdfDocument {
  return neutraliseAdfCommands(markdownToAdf(markdown));
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function toUser(user: JiraUser): TrackerUser {
  return { accountId: user.accountId, displayName: user.displayName, emailAddress: user.emailAddress };
}

export function toIssue(issue: JiraIssue): TrackerIssue {
  const fields = issue.fields ?? {};
  const description = isAdfDocument(fields.description) ? fields.description : undefined;
  return {
    id: issue.id,
    key: issue.key,
    projectKey: fields.project?.key ?? issue.key.split('-')[0] ?? '',
    summary: fields.summary ?? '',
    description: description ? adfToMarkdown(description) : typeof fields.description === 'string' ? trackerRichTextToMarkdown(fields.description) : '',
    descriptionAdf: description,
    labels: fields.labels ?? [],
    issueType: fields.issuetype?.name ?? '',
    status: fields.status?.name ?? '',
    statusCategory: fields.status?.statusCategory?.key,
    parentKey: fields.parent?.key,
    created: fields.created ?? '',
    updated: fields.updated ?? '',
    ...(Array.isArray(fields.issuelinks) ? { links: fields.issuelinks.flatMap(toLink) } : {}),
    ...(fields.creator ? { creator: toUser(fields.creator) } : {}),
  };
}

function toLink(link: NonNullable<JiraIssue['fields']['issuelinks']>[number]): TrackerIssueLink[] {
  const type = link.type?.name ?? '';
  if (link.outwardIssue?.key) return [{ type, issueKey: link.outwardIssue.key, direction: 'outward' }];
  if (link.inwardIssue?.key) return [{ type, issueKey: link.inwardIssue.key, direction: 'inward' }];
  return [];
}

function toChangelogEntry(history: JiraChangelogHistory): TrackerChangelogEntry {
  return {
    id: history.id,
    created: history.created,
    author: history.author ? toUser(history.author) : undefined,
    items: history.items.map((item) => ({ field: item.field, fromString: item.fromString, toString: item.toString })),
  };
}

export function toComment(comment: JiraComment): TrackerComment {
  const property = comment.properties?.find((p) => p.key === IDEMPOTENCY_PROPERTY_KEY)?.value as { key?: unknown } | undefined;
  return {
    id: comment.id,
    body: trackerRichTextToMarkdown(comment.body),
    bodyAdf: isAdfDocument(comment.body) ? comment.body : undefined,
    author: comment.author ? toUser(comment.author) : undefined,
    created: comment.created,
    updated: comment.updated,
    idempotencyKey: typeof property?.key === 'string' ? property.key : undefined,
  };
}
