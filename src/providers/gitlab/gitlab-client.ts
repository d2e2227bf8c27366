/**
 * GitLab REST v4 client for repositories listed in the repository registry file: merge requests, notes and
 * discussion threads (with the same hidden idempotency marker as GitHub comments), pipelines and branches. Same retry rules as the tracker
 * client: reads retried briefly, writes surfaced as typed errors for the effect journal to reconcile.
 */
import { connectionCredential, RegistryRepository } from '../../config/repository-registry';
import { JsonHttpClient, LatencyHook } from '../http/json-http-client';
import { NotFoundProviderError } from '../provider-errors';
import { sameLogin, serviceIdentityUnknown } from '../own-writes';
import type { RetryPolicy } from '../retry-policy';
import { idempotencyKeyOf, withIdempotencyMarker } from '../scmhost/idempotency-marker';

export interface GitLabClientOptions {
  /** The REST v4 root, e.g. `https://gitlab.example.com/api/v4` (see apiV4BaseUrl). */
  apiBaseUrl: string;
  token: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  onLatency?: LatencyHook;
  fetch?: typeof fetch;
}

/** Options for the connection of a registry entry, with the credential read from the env var it names. */
export function gitLabOptionsForRepository(repository: RegistryRepository, env: NodeJS.ProcessEnv = process.env): GitLabClientOptions {
  return { apiBaseUrl: repository.connection.apiBaseUrl, token: connectionCredential(repository.connection, env) };
}

export interface MergeRequest {
  id: number;
  iid: number;
  title: string;
  description: string;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  draft: boolean;
  sourceBranch: string;
  targetBranch: string;
  sha: string;
  webUrl: string;
  /** The project holding the source branch: a fork's id for a merge request from a fork. */
  sourceProjectId?: number;
  mergeStatus?: string;
  author?: string;
  createdAt: string;
  updatedAt: string;
  /** Set once merged: the commit the merge wrote on the target branch. */
  mergeCommitSha?: string;
  /** The commits a diff thread's position names; only a single merge request's read carries them. */
  diffRefs?: DiffRefs;
}

/** GitLab's `diff_refs`: the merge base, the target head the diff started from, and the source head. */
export interface DiffRefs { baseSha: string; startSha: string; headSha: string }

/** A line of a merge request's diff for "Start a thread": the new file's line (an added line). */
export interface DiffPosition { diffRefs: DiffRefs; path: string; oldPath?: string; newLine: number }

export interface Note {
  id: number;
  body: string;
  author?: string;
  /** The author's numeric user id, which a rename keeps (allowed actors' `gitlab-id:`). */
  authorId?: number;
  system: boolean;
  createdAt: string;
  updatedAt: string;
  idempotencyKey?: string;
}

/** A note as the Discussions API shows it: its type says whether it is in a thread, a diff note has a place. */
export interface DiscussionNote extends Note {
  /** null: a plain comment; DiscussionNote: in a thread; DiffNote: in a thread on a line of the diff. */
  type: 'DiscussionNote' | 'DiffNote' | null;
  resolvable: boolean;
  resolved: boolean;
  /** A diff note's file and line (the new line, or the old one for a removed line). */
  position?: { path: string; line?: number };
}

/** A merge request discussion: a plain comment is one of its own (`individualNote`), a thread has its replies. */
export interface Discussion {
  id: string;
  individualNote: boolean;
  notes: DiscussionNote[];
  /** Some note of it can be resolved (threads on a merge request). */
  resolvable: boolean;
  /** Every resolvable note is resolved. */
  resolved: boolean;
}

export interface Pipeline {
  id: number;
  iid?: number;
  sha: string;
  ref: string;
  /** created, waiting_for_resource, preparing, pending, running, success, failed, canceled, skipped, manual, scheduled */
  status: string;
  webUrl: string;
  createdAt: string;
  updatedAt: string;
}

export function createGitLabClient(options: GitLabClientOptions): GitLabClient {
  return new GitLabClient(options);
}

export class GitLabClient {
  private readonly http: JsonHttpClient;
  private username: Promise<string> | undefined;

  constructor(options: GitLabClientOptions) {
    this.http = new JsonHttpClient({
      provider: 'gitlab',
      baseUrl: options.apiBaseUrl,
      headers: { 'private-token': options.token },
      timeoutMs: options.timeoutMs,
      retry: options.retry,
      onLatency: options.onLatency,
      secrets: [options.token],
      fetch: options.fetch,
    });
  }

  private project(namespace: string): string {
    return `/projects/${encodeURIComponent(namespace)}`;
  }

