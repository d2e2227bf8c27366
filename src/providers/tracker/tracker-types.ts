/**
 * What the tracker client returns: Jira's payloads reduced to the fields the service uses, with rich text
 * converted to Markdown (the raw ADF is kept beside it for anything the conversion does not cover).
 */
import type { AdfDocument } from './adf/adf-types';

export interface TrackerUser {
  accountId: string;
  displayName?: string;
  emailAddress?: string;
}

/** A tracker group a user belongs to; `name` is what `group:<name>` entries of the allowed actors name. */
export interface TrackerGroup {
  name: string;
  groupId?: string;
}

export interface TrackerChangelogItem {
  field: string;
  fromString: string | null;
  toString: string | null;
}

export interface TrackerChangelogEntry {
  /** Jira's changelog id: monotonic per site, the revision the observation ledger orders label changes by. */
  id: string;
  created: string;
  author?: TrackerUser;
  items: TrackerChangelogItem[];
}

export interface TrackerIssue {
  id: string;
  key: string;
  projectKey: string;
  summary: string;
  /** The description as Markdown ('' when empty). */
  description: string;
  descriptionAdf?: AdfDocument;
  labels: string[];
  issueType: string;
  status: string;
  /** Jira's status category key: `new`, `indeterminate` or `done`. */
  statusCategory?: string;
  parentKey?: string;
  created: string;
  updated: string;
  /** Present when the issue was read with its changelog; oldest first. */
  changelog?: TrackerChangelogEntry[];
  /** The issue's links, when they were read (`getIssue` reads them; searches do not). */
  links?: TrackerIssueLink[];
  /** Who created the issue, when it was read (`getIssue` reads it): `service:yolo` at the start counts only from an allowed creator. */
  creator?: TrackerUser;
}

/**
 * One link of an issue, seen from that issue: `outward` when the issue is the link's outward side (as
 * `CreateIssueInput.links` with the default direction makes the created issue), `inward` otherwise.
 */
export interface TrackerIssueLink {
  type: string;
  issueKey: string;
  direction: 'outward' | 'inward';
}

export interface TrackerComment {
  id: string;
  /** The body as Markdown. */
  body: string;
  bodyAdf?: AdfDocument;
  author?: TrackerUser;
  created: string;
  updated: string;
  /** The idempotency key stored in the comment's `service.idempotency` property, when the service wrote it. */
  idempotencyKey?: string;
}

export interface TrackerTransition {
  id: string;
  name: string;
  to: { id: string; name: string; statusCategory?: string };
}

export interface CreateIssueInput {
  projectKey: string;
  issueType: string;
  summary: string;
  /** Markdown; converted to ADF. */
  description?: string;
  labels?: string[];
  parentKey?: string;
  /** Issue links created right after the issue, e.g. a bug-fix task "Relates" to its bug. */
  links?: Array<{ type: string; issueKey: string; direction?: 'outward' | 'inward' }>;
}

export interface CreatedIssue {
  id: string;
  key: string;
  self: string;
}

export interface SearchPage {
  issues: TrackerIssue[];
  /** Pass back to get the next page; undefined on the last page. */
  nextPageToken?: string;
}

// Wire shapes (Jira Cloud REST v3), shared with the tracker simulator.

export interface JiraIssueFields {
  summary?: string;
  description?: AdfDocument | null;
  labels?: string[];
  issuetype?: { id?: string; name: string; subtask?: boolean };
  status?: { id?: string; name: string; statusCategory?: { key: string; name?: string } };
  project?: { id?: string; key: string; name?: string };
  parent?: { id: string; key: string; fields?: { summary?: string } } | null;
  issuelinks?: Array<{ id?: string; type?: { name?: string }; outwardIssue?: { key: string }; inwardIssue?: { key: string } }>;
  /** Who created the issue (Jira Cloud: the account; Server/DC: also `name`). */
  creator?: JiraUser | null;
  created?: string;
  updated?: string;
  [field: string]: unknown;
}

export interface JiraIssue {
  id: string;
  key: string;
  self: string;
  fields: JiraIssueFields;
  changelog?: { startAt: number; maxResults: number; total: number; histories: JiraChangelogHistory[] };
  properties?: Record<string, unknown>;
}

export interface JiraChangelogHistory {
  id: string;
  created: string;
  author?: JiraUser;
  items: Array<{ field: string; fieldtype?: string; from: string | null; fromString: string | null; to: string | null; toString: string | null }>;
}

export interface JiraUser {
  accountId: string;
  displayName?: string;
  emailAddress?: string;
  active?: boolean;
  self?: string;
}

/** Jira's GroupName, as GET /user/groups answers it (groupId is null for some legacy groups). */
export interface JiraGroupName {
  name: string;
  groupId?: string | null;
  self?: string;
}

export interface JiraComment {
  id: string;
  self?: string;
  body: AdfDocument | string;
  author?: JiraUser;
  updateAuthor?: JiraUser;
  created: string;
  updated: string;
  properties?: Array<{ key: string; value: unknown }>;
}
