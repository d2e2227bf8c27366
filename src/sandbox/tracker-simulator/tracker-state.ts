/**
 * The tracker simulator's in-memory world: projects, issues, comments, changelogs, links and properties, with
 * Jira's ids, timestamps and validation messages. Every change goes through these methods, whether it comes from
 * the service over HTTP or from a test acting as a person, so webhooks fire the same way for both.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { AdfDocument } from '../../providers/tracker/adf/adf-types';
import { markdownToAdf } from '../../providers/tracker/adf/markdown-to-adf';
import { adfToMarkdown } from '../../providers/tracker/adf/adf-to-markdown';
import type { JiraChangelogHistory, JiraComment, JiraIssue, JiraUser } from '../../providers/tracker/tracker-types';

export const ISSUE_TYPES = ['Feature', 'Story', 'Bug', 'Epic', 'Task', 'Sub-task'];
export const LINK_TYPES = [
  { id: '10000', name: 'Blocks', inward: 'is blocked by', outward: 'blocks' },
  { id: '10001', name: 'Cloners', inward: 'is cloned by', outward: 'clones' },
  { id: '10002', name: 'Duplicate', inward: 'is duplicated by', outward: 'duplicates' },
  { id: '10003', name: 'Relates', inward: 'relates to', outward: 'relates to' },
];
export const STATUSES = [
  { id: '10000', name: 'To Do', category: 'new' },
  { id: '3', name: 'In Progress', category: 'indeterminate' },
  { id: '10001', name: 'Done', category: 'done' },
  { id: '6', name: 'Closed', category: 'done' },
];
/** One global workflow: every status can reach every other, through transitions named unlike their targets. */
export const TRANSITIONS = [
  { id: '11', name: 'Reopen', to: 'To Do' },
  { id: '21', name: 'Start Progress', to: 'In Progress' },
  { id: '31', name: 'Resolve', to: 'Done' },
  { id: '41', name: 'Close Issue', to: 'Closed' },
];
const MAX_COMMENT_CHARS = 32_767;
const MAX_PROPERTY_BYTES = 32_768;

export interface SimComment {
  id: string;
  body: AdfDocument;
  author: JiraUser;
  created: string;
  updated: string;
  properties: Map<string, unknown>;
}

export interface SimIssue {
  id: string;
  key: string;
  projectKey: string;
  summary: string;
  description: AdfDocument | null;
  labels: string[];
  issueType: string;
  status: string;
  parentKey?: string;
  created: string;
  updated: string;
  histories: JiraChangelogHistory[];
  comments: SimComment[];
  properties: Map<string, unknown>;
  links: Array<{ id: string; type: string; outwardKey: string; inwardKey: string }>;
  /** Who created it (absent in snapshots from before it was kept). */
  creator?: JiraUser;
}

export interface SimProject {
  id: string;
  key: string;
  name: string;
  properties: Map<string, unknown>;
  nextIssueNumber: number;
}

/** A group of the site's user management; `group:<name>` entries of the allowed actors name it. */
export interface SimGroup {
  name: string;
  groupId: string;
  /** Account ids. */
  members: Set<string>;
}

/** A validation or lookup failure, answered with Jira's error body. */
export class TrackerSimError extends Error {
  constructor(readonly status: number, readonly errorMessages: string[], readonly errors: Record<string, string> = {}) {
    super(errorMessages[0] ?? Object.values(errors)[0] ?? `status ${status}`);
  }
}

type Entries = Array<[string, unknown]>;

/**
 * Everything the tracker simulator knows, as plain JSON: `service dev --sandbox` writes it to the data directory so
 * that a restart continues with the same tickets and, above all, never hands out an id twice (a ticket's workflow
 * outlives the process and would read a reused changelog or comment id as conflicting evidence).
 */
export interface TrackerSnapshot {
  version: 1;
  counters: { issue: number; history: number; comment: number; link: number; project: number };
  users: JiraUser[];
  projects: Array<Omit<SimProject, 'properties'> & { properties: Entries }>;
  issues: Array<Omit<SimIssue, 'properties' | 'comments'> & { properties: Entries; comments: Array<Omit<SimComment, 'properties'> & { properties: Entries }> }>;
}