  async getProject(namespace: string): Promise<{ id: number; pathWithNamespace: string; defaultBranch: string; webUrl: string }> {
    const { body } = await this.http.request<{ id: number; path_with_namespace: string; default_branch: string; web_url: string }>({
      operation: 'getProject', method: 'GET', path: this.project(namespace),
    });
    return { id: body.id, pathWithNamespace: body.path_with_namespace, defaultBranch: body.default_branch, webUrl: body.web_url };
  }

  /** The username the token acts as (`GET /user`), read once per client; a failed read is not kept. */
  currentUsername(): Promise<string> {
    this.username ??= this.http.request<{ username: string }>({ operation: 'getCurrentUser', method: 'GET', path: '/user' })
      .then(({ body }) => body.username)
      .catch((error: unknown) => { this.username = undefined; throw error; });
    return this.username;
  }

  /**
   * The username the service writes as (the token's), for telling its own notes from others'. It fails as a
   * retryable error naming the lookup, as nothing can be adopted without it.
   */
  async serviceUsername(): Promise<string> {
    try {
      return await this.currentUsername();
    } catch (error) {
      throw serviceIdentityUnknown('gitlab', { method: 'GET', path: '/user' }, error);
    }
  }

  /**
   * The caller's own fork of a project: the one in the caller's user namespace. GitLab's `owned` list also holds
   * forks in groups the caller owns, where other people may push; those are never the service's.
   */
  async findOwnFork(namespace: string): Promise<GitLabProject | undefined> {
    const username = await this.currentUsername();
    const { body } = await this.http.request<GitLabProjectJson[]>({ operation: 'findOwnFork', method: 'GET', path: `${this.project(namespace)}/forks`, query: { owned: 'true', per_page: 100 } });
    return body.filter((project) => inUserNamespace(project, username)).map(toProject)[0];
  }

  /** Forks a project into the caller's user namespace; GitLab answers 409 when that namespace has the project already. */
  async createFork(namespace: string): Promise<GitLabProject> {
    const username = await this.currentUsername();
    const { body } = await this.http.request<GitLabProjectJson>({ operation: 'createFork', method: 'POST', path: `${this.project(namespace)}/fork`, body: { namespace_path: username } });
    return toProject(body);
  }

  async getBranch(namespace: string, branch: string): Promise<{ name: string; sha: string } | undefined> {
    try {
      const { body } = await this.http.request<{ name: string; commit: { id: string } }>({
        operation: 'getBranch', method: 'GET', path: `${this.project(namespace)}/repository/branches/${encodeURIComponent(branch)}`,
      });
      return { name: body.name, sha: body.commit.id };
    } catch (error) {
      if (error instanceof NotFoundProviderError) return undefined;
      throw error;
    }
  }

  /** Creates a branch from a branch name or commit SHA. GitLab answers an existing branch with 400 (a terminal error). */
  async createBranch(namespace: string, branch: string, ref: string): Promise<{ name: string; sha: string }> {
    const { body } = await this.http.request<{ name: string; commit: { id: string } }>({
      operation: 'createBranch', method: 'POST', path: `${this.project(namespace)}/repository/branches`, query: { branch, ref },
    });
    return { name: body.name, sha: body.commit.id };
  }

  /** `namespace` holds the source branch; from a fork, `targetProjectId` is the upstream the merge request is for. */
  async createMergeRequest(namespace: string, input: { title: string; description: string; sourceBranch: string; targetBranch: string; draft?: boolean; targetProjectId?: number }): Promise<MergeRequest> {
    const { body } = await this.http.request<GitLabMergeRequest>({
      operation: 'createMergeRequest',
      method: 'POST',
      path: `${this.project(namespace)}/merge_requests`,
      body: {
        title: input.draft ? `Draft: ${input.title}` : input.title,
        description: input.description,
        source_branch: input.sourceBranch,
        target_branch: input.targetBranch,
        remove_source_branch: true,
        ...(input.targetProjectId !== undefined ? { target_project_id: input.targetProjectId } : {}),
      },
    });
    return toMergeRequest(body);
  }

  async getMergeRequest(namespace: string, iid: number): Promise<MergeRequest> {
    const { body } = await this.http.request<GitLabMergeRequest>({ operation: 'getMergeRequest', method: 'GET', path: `${this.project(namespace)}/merge_requests/${iid}` });
    return toMergeRequest(body);
  }

  /** The merge request from `sourceBranch` (open first, then newest), or undefined. */
  async findMergeRequestBySourceBranch(namespace: string, sourceBranch: string): Promise<MergeRequest | undefined> {
    const { body } = await this.http.request<GitLabMergeRequest[]>({
      operation: 'findMergeRequestBySourceBranch', method: 'GET', path: `${this.project(namespace)}/merge_requests`,
      query: { source_branch: sourceBranch, state: 'all', per_page: 100 },
    });
    return body.map(toMergeRequest).sort((a, b) => Number(b.state === 'opened') - Number(a.state === 'opened') || b.iid - a.iid)[0];
  }

  async listOpenMergeRequestsByBranchPrefix(namespace: string, prefix: string): Promise<MergeRequest[]> {
    const all = await this.paginate<GitLabMergeRequest>('listOpenMergeRequestsByBranchPrefix', `${this.project(namespace)}/merge_requests`, { state: 'opened' });
    return all.map(toMergeRequest).filter((mr) => mr.sourceBranch.startsWith(prefix));
  }

  /**
   * Merge requests of every state whose source branch starts with `prefix` and that changed at or after `since`
   * (GitLab's `updated_after`; a note, a merge or a close changes a merge request, a pipeline does not).
   */
  async listMergeRequestsUpdatedSince(namespace: string, prefix: string, since: Date): Promise<MergeRequest[]> {
    const all = await this.paginate<GitLabMergeRequest>('listMergeRequestsUpdatedSince', `${this.project(namespace)}/merge_requests`, {
      state: 'all', updated_after: since.toISOString(), order_by: 'updated_at', sort: 'asc',
    });
    return all.map(toMergeRequest).filter((mr) => mr.sourceBranch.startsWith(prefix));
  }

  /** Who approved a merge request. GitLab says neither when nor at which head: the poller names an approval by the head it reads. */
  async listMergeRequestApprovers(namespace: string, iid: number): Promise<Array<{ username: string; id: number }>> {
    const { body } = await this.http.request<{ approved_by?: Array<{ user: { username: string; id: number } }> }>({
      operation: 'listMergeRequestApprovers', method: 'GET', path: `${this.project(namespace)}/merge_requests/${iid}/approvals`,
    });
    return (body.approved_by ?? []).map(({ user }) => ({ username: user.username, id: user.id }));
  }

  async updateMergeRequest(namespace: string, iid: number, changes: { title?: string; description?: string; stateEvent?: 'close' | 'reopen' }): Promise<MergeRequest> {
    const { body } = await this.http.request<GitLabMergeRequest>({
      operation: 'updateMergeRequest', method: 'PUT', path: `${this.project(namespace)}/merge_requests/${iid}`,
      body: { ...(changes.title !== undefined ? { title: changes.title } : {}), ...(changes.description !== undefined ? { description: changes.description } : {}), ...(changes.stateEvent ? { state_event: changes.stateEvent } : {}) },
    });
    return toMergeRequest(body);
  }

  async listMergeRequestNotes(namespace: string, iid: number): Promise<Note[]> {
    const all = await this.paginate<GitLabNote>('listMergeRequestNotes', `${this.project(namespace)}/merge_requests/${iid}/notes`, { sort: 'asc', order_by: 'created_at' });
    return all.map(toNote);
  }

  async createMergeRequestNote(namespace: string, iid: number, body: string, options: { idempotencyKey?: string } = {}): Promise<Note> {
    const text = options.idempotencyKey ? withIdempotencyMarker(body, options.idempotencyKey) : body;
    const { body: note } = await this.http.request<GitLabNote>({
      operation: 'createMergeRequestNote', method: 'POST', path: `${this.project(namespace)}/merge_requests/${iid}/notes`, body: { body: text },
    });
    return toNote(note);
  }

  /**
   * The service's own note carrying the key. Anyone who may comment can copy a marker, so a note by anyone else is
   * not the service's write, whatever it carries (src/providers/own-writes.ts).
   */
  async findNoteByIdempotencyKey(namespace: string, iid: number, idempotencyKey: string): Promise<Note | undefined> {
    const self = await this.serviceUsername();
    return (await this.listMergeRequestNotes(namespace, iid)).find((note) => writtenBy(note, self, idempotencyKey));
  }

  /** The discussions of a merge request, oldest first (plain comments among them, as individual notes). */
  async listMergeRequestDiscussions(namespace: string, iid: number): Promise<Discussion[]> {
    return (await this.paginate<GitLabDiscussion>('listMergeRequestDiscussions', `${this.project(namespace)}/merge_requests/${iid}/discussions`, {})).map(toDiscussion);
  }

  async getMergeRequestDiscussion(namespace: string, iid: number, discussionId: string): Promise<Discussion> {
    const { body } = await this.http.request<GitLabDiscussion>({
      operation: 'getMergeRequestDiscussion', method: 'GET', path: this.discussionPath(namespace, iid, discussionId),
    });
    return toDiscussion(body);
  }