export type TrackerSimEvent =
  /**
   * `changelogId`: the history id of the creation's own changelog, which Jira's issue_created webhook carries. Taken
   * from the same sequence as every other changelog id so that none is handed out twice; the issue's REST changelog
   * does not list the creation.
   */
  | { type: 'issue_created'; issue: SimIssue; user: JiraUser; changelogId: string }
  | { type: 'issue_updated'; issue: SimIssue; user: JiraUser; history: JiraChangelogHistory; eventTypeName: 'issue_updated' | 'issue_generic' }
  | { type: 'comment_created'; issue: SimIssue; user: JiraUser; comment: SimComment };

/**
 * A Jira Cloud-shaped account id (`712020:<uuid>`) derived from an e-mail address, case-insensitively: stable, so an
 * allowed-actors entry written for a sandbox person keeps naming them.
 */
export function accountIdForEmail(email: string): string {
  const hex = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  return `712020:${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Jira's timestamp format: 2024-05-01T10:30:00.000+0000. */
export function jiraTime(date: Date = new Date()): string {
  return date.toISOString().replace('Z', '+0000');
}

export const DEFAULT_HUMAN: JiraUser = {
  accountId: '5b10ac8d82e05b22cc7d4ef5',
  displayName: 'Pat Reviewer',
  emailAddress: 'pat@example.com',
  active: true,
};

export class TrackerState {
  readonly projects = new Map<string, SimProject>();
  readonly issues = new Map<string, SimIssue>();
  readonly users = new Map<string, JiraUser>();
  /** By name. Not part of the snapshot: tests set them when they need them. */
  readonly groups = new Map<string, SimGroup>();
  private nextIssueId = 10_000;
  private nextHistoryId = 10_000;
  private nextCommentId = 10_000;
  private nextLinkId = 10_000;
  private nextProjectId = 10_000;
  private readonly listeners: Array<(event: TrackerSimEvent) => void> = [];

  constructor(readonly baseUrl: () => string) {
    this.users.set(DEFAULT_HUMAN.accountId, DEFAULT_HUMAN);
  }

  onEvent(listener: (event: TrackerSimEvent) => void): void {
    this.listeners.push(listener);
  }

  private emit(event: TrackerSimEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /**
   * The user behind an e-mail (every caller authenticates with one: the service account, a person of
   * `service sandbox ... --as`); created on first sight with an account id derived from the address, so the same
   * person has the same id in every sandbox and after a restart.
   */
  userForEmail(email: string): JiraUser {
    const address = email.trim();
    for (const user of this.users.values()) if (user.emailAddress?.toLowerCase() === address.toLowerCase()) return user;
    const user: JiraUser = { accountId: accountIdForEmail(address), displayName: address.split('@')[0] || address, emailAddress: address, active: true };
    this.users.set(user.accountId, user);
    return user;
  }

  /**
   * Sets a group's members (account ids), creating the group when new: what an administrator does in Jira's user
   * management. Every member must be a known user, as in Jira.
   */
  setGroupMembers(name: string, accountIds: string[]): SimGroup {
    const unknown = accountIds.filter((id) => !this.users.has(id));
    if (unknown.length) throw new TrackerSimError(404, [`No user with account id '${unknown[0]}' exists.`]);
    const group = this.groups.get(name) ?? { name, groupId: randomUUID(), members: new Set<string>() };
    group.members = new Set(accountIds);
    this.groups.set(name, group);
    return group;
  }

  /** The groups an account belongs to, by name; an account nobody knows is a 404, as GET /user/groups answers it. */
  groupsOf(accountId: string): SimGroup[] {
    if (!this.users.has(accountId)) throw new TrackerSimError(404, [`No user with account id '${accountId}' exists.`]);
    return [...this.groups.values()].filter((group) => group.members.has(accountId)).sort((a, b) => a.name.localeCompare(b.name));
  }

  createProject(key: string, name = key): SimProject {
    const existing = this.projects.get(key);
    if (existing) return existing;
    const project: SimProject = { id: String(this.nextProjectId++), key, name, properties: new Map(), nextIssueNumber: 1 };
    this.projects.set(key, project);
    return project;
  }

  project(key: string): SimProject {
    const project = this.projects.get(key);
    if (!project) throw new TrackerSimError(404, [`No project could be found with key '${key}'.`]);
    return project;
  }

  issue(keyOrId: string): SimIssue {
    const issue = this.issues.get(keyOrId.toUpperCase()) ?? [...this.issues.values()].find((i) => i.id === keyOrId);
    if (!issue) throw new TrackerSimError(404, ['Issue does not exist or you do not have permission to see it.']);
    return issue;
  }

  createIssue(input: {
    projectKey: string;
    issueType: string;
    summary: string;
    description?: AdfDocument | string | null;
    labels?: string[];
    parentKey?: string;
  }, actor: JiraUser = DEFAULT_HUMAN): SimIssue {
    const errors: Record<string, string> = {};
    const project = this.projects.get(input.projectKey);
    if (!project) errors.project = 'Specify a valid project ID or key';
    const issueType = ISSUE_TYPES.find((type) => type.toLowerCase() === input.issueType?.toLowerCase());
    if (!issueType) errors.issuetype = 'Specify a valid issue type';
    if (!input.summary?.trim()) errors.summary = 'You must specify a summary of the issue.';
    else if (input.summary.length > 255) errors.summary = 'Summary must be less than 255 characters.';
    if (input.parentKey && !this.issues.has(input.parentKey.toUpperCase())) errors.parent = 'Could not find issue by id or key.';
    const labelError = invalidLabel(input.labels ?? []);
    if (labelError) errors.labels = labelError;
    if (Object.keys(errors).length || !project || !issueType) throw new TrackerSimError(400, [], errors);
    const now = jiraTime();
    const issue: SimIssue = {
      id: String(this.nextIssueId++),
      key: `${project.key}-${project.nextIssueNumber++}`,
      projectKey: project.key,
      summary: input.summary,
      description: typeof input.description === 'string' ? markdownToAdf(input.description) : input.description ?? null,
      labels: [...new Set(input.labels ?? [])],
      issueType,
      status: 'To Do',
      parentKey: input.parentKey?.toUpperCase(),
      created: now,
      updated: now,
      histories: [],
      comments: [],
      properties: new Map(),
      links: [],
      creator: actor,
    };
    this.issues.set(issue.key, issue);
    this.emit({ type: 'issue_created', issue, user: actor, changelogId: String(this.nextHistoryId++) });
    return issue;
  }

  /** Applies Jira `update.labels` operations; records one changelog entry when anything changed. */
  updateLabels(key: string, operations: Array<{ add?: string; remove?: string; set?: string[] }>, actor: JiraUser = DEFAULT_HUMAN): SimIssue {
    const issue = this.issue(key);
    let labels = [...issue.labels];
    for (const operation of operations) {
      if (operation.set) labels = [...operation.set];
      if (operation.add !== undefined && !labels.includes(operation.add)) labels.push(operation.add);
      if (operation.remove !== undefined) labels = labels.filter((label) => label !== operation.remove);
    }
    const labelError = invalidLabel(labels);
    if (labelError) throw new TrackerSimError(400, [], { labels: labelError });
    if (labels.join(' ') === issue.labels.join(' ')) return issue;
    const before = issue.labels.join(' ');
    issue.labels = labels;
    this.recordChange(issue, actor, [{ field: 'labels', fieldtype: 'jira', from: null, fromString: before, to: null, toString: labels.join(' ') }], 'issue_updated');
    return issue;
  }

  /** Edits summary and description (what a person does in the UI); one changelog entry. */
  editFields(key: string, fields: { summary?: string; description?: AdfDocument | string | null }, actor: JiraUser = DEFAULT_HUMAN): SimIssue {
    const issue = this.issue(key);
    const items: JiraChangelogHistory['items'] = [];
    if (fields.summary !== undefined && fields.summary !== issue.summary) {
      if (!fields.summary.trim()) throw new TrackerSimError(400, [], { summary: 'You must specify a summary of the issue.' });
      items.push({ field: 'summary', fieldtype: 'jira', from: null, fromString: issue.summary, to: null, toString: fields.summary });
      issue.summary = fields.summary;
    }
    if (fields.description !== undefined) {
      const next = typeof fields.description === 'string' ? markdownToAdf(fields.description) : fields.description;
      const before = issue.description ? adfToMarkdown(issue.description) : '';
      const after = next ? adfToMarkdown(next) : '';
      if (before !== after) {
        items.push({ field: 'description', fieldtype: 'jira', from: null, fromString: before, to: null, toString: after });
        issue.description = next;
      }
    }
    if (items.length) this.recordChange(issue, actor, items, 'issue_updated');
    return issue;
  }

  transitionsFor(key: string): typeof TRANSITIONS {
    const issue = this.issue(key);
    return TRANSITIONS.filter((transition) => transition.to !== issue.status);
  }

  transition(key: string, transitionId: string, actor: JiraUser = DEFAULT_HUMAN): SimIssue {
    const issue = this.issue(key);
    const transition = this.transitionsFor(key).find((t) => t.id === String(transitionId));
    if (!transition) throw new TrackerSimError(400, [`Transition id '${transitionId}' is not valid for this issue.`]);
    const from = statusByName(issue.status);
    const to = statusByName(transition.to);
    issue.status = transition.to;
    this.recordChange(issue, actor, [{ field: 'status', fieldtype: 'jira', from: from.id, fromString: from.name, to: to.id, toString: to.name }], 'issue_generic');
    return issue;
  }

  addComment(key: string, body: AdfDocument | string, actor: JiraUser = DEFAULT_HUMAN, properties: Array<{ key: string; value: unknown }> = []): SimComment {
    const issue = this.issue(key);
    const adf = typeof body === 'string' ? markdownToAdf(body) : body;
    if (!adf || adf.type !== 'doc' || !Array.isArray(adf.content)) throw new TrackerSimError(400, [], { comment: 'Comment body is not valid!' });
    if (adfToMarkdown(adf).length > MAX_COMMENT_CHARS) {
      throw new TrackerSimError(400, [], { comment: 'The entered text is too long. It exceeds the allowed limit of 32,767 characters.' });
    }
    const now = jiraTime();
    const comment: SimComment = {
      id: String(this.nextCommentId++),
      body: adf,
      author: actor,
      created: now,
      updated: now,
      properties: new Map(properties.map((p) => [p.key, p.value])),
    };
    issue.comments.push(comment);
    issue.updated = now;
    this.emit({ type: 'comment_created', issue, user: actor, comment });
    return comment;
  }

  linkIssues(typeName: string, outwardKey: string, inwardKey: string): void {
    const type = LINK_TYPES.find((t) => t.name.toLowerCase() === typeName.toLowerCase());
    if (!type) throw new TrackerSimError(404, [`No issue link type with name '${typeName}' found.`]);
    const outward = this.issue(outwardKey);
    const inward = this.issue(inwardKey);
    const link = { id: String(this.nextLinkId++), type: type.name, outwardKey: outward.key, inwardKey: inward.key };
    outward.links.push(link);
    inward.links.push(link);
  }

  setProperty(target: Map<string, unknown>, propertyKey: string, value: unknown): 'created' | 'updated' {
    if (propertyKey.length > 255) throw new TrackerSimError(400, ['The property key cannot be longer than 255 characters.']);
    if (value === undefined) throw new TrackerSimError(400, ['The property value must be valid JSON.']);
    if (Buffer.byteLength(JSON.stringify(value)) > MAX_PROPERTY_BYTES) {
      throw new TrackerSimError(400, ['The property value cannot be longer than 32768 bytes.']);
    }
    const existed = target.has(propertyKey);
    target.set(propertyKey, structuredClone(value));
    return existed ? 'updated' : 'created';
  }

  private recordChange(issue: SimIssue, actor: JiraUser, items: JiraChangelogHistory['items'], eventTypeName: 'issue_updated' | 'issue_generic'): void {
    const now = jiraTime();
    const history: JiraChangelogHistory = { id: String(this.nextHistoryId++), created: now, author: actor, items };
    issue.histories.push(history);
    issue.updated = now;
    this.emit({ type: 'issue_updated', issue, user: actor, history, eventTypeName });
  }

  snapshot(): TrackerSnapshot {
    return structuredClone({
      version: 1,
      counters: { issue: this.nextIssueId, history: this.nextHistoryId, comment: this.nextCommentId, link: this.nextLinkId, project: this.nextProjectId },
      users: [...this.users.values()],
      projects: [...this.projects.values()].map((project) => ({ ...project, properties: [...project.properties] })),
      issues: [...this.issues.values()].map((issue) => ({
        ...issue,
        properties: [...issue.properties],
        comments: issue.comments.map((comment) => ({ ...comment, properties: [...comment.properties] })),
      })),
    });
  }

  /** Replaces everything with a snapshot (before the simulator serves anyone: no events fire). */
  restore(snapshot: TrackerSnapshot): void {
    if (snapshot.version !== 1) throw new Error(`tracker simulator state version ${String(snapshot.version)} is not supported`);
    const copy = structuredClone(snapshot);
    this.nextIssueId = copy.counters.issue;
    this.nextHistoryId = copy.counters.history;
    this.nextCommentId = copy.counters.comment;
    this.nextLinkId = copy.counters.link;
    this.nextProjectId = copy.counters.project;
    this.users.clear();
    for (const user of copy.users) this.users.set(user.accountId, user);
    this.projects.clear();
    for (const project of copy.projects) this.projects.set(project.key, { ...project, properties: new Map(project.properties) });
    this.issues.clear();
    for (const issue of copy.issues) {
      this.issues.set(issue.key, {
        ...issue,
        properties: new Map(issue.properties),
        comments: issue.comments.map((comment) => ({ ...comment, properties: new Map(comment.properties) })),
      });
    }
  }

  // Wire views.

  issueJson(issue: SimIssue, options: { fields?: string[]; changelog?: boolean } = {}): JiraIssue {
    const status = statusByName(issue.status);
    const project = this.project(issue.projectKey);
    const parent = issue.parentKey ? this.issues.get(issue.parentKey) : undefined;
    const all: Record<string, unknown> = {
      summary: issue.summary,
      description: issue.description,
      labels: [...issue.labels],
      issuetype: { id: String(10_000 + ISSUE_TYPES.indexOf(issue.issueType)), name: issue.issueType, subtask: issue.issueType === 'Sub-task' },
      status: { id: status.id, name: status.name, statusCategory: { key: status.category, name: categoryName(status.category) } },
      project: { id: project.id, key: project.key, name: project.name },
      parent: parent ? { id: parent.id, key: parent.key, self: this.issueSelf(parent), fields: { summary: parent.summary } } : undefined,
      created: issue.created,
      updated: issue.updated,
      ...(issue.creator ? { creator: issue.creator } : {}),
      issuelinks: issue.links.map((link) => ({
        id: link.id,
        type: LINK_TYPES.find((t) => t.name === link.type),
        ...(link.outwardKey === issue.key ? { outwardIssue: { key: link.inwardKey } } : { inwardIssue: { key: link.outwardKey } }),
      })),
    };
    // Jira's comment field (a page of comments) only when asked for by name or with *all, as `GET /issue/{key}`
    // does by default; webhooks and searches that name their fields do not carry it.
    if (options.fields?.includes('comment') || options.fields?.includes('*all')) {
      all.comment = {
        comments: issue.comments.map((comment) => this.commentJson(issue, comment, false)),
        self: `${this.issueSelf(issue)}/comment`,
        maxResults: issue.comments.length,
        total: issue.comments.length,
        startAt: 0,
      };
    }
    const wanted = options.fields && !options.fields.includes('*all') && !options.fields.includes('*navigable') ? options.fields : Object.keys(all);
    const fields: Record<string, unknown> = {};
    for (const name of wanted) if (name in all && all[name] !== undefined) fields[name] = all[name];
    const json: JiraIssue = { id: issue.id, key: issue.key, self: this.issueSelf(issue), fields };
    if (options.changelog) {
      const histories = issue.histories.slice(-100).reverse();
      json.changelog = { startAt: 0, maxResults: histories.length, total: issue.histories.length, histories };
    }
    return json;
  }

  commentJson(issue: SimIssue, comment: SimComment, withProperties: boolean): JiraComment {
    const json: JiraComment = {
      id: comment.id,
      self: `${this.issueSelf(issue)}/comment/${comment.id}`,
      author: comment.author,
      updateAuthor: comment.author,
      body: comment.body,
      created: comment.created,
      updated: comment.updated,
    };
    if (withProperties) json.properties = [...comment.properties].map(([key, value]) => ({ key, value }));
    return json;
  }

  issueSelf(issue: SimIssue): string {
    return `${this.baseUrl()}/rest/api/3/issue/${issue.id}`;
  }
}

export function statusByName(name: string): (typeof STATUSES)[number] {
  return STATUSES.find((status) => status.name === name) ?? { id: '10000', name, category: 'new' };
}

function categoryName(key: string): string {
  return key === 'new' ? 'To Do' : key === 'done' ? 'Done' : 'In Progress';
}

function invalidLabel(labels: string[]): string | undefined {
  const bad = labels.find((label) => /\s/.test(label) || label.length === 0 || label.length > 255);
  return bad === undefined ? undefined : `The label '${bad}' contains spaces which is invalid.`;
}