  /** A reply in a discussion (a plain comment replied to becomes a thread, as in GitLab's web interface). */
  async createMergeRequestDiscussionNote(namespace: string, iid: number, discussionId: string, body: string, options: { idempotencyKey?: string } = {}): Promise<DiscussionNote> {
    const text = options.idempotencyKey ? withIdempotencyMarker(body, options.idempotencyKey) : body;
    const { body: note } = await this.http.request<GitLabNote>({
      operation: 'createMergeRequestDiscussionNote', method: 'POST', path: `${this.discussionPath(namespace, iid, discussionId)}/notes`, body: { body: text },
    });
    return toDiscussionNote(note);
  }

  /** Resolves (or reopens) a thread. GitLab answers 403 when the user may not, or the discussion is not resolvable. */
  async resolveMergeRequestDiscussion(namespace: string, iid: number, discussionId: string, resolved = true): Promise<Discussion> {
    const { body } = await this.http.request<GitLabDiscussion>({
      operation: 'resolveMergeRequestDiscussion', method: 'PUT', path: this.discussionPath(namespace, iid, discussionId), query: { resolved },
    });
    return toDiscussion(body);
  }

  /**
   * "Start a thread" on a merge request; with `position`, on that line of the diff (a DiffNote). GitLab answers 400
   * when the position is no line of the diff (`line_code` "can't be blank").
   */
  async createMergeRequestDiscussion(namespace: string, iid: number, body: string, options: { position?: DiffPosition; idempotencyKey?: string } = {}): Promise<Discussion> {
    const text = options.idempotencyKey ? withIdempotencyMarker(body, options.idempotencyKey) : body;
    const at = options.position;
    const position = at && {
      position_type: 'text', base_sha: at.diffRefs.baseSha, start_sha: at.diffRefs.startSha, head_sha: at.diffRefs.headSha,
      new_path: at.path, old_path: at.oldPath ?? at.path, new_line: at.newLine,
    };
    const { body: discussion } = await this.http.request<GitLabDiscussion>({
      operation: 'createMergeRequestDiscussion', method: 'POST', path: `${this.project(namespace)}/merge_requests/${iid}/discussions`,
      body: { body: text, ...(position ? { position } : {}) },
    });
    return toDiscussion(discussion);
  }

  private discussionPath(namespace: string, iid: number, discussionId: string): string {
    return `${this.project(namespace)}/merge_requests/${iid}/discussions/${encodeURIComponent(discussionId)}`;
  }

  /** Pipelines of a merge request, newest first. */
  async listMergeRequestPipelines(namespace: string, iid: number): Promise<Pipeline[]> {
    const all = await this.paginate<GitLabPipeline>('listMergeRequestPipelines', `${this.project(namespace)}/merge_requests/${iid}/pipelines`, {});
    return all.map(toPipeline);
  }

  /** Pipelines for a commit, newest first. */
  async listPipelinesForSha(namespace: string, sha: string): Promise<Pipeline[]> {
    const all = await this.paginate<GitLabPipeline>('listPipelinesForSha', `${this.project(namespace)}/pipelines`, { sha, order_by: 'id', sort: 'desc' });
    return all.map(toPipeline);
  }

  private async paginate<T>(operation: string, path: string, query: Record<string, string | number>): Promise<T[]> {
    const all: T[] = [];
    for (let page = 1; ; page++) {
      const { body, headers } = await this.http.request<T[]>({ operation, method: 'GET', path, query: { ...query, per_page: 100, page } });
      all.push(...body);
      const next = headers.get('x-next-page');
      if (next ? !next.trim() : body.length < 100) return all;
    }
  }
}

interface GitLabMergeRequest {
  id: number; iid: number; title: string; description: string | null; state: MergeRequest['state']; draft?: boolean; work_in_progress?: boolean;
  source_branch: string; target_branch: string; sha: string; web_url: string; merge_status?: string; detailed_merge_status?: string; source_project_id?: number;
  author?: { username: string }; created_at: string; updated_at: string; merge_commit_sha?: string | null;
  diff_refs?: { base_sha: string | null; start_sha: string | null; head_sha: string | null } | null;
}
export interface GitLabProject { id: number; pathWithNamespace: string; defaultBranch: string; webUrl: string; forkedFromId?: number }
interface GitLabProjectJson {
  id: number; path_with_namespace: string; default_branch: string; web_url: string; forked_from_project?: { id: number } | null;
  namespace?: { kind?: string; full_path?: string } | null;
}

/**
 * Whether a project lies in the user namespace of `username`. Users and top-level groups share one space of paths on
 * GitLab, so the path decides; the namespace GitLab reports must agree when it is given. Compared case-insensitively,
 * as GitLab compares paths.
 */
export function inUserNamespace(project: Pick<GitLabProjectJson, 'path_with_namespace' | 'namespace'>, username: string): boolean {
  const own = username.toLowerCase();
  const path = project.path_with_namespace.split('/').slice(0, -1).join('/').toLowerCase();
  if (path !== own) return false;
  const reported = project.namespace;
  return !reported || (reported.kind === 'user' && reported.full_path?.toLowerCase() === own);
}
function toProject(body: GitLabProjectJson): GitLabProject {
  return { id: body.id, pathWithNamespace: body.path_with_namespace, defaultBranch: body.default_branch, webUrl: body.web_url, ...(body.forked_from_project ? { forkedFromId: body.forked_from_project.id } : {}) };
}
interface GitLabNote {
  id: number; body: string; author?: { username: string; id?: number }; system: boolean; created_at: string; updated_at: string;
  type?: 'DiscussionNote' | 'DiffNote' | null; resolvable?: boolean; resolved?: boolean;
  position?: { new_path?: string | null; old_path?: string | null; new_line?: number | null; old_line?: number | null } | null;
}
interface GitLabDiscussion { id: string; individual_note: boolean; notes: GitLabNote[] }
interface GitLabPipeline { id: number; iid?: number; sha: string; ref: string; status: string; web_url: string; created_at: string; updated_at: string }

function toMergeRequest(mr: GitLabMergeRequest): MergeRequest {
  return {
    id: mr.id,
    iid: mr.iid,
    title: mr.title,
    description: mr.description ?? '',
    state: mr.state,
    draft: Boolean(mr.draft ?? mr.work_in_progress),
    sourceBranch: mr.source_branch,
    targetBranch: mr.target_branch,
    sha: mr.sha,
    webUrl: mr.web_url,
    ...(mr.source_project_id !== undefined ? { sourceProjectId: mr.source_project_id } : {}),
    mergeStatus: mr.detailed_merge_status ?? mr.merge_status,
    author: mr.author?.username,
    createdAt: mr.created_at,
    updatedAt: mr.updated_at,
    ...(mr.merge_commit_sha ? { mergeCommitSha: mr.merge_commit_sha } : {}),
    ...(mr.diff_refs?.base_sha && mr.diff_refs.start_sha && mr.diff_refs.head_sha
      ? { diffRefs: { baseSha: mr.diff_refs.base_sha, startSha: mr.diff_refs.start_sha, headSha: mr.diff_refs.head_sha } }
      : {}),
  };
}

/** The note is the write of `username` marked with `idempotencyKey`: both, as a marker alone proves nothing. */
export function writtenBy(note: Pick<Note, 'author' | 'idempotencyKey'>, username: string, idempotencyKey: string): boolean {
  return note.idempotencyKey === idempotencyKey && sameLogin(note.author, username);
}

function toNote(note: GitLabNote): Note {
  return {
    id: note.id,
    body: note.body,
    author: note.author?.username,
    ...(note.author?.id !== undefined ? { authorId: note.author.id } : {}),
    system: note.system,
    createdAt: note.created_at,
    updatedAt: note.updated_at,
    idempotencyKey: idempotencyKeyOf(note.body),
  };
}

function toDiscussionNote(note: GitLabNote): DiscussionNote {
  const path = note.position?.new_path ?? note.position?.old_path ?? undefined;
  const line = note.position?.new_line ?? note.position?.old_line ?? undefined;
  const resolvable = note.resolvable ?? false;
  return {
    ...toNote(note),
    type: note.type ?? null,
    resolvable,
    resolved: resolvable && note.resolved === true,
    ...(path ? { position: { path, ...(line ? { line } : {}) } } : {}),
  };
}

function toDiscussion(discussion: GitLabDiscussion): Discussion {
  const notes = discussion.notes.map(toDiscussionNote);
  const resolvable = notes.filter((note) => note.resolvable);
  return { id: discussion.id, individualNote: discussion.individual_note, notes, resolvable: resolvable.length > 0, resolved: resolvable.length > 0 && resolvable.every((note) => note.resolved) };
}

function toPipeline(pipeline: GitLabPipeline): Pipeline {
  return { id: pipeline.id, iid: pipeline.iid, sha: pipeline.sha, ref: pipeline.ref, status: pipeline.status, webUrl: pipeline.web_url, createdAt: pipeline.created_at, updatedAt: pipeline.updated_at };
}
