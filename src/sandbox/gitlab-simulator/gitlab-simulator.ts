/**
 * A GitLab look-alike (REST v4) for the GitLab client's tests and the sandbox: projects with branches, merge
 * requests, notes, discussions (threads, diff notes, replies, resolving; gitlab-discussions.ts) and pipelines, in
 * memory, under an optional self-managed path prefix, with GitLab's error bodies, PRIVATE-TOKEN checks and the shared
 * fault injector, and GitLab's webhooks (merge request, note, pipeline) with the `X-Gitlab-Token` secret on every
 * change. A project can be forked into the caller's namespace or a group's (its git repository starts as a copy of the
 * parent's), and a merge request opened on a fork with `target_project_id` lands in the upstream project, as on
 * GitLab. Groups have owners: `owned=true` lists the projects in the caller's own namespace and in the groups the
 * caller owns, as GitLab's owned projects do.
 * Merging writes a real merge (or squash) commit in the target project's git repository (merge-request-git.ts).
 * A merge request's pipelines run in its source project (the fork's, as GitLab runs them by default), show on the
 * merge request and send their webhooks from there. Response shapes are in gitlab-json.ts. A merge request's web_url
 * is a readable page (merge-request-page.ts), its diff also the API's raw_diffs, both read from git.
 */
import express, { NextFunction, Request, Response } from 'express';
import { createHash, randomUUID } from 'node:crypto';
import { FaultInjector, createFaultInjector } from '../fault-injector';
import { closeServer, listen } from '../listen';
import { createWebhookSender, type WebhookSender, type WebhookTarget } from '../webhook-sender';
import { createGitSmartHttp, loginOfToken, type GitSmartHttp, type TokenLogins } from '../scmhost-simulator/git-smart-http';
import { GitLabJson, isDraftTitle, keptMergeability, mergeStatusFields } from './gitlab-json';
import type { MergeCheck } from '../scmhost-simulator/background-merge-check';
import { MergeRequestGit } from './merge-request-git';
import { mergeRequestPages } from './merge-request-page';
import { isLineOfMergeRequestDiff, NO_LINE_CODE } from './diff-positions';
import { restoreGitLab, type GitLabSnapshot } from './gitlab-snapshot';
import { discussionId, discussionsOf, replyShape, resolveRefusal, isResolvable, type SimDiscussion, type SimNote, type SimPosition } from './gitlab-discussions';

export type { SimDiscussion, SimNote, SimPosition } from './gitlab-discussions';

export interface GitLabSimulatorOptions {
  port?: number;
  host?: string;
  /** Self-managed path prefix, e.g. `/gitlab`; the API lives at `<prefix>/api/v4`. */
  pathPrefix?: string;
  /** Accepted tokens and the username each acts as (or a function that says); when unset any token acts as `service-bot`. */
  tokens?: TokenLogins;
  projects?: string[];
  /** The gateway's /api/v1/webhooks/gitlab; `secret` is sent as X-Gitlab-Token. */
  webhook?: WebhookTarget;
  /** Folder of the bare git repositories, kept on close (a temporary one, removed on close, by default). */
  gitRoot?: string;
  /** A snapshot (gitlab-snapshot.ts) to continue from, with the git repositories of `gitRoot`. */
  restore?: GitLabSnapshot;
}

/** A change the simulator announces with a webhook, as GitLab does. */
export type GitLabSimEvent =
  | { kind: 'merge_request'; project: SimProject; mr: SimMergeRequest; action: 'open' | 'update' | 'merge' | 'close' | 'approved'; user: string; changes?: SimChanges }
  | { kind: 'note'; project: SimProject; mr: SimMergeRequest; note: SimNote; user: string }
  | { kind: 'pipeline'; project: SimProject; pipeline: SimPipeline; user: string };

/** What an update changed, per merge request attribute (`labels` by title), as the hook's `changes` shows it. */
export type SimChanges = Record<string, { previous: unknown; current: unknown }>;

/** A project label, created the first time a merge request is given it (as GitLab creates unknown labels). */
export interface SimLabel { id: number; title: string; color: string; createdAt: string }

export interface SimProject {
  id: number; path: string; defaultBranch: string; branches: Map<string, string>; nextIid: number;
  labels?: Map<string, SimLabel>;
  mergeRequests: SimMergeRequest[]; pipelines: SimPipeline[];
  /** The service's user may not resolve threads here (not the author, below Developer): GitLab answers 403. */
  resolveForbidden?: boolean;
  /** For a fork: the project it was forked from. */
  forkedFrom?: SimProject;
}
export interface SimMergeRequest {
  id: number; iid: number; title: string; description: string; state: 'opened' | 'closed' | 'merged'; sourceBranch: string; targetBranch: string; mergeCommitSha?: string;
  author: string; createdAt: string; updatedAt: string; notes: SimNote[];
  /** For a merge request from a fork: the fork holding the source branch (else the project itself). */
  sourceProject?: SimProject;
  /** Set when it was merged with squashing: the squash commit (the merge commit is its merge into the target). */
  squashCommitSha?: string;
  /** The last mergeability check, computed from git (background-merge-check.ts); stale once either branch moved. */
  mergeCheck?: MergeCheck;
  /** Label titles, in the order they were given. */
  labels?: string[];
  /** Set when a person edited the title or description. */
  lastEditedAt?: string; lastEditedBy?: string;
  /** Who approved it, and when (GitLab's approvals, without the rules of its paid tiers). */
  approvals?: Array<{ user: string; at: string }>;
  /** When it was last closed (a reopen clears it), and when and by whom it was merged. */
  closedAt?: string; mergedAt?: string; mergedBy?: string;
}
/** A job of a pipeline (GitLab's build): the hook's `builds`. */
export interface SimJob { id: number; name: string; stage: string; status: string }
export interface SimPipeline { id: number; iid: number; sha: string; ref: string; status: string; createdAt: string; updatedAt: string; jobs?: SimJob[] }

export class GitLabSimError extends Error {
  constructor(readonly status: number, readonly body: Record<string, unknown>) { super(JSON.stringify(body)); }
}

/** A group namespace and the usernames with the Owner role in it. */
export interface SimGroup { id: number; path: string; owners: Set<string> }

export class GitLabState {
  readonly projects = new Map<string, SimProject>();
  readonly groups = new Map<string, SimGroup>();
  private nextId = 100;
  private readonly listeners: Array<(event: GitLabSimEvent) => void> = [];
  id(): number { return this.nextId++; }
  /** The id the next thing will get (a snapshot keeps it). */
  peekNextId(): number { return this.nextId; }
  /** Ids go on from a restored snapshot's counter, never below what was handed out. */
  continueIdsFrom(next: number): void { this.nextId = Math.max(this.nextId, next); }

  onEvent(listener: (event: GitLabSimEvent) => void): void { this.listeners.push(listener); }
  emit(event: GitLabSimEvent): void { for (const listener of this.listeners) listener(event); }

  /** The merge request of a source branch (open first). */
  mergeRequestOf(project: SimProject, sourceBranch: string): SimMergeRequest | undefined {
    return project.mergeRequests.filter((mr) => mr.sourceBranch === sourceBranch).sort((a, b) => Number(b.state === 'opened') - Number(a.state === 'opened') || b.iid - a.iid)[0];
  }

  /**
   * Records a merge request as merged and moves its target branch in the state (GitLab answers 405 when it is not
   * open). The merge button (the REST route, `GitLabSimulator.mergeRequests`) writes the commit in git first and
   * passes it here; called directly, with no commit, it is bookkeeping only and git does not change.
   */
  merge(project: SimProject, mr: SimMergeRequest, user = 'octo-reviewer', commits: { mergeCommitSha?: string; squashCommitSha?: string } = {}): SimMergeRequest {
    if (mr.state !== 'opened') throw new GitLabSimError(405, { message: '405 Method Not Allowed' });
    mr.state = 'merged';
    mr.mergeCommitSha = commits.mergeCommitSha ?? sha(`merge:${mr.id}`);
    if (commits.squashCommitSha) mr.squashCommitSha = commits.squashCommitSha;
    mr.updatedAt = new Date().toISOString();
    mr.mergedAt = mr.updatedAt;
    mr.mergedBy = user;
    project.branches.set(mr.targetBranch, mr.mergeCommitSha);
    this.emit({ kind: 'merge_request', project, mr, action: 'merge', user, changes: { state_id: { previous: STATE_ID.opened, current: STATE_ID.merged } } });
    return mr;
  }

  /**
   * A reviewer approves: GitLab records the approval, writes its system note ("approved this merge request", which
   * touches the merge request and sends no note hook) and sends the merge request hook with action `approved`, from
   * the approver. A second approval by the same person is refused (GitLab answers 401), as is one of a closed one.
   */
  approve(project: SimProject, mr: SimMergeRequest, user: string): SimMergeRequest {
    if (mr.state !== 'opened') throw new GitLabSimError(405, { message: '405 Method Not Allowed' });
    if (mr.approvals?.some((a) => a.user === user)) throw new GitLabSimError(401, { message: '401 Unauthorized' });
    const time = new Date().toISOString();
    (mr.approvals ??= []).push({ user, at: time });
    const id = this.id();
    mr.notes.push({ id, discussionId: discussionId(`${mr.id}:${id}`), type: null, body: 'approved this merge request', author: user, system: true, createdAt: time, updatedAt: time });
    mr.updatedAt = time;
    this.emit({ kind: 'merge_request', project, mr, action: 'approved', user, changes: {} });
    return mr;
  }

  createProject(path: string, defaultBranch = 'main'): SimProject {
    const existing = this.projects.get(path);
    if (existing) return existing;
    const project: SimProject = { id: this.id(), path, defaultBranch, branches: new Map([[defaultBranch, sha(`${path}:${defaultBranch}`)]]), nextIid: 1, mergeRequests: [], pipelines: [] };
    this.projects.set(path, project);
    return project;
  }

  /** The project's label of that title, created on first use with a colour derived from the title. */
  label(project: SimProject, title: string): SimLabel {
    project.labels ??= new Map();
    let label = project.labels.get(title);
    if (!label) {
      label = { id: this.id(), title, color: `#${sha(`label:${title}`).slice(0, 6)}`, createdAt: new Date().toISOString() };
      project.labels.set(title, label);
    }
    return label;
  }

  /** Sets a merge request's labels (creating unknown ones), answering what changed for the hook. */
  setLabels(project: SimProject, mr: SimMergeRequest, titles: string[]): SimChanges {
    const previous = mr.labels ?? [];
    const current = [...new Set(titles.map((t) => t.trim()).filter(Boolean))];
    for (const title of current) this.label(project, title);
    mr.labels = current;
    return previous.join('\n') === current.join('\n') ? {} : { labels: { previous, current } };
  }

  /** A group namespace; its owners own every project in it (GitLab's Owner role, inherited by its projects). */
  createGroup(path: string, owners: string[]): SimGroup {
    const group = { id: this.id(), path, owners: new Set(owners) };
    this.groups.set(path, group);
    return group;
  }

  /** The namespace of a project: a group when one of that path exists, else a user's. */
  namespaceOf(project: SimProject): { path: string; kind: 'user' | 'group'; group?: SimGroup } {
    const path = project.path.split('/').slice(0, -1).join('/');
    const group = this.groups.get(path);
    return group ? { path, kind: 'group', group } : { path, kind: 'user' };
  }

  /** Whether `username` owns `project`: it is in their own namespace or in a group they own. */
  owns(username: string, project: SimProject): boolean {
    const namespace = this.namespaceOf(project);
    return namespace.group ? namespace.group.owners.has(username) : namespace.path === username;
  }

  /**
   * Forks `project` into `namespace` (the caller's own by default) under the same project name. GitLab refuses a
   * second fork at the same path with 409.
   */
  fork(project: SimProject, namespace: string): SimProject {
    const path = `${namespace}/${project.path.split('/').pop()}`;
    if (this.projects.has(path)) throw new GitLabSimError(409, { message: { name: ['has already been taken'], path: ['has already been taken'] } });
    const fork = this.createProject(path, project.defaultBranch);
    fork.forkedFrom = project;
    fork.branches = new Map(project.branches);
    return fork;
  }

  project(idOrPath: string): SimProject {
    const project = this.projects.get(idOrPath) ?? [...this.projects.values()].find((p) => String(p.id) === idOrPath);
    if (!project) throw new GitLabSimError(404, { message: '404 Project Not Found' });
    return project;
  }

  push(project: SimProject, branch: string): string {
    const commit = sha(`${project.path}:${branch}:${this.id()}`);
    project.branches.set(branch, commit);
    return commit;
  }

  /**
   * CI reports a pipeline for a commit, in the project it runs in: for a merge request from a fork that is the fork
   * (GitLab's default), and its webhook comes from the fork.
   */
  reportPipeline(project: SimProject, ref: string, commit: string, status: string, jobs: Array<Omit<SimJob, 'id'>> = [{ name: 'test', stage: 'test', status }]): SimPipeline {
    const time = new Date().toISOString();
    const pipeline = { id: this.id(), iid: project.pipelines.length + 1, sha: commit, ref, status, createdAt: time, updatedAt: time, jobs: jobs.map((job) => ({ ...job, id: this.id() })) };
    project.pipelines.push(pipeline);
    this.emit({ kind: 'pipeline', project, pipeline, user: 'gitlab-ci' });
    return pipeline;
  }

  /** A plain comment on the merge request: a discussion of its own. */
  addNote(mr: SimMergeRequest, body: string, author: string, project?: SimProject): SimNote {
    return this.writeNote(mr, body, author, project, (id) => ({ discussionId: discussionId(`${mr.id}:${id}`), type: null }));
  }

  /** "Start a thread": a DiscussionNote, or a DiffNote on `position` (a line of the merge request's diff). */
  startDiscussion(mr: SimMergeRequest, body: string, author: string, options: { position?: SimPosition | { path: string; line: number }; project?: SimProject } = {}): SimNote {
    const project = options.project ?? this.projectOfMergeRequest(mr);
    const position = options.position && 'path' in options.position ? this.positionIn(project, mr, options.position) : options.position;
    return this.writeNote(mr, body, author, project, (id) => ({ discussionId: discussionId(`${mr.id}:${id}`), type: position ? 'DiffNote' : 'DiscussionNote', ...(position ? { position } : {}) }));
  }

  /** A reply in a discussion (404 when there is none; 400 for a system note's). */
  replyInDiscussion(mr: SimMergeRequest, id: string, body: string, author: string, project?: SimProject): SimNote {
    const discussion = this.discussion(mr, id);
    const time = new Date().toISOString();
    const shape = replyShape(discussion, author, time);
    if ('refused' in shape) throw new GitLabSimError(400, { message: `400 Bad request - ${shape.refused}` });
    return this.writeNote(mr, body, author, project, () => {
      for (const note of shape.convert) note.type = 'DiscussionNote';
      const { convert: _converted, ...fields } = shape;
      return { discussionId: id, ...fields };
    });
  }

  /** Resolves (or reopens) every resolvable note of a thread; GitLab sends no webhook for it. */
  resolveDiscussion(project: SimProject, mr: SimMergeRequest, id: string, resolved: boolean, user: string): SimDiscussion {
    const discussion = this.discussion(mr, id);
    const refusal = resolveRefusal(discussion, project.resolveForbidden === true);
    if (refusal) throw new GitLabSimError(403, { message: '403 Forbidden' });
    const time = new Date().toISOString();
    for (const note of discussion.notes.filter(isResolvable)) {
      if (resolved && !note.resolvedAt) Object.assign(note, { resolvedBy: user, resolvedAt: time });
      if (!resolved) { delete note.resolvedBy; delete note.resolvedAt; }
    }
    return discussion;
  }

  discussion(mr: SimMergeRequest, id: string): SimDiscussion {
    const discussion = discussionsOf(mr.notes).find((d) => d.id === id);
    if (!discussion) throw new GitLabSimError(404, { message: '404 Discussion Not Found' });
    return discussion;
  }

  private writeNote(mr: SimMergeRequest, body: string, author: string, project: SimProject | undefined, place: (id: number) => Pick<SimNote, 'discussionId' | 'type' | 'position' | 'resolvedBy' | 'resolvedAt'>): SimNote {
    if (!body.trim()) throw new GitLabSimError(400, { message: { note: ["can't be blank"] } });
    const time = new Date().toISOString();
    const id = this.id();
    const note: SimNote = { ...place(id), id, body, author, system: false, createdAt: time, updatedAt: time };
    mr.notes.push(note);
    // A note touches its merge request, as on GitLab: the merge request's updated_at moves (no merge request hook).
    mr.updatedAt = time;
    const owner = project ?? this.projectOfMergeRequest(mr);
    if (owner) this.emit({ kind: 'note', project: owner, mr, note, user: author });
    return note;
  }

  private projectOfMergeRequest(mr: SimMergeRequest): SimProject | undefined {
    return [...this.projects.values()].find((p) => p.mergeRequests.includes(mr));
  }

  /** A line of the merge request's new file, at the current heads of its branches. */
  private positionIn(project: SimProject | undefined, mr: SimMergeRequest, at: { path: string; line: number }): SimPosition {
    const base = project?.branches.get(mr.targetBranch) ?? '';
    const position: SimPosition = { base_sha: base, start_sha: base, head_sha: (mr.sourceProject ?? project)?.branches.get(mr.sourceBranch) ?? '', old_path: at.path, new_path: at.path, position_type: 'text', old_line: null, new_line: at.line, line_range: null };
    // A reviewer comments in GitLab's UI, which sends the commented line as a range of one.
    const point = { line_code: lineCode(position), type: 'new' as const, old_line: null, new_line: at.line };
    return { ...position, line_range: { start: point, end: { ...point } } };
  }
}

export interface GitLabSimulator {
  /** The instance root (what a registry base_url would be). */
  url: string;
  /** `<url>/api/v4`. */
  apiUrl: string;
  state: GitLabState;
  faults: FaultInjector;
  git: GitSmartHttp;
  /** The merge button, in git (a person merging, as the REST route does). */
  mergeRequests: MergeRequestGit;
  webhooks: WebhookSender;
  close(): Promise<void>;
}

function sha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

export async function startGitLabSimulator(options: GitLabSimulatorOptions = {}): Promise<GitLabSimulator> {
  let url = '';
  const state = new GitLabState();
  const json = new GitLabJson(() => url, (project) => state.namespaceOf(project));
  if (options.restore) restoreGitLab(state, options.restore);
  for (const path of options.projects ?? []) state.createProject(path);
  const faults = createFaultInjector((status, message) => ({ message: `${status} ${message}` }));
  const webhooks = createWebhookSender(options.webhook);
  state.onEvent((event) => {
    const name = { merge_request: 'Merge Request Hook', note: 'Note Hook', pipeline: 'Pipeline Hook' }[event.kind];
    webhooks.send(event.kind, gitlabHookPayload(json, event), () => {
      const secret = webhooks.target?.secret;
      return { 'content-type': 'application/json', 'x-gitlab-event': name, 'user-agent': 'GitLab/simulator', ...(secret ? { 'x-gitlab-token': secret } : {}) };
    });
  });
  const app = express();
  app.disable('x-powered-by');
  // Git over smart HTTP at `<url>/<namespace>.git` (token as the Basic password, e.g. `oauth2:<token>`).
  const git = createGitSmartHttp({
    root: options.gitRoot, pathPrefix: options.pathPrefix, tokens: options.tokens,
    defaultBranchOf: (path) => state.projects.get(path)?.defaultBranch,
    parentOf: (path) => state.projects.get(path)?.forkedFrom?.path,
    onBranches: (path, heads) => { for (const head of heads) state.projects.get(path)?.branches.set(head.branch, head.sha); },
  });
  app.use(git.handler);
  const mergeRequests = new MergeRequestGit(state, (path) => git.repositoryPath(path));
  app.use((_req, res, next) => { res.setHeader('x-request-id', randomUUID()); next(); });
  // The merge request's web_url is a page a browser opens without a PRIVATE-TOKEN: it comes before the API's check.
  app.use(mergeRequestPages({ state, mergeRequests, tokens: options.tokens, pathPrefix: options.pathPrefix }));
  app.use(express.json());
  app.use((req: Request, res: Response, next: NextFunction) => {
    const token = req.headers['private-token'];
    const username = typeof token === 'string' && token ? loginOfToken(options.tokens, token) : undefined;
    if (!username) { res.status(401).json({ message: '401 Unauthorized' }); return; }
    res.locals.username = username;
    next();
  });
  app.use(faults.middleware);
  const api = express.Router();
  app.use(`${options.pathPrefix ?? ''}/api/v4`, api);

  const projectOf = (req: Request) => state.project(String(req.params.id));
  const mrOf = (req: Request) => {
    const mr = projectOf(req).mergeRequests.find((m) => m.iid === Number(req.params.iid));
    if (!mr) throw new GitLabSimError(404, { message: '404 Not found' });
    return mr;
  };
  api.get('/user', (_req, res) => { res.json(json.user(String(res.locals.username))); });
  api.get('/projects/:id', (req, res) => { res.json(json.project(projectOf(req))); });
  api.post('/projects/:id/fork', (req, res) => {
    const body = (req.body ?? {}) as { namespace_path?: string };
    res.status(201).json(json.project(state.fork(projectOf(req), body.namespace_path ?? String(res.locals.username))));
  });
  api.get('/projects/:id/forks', (req, res) => {
    const project = projectOf(req);
    const owned = req.query.owned === 'true';
    const forks = [...state.projects.values()].filter((p) => p.forkedFrom === project && (!owned || state.owns(String(res.locals.username), p)));
    res.json(paged(req, res, forks).map((fork) => json.project(fork)));
  });
  api.get('/projects/:id/repository/branches/:branch', (req, res) => {
    const project = projectOf(req);
    const commit = project.branches.get(String(req.params.branch));
    if (!commit) throw new GitLabSimError(404, { message: '404 Branch Not Found' });
    res.json(json.branch(project, String(req.params.branch), commit));
  });
  api.post('/projects/:id/repository/branches', (req, res) => {
    const project = projectOf(req);
    const branch = String(req.query.branch ?? '');
    const ref = String(req.query.ref ?? '');
    if (!branch || !ref) throw new GitLabSimError(400, { error: 'branch is missing, ref is missing' });
    if (project.branches.has(branch)) throw new GitLabSimError(400, { message: 'Branch already exists' });
    const commit = project.branches.get(ref) ?? (/^[0-9a-f]{40}$/.test(ref) ? ref : undefined);
    if (!commit) throw new GitLabSimError(400, { message: 'Invalid reference name' });
    project.branches.set(branch, commit);
    res.status(201).json(json.branch(project, branch, commit));
  });
  api.get('/projects/:id/merge_requests', (req, res) => {
    const project = projectOf(req);
    const wanted = String(req.query.state ?? 'all');
    const after = timeParam(req.query.updated_after, 'updated_after');
    const before = timeParam(req.query.updated_before, 'updated_before');
    // GitLab orders by created_at, newest first, unless asked otherwise.
    const key = req.query.order_by === 'updated_at' ? (mr: SimMergeRequest) => Date.parse(mr.updatedAt) : (mr: SimMergeRequest) => Date.parse(mr.createdAt) * 1e6 + mr.iid;
    const direction = req.query.sort === 'asc' ? 1 : -1;
    const list = project.mergeRequests
      .filter((mr) => wanted === 'all' || mr.state === wanted)
      .filter((mr) => typeof req.query.source_branch !== 'string' || mr.sourceBranch === req.query.source_branch)
      .filter((mr) => (after === undefined || Date.parse(mr.updatedAt) >= after) && (before === undefined || Date.parse(mr.updatedAt) <= before))
      .sort((a, b) => direction * (key(a) - key(b)) || direction * (a.iid - b.iid));
    res.json(paged(req, res, list).map((mr) => json.mergeRequestBasic(project, mr)));
  });
  api.post('/projects/:id/merge_requests', (req, res) => {
    const source = projectOf(req);
    const body = (req.body ?? {}) as { title?: string; description?: string; source_branch?: string; target_branch?: string; target_project_id?: number | string; labels?: unknown };
    // From a fork, the merge request belongs to the target project, which must be the fork's upstream.
    const project = body.target_project_id === undefined ? source : state.project(String(body.target_project_id));
    if (project !== source && source.forkedFrom !== project) throw new GitLabSimError(400, { message: ['Target project is not the source project or its upstream'] });
    if (!body.title?.trim()) throw new GitLabSimError(400, { error: 'title is missing' });
    if (!source.branches.has(body.source_branch ?? '')) throw new GitLabSimError(400, { message: ['Source branch does not exist'] });
    if (!project.branches.has(body.target_branch ?? '')) throw new GitLabSimError(400, { message: ['Target branch does not exist'] });
    const open = project.mergeRequests.find((mr) => mr.state === 'opened' && (mr.sourceProject ?? project) === source && mr.sourceBranch === body.source_branch && mr.targetBranch === body.target_branch);
    if (open) throw new GitLabSimError(409, { message: [`Another open merge request already exists for this source branch: !${open.iid}`] });
    const time = new Date().toISOString();
    const mr: SimMergeRequest = {
      id: state.id(), iid: project.nextIid++, title: body.title, description: body.description ?? '', state: 'opened',
      sourceBranch: body.source_branch ?? '', targetBranch: body.target_branch ?? '', author: String(res.locals.username), createdAt: time, updatedAt: time, notes: [],
      ...(source !== project ? { sourceProject: source } : {}),
    };
    if (body.labels !== undefined) state.setLabels(project, mr, labelList(body.labels));
    project.mergeRequests.push(mr);
    state.emit({ kind: 'merge_request', project, mr, action: 'open', user: mr.author, changes: {} });
    res.status(201).json(json.mergeRequest(project, mr));
  });
  api.get('/projects/:id/merge_requests/:iid', async (req, res, next) => {
    try {
      const project = projectOf(req);
      const mr = mrOf(req);
      res.json(json.mergeRequest(project, mr, await mergeRequests.mergeabilityOnRead(project, mr)));
    } catch (error) {
      next(error);
    }
  });
  api.put('/projects/:id/merge_requests/:iid', (req, res) => {
    const project = projectOf(req);
    const mr = mrOf(req);
    const user = String(res.locals.username);
    const body = (req.body ?? {}) as { title?: string; description?: string; state_event?: string; labels?: unknown; add_labels?: unknown; remove_labels?: unknown };
    const time = new Date().toISOString();
    const changes: SimChanges = {};
    const edit = (field: 'title' | 'description', value: string | undefined) => {
      if (value === undefined || value === mr[field]) return;
      changes[field] = { previous: mr[field], current: value };
      mr[field] = value;
    };
    edit('title', body.title);
    edit('description', body.description);
    if (changes.title || changes.description) {
      changes.last_edited_at = { previous: mr.lastEditedAt ?? null, current: time };
      changes.last_edited_by_id = { previous: mr.lastEditedBy ? json.user(mr.lastEditedBy).id : null, current: json.user(user).id };
      mr.lastEditedAt = time;
      mr.lastEditedBy = user;
    }
    if (body.labels !== undefined || body.add_labels !== undefined || body.remove_labels !== undefined) {
      const removed = new Set(labelList(body.remove_labels));
      const titles = [...(body.labels !== undefined ? labelList(body.labels) : mr.labels ?? []), ...labelList(body.add_labels)].filter((t) => !removed.has(t));
      Object.assign(changes, state.setLabels(project, mr, titles));
    }
    const before = mr.state;
    const closing = body.state_event === 'close' && mr.state === 'opened';
    if (closing) Object.assign(mr, { state: 'closed', closedAt: time });
    if (body.state_event === 'reopen' && mr.state === 'closed') {
      mr.state = 'opened';
      delete mr.closedAt;
    }
    if (mr.state !== before) changes.state_id = { previous: STATE_ID[before], current: STATE_ID[mr.state] };
    changes.updated_at = { previous: mr.updatedAt, current: time };
    mr.updatedAt = time;
    state.emit({ kind: 'merge_request', project, mr, action: closing ? 'close' : 'update', user, changes });
    res.json(json.mergeRequest(project, mr));
  });
  // GitLab 17.9+: the merge request's diff as plain text, what its page's "Plain diff" shows.
  api.get('/projects/:id/merge_requests/:iid/raw_diffs', async (req, res, next) => {
    try {
      res.type('text/plain; charset=utf-8').send(await mergeRequests.diff(projectOf(req), mrOf(req)));
    } catch (error) {
      next(error);
    }
  });
  // Accept: a merge commit (or squash and merge) written in git; `sha` guards against a source branch that moved.
  api.put('/projects/:id/merge_requests/:iid/merge', async (req, res, next) => {
    try {
      const project = projectOf(req);
      const body = { ...(req.query as Record<string, unknown>), ...((req.body ?? {}) as Record<string, unknown>) };
      const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
      const merged = await mergeRequests.merge(project, mrOf(req), String(res.locals.username), {
        sha: text(body.sha), squash: body.squash === true || body.squash === 'true',
        mergeCommitMessage: text(body.merge_commit_message), squashCommitMessage: text(body.squash_commit_message),
      });
      res.json(json.mergeRequest(project, merged));
    } catch (error) {
      next(error);
    }
  });
  // Approvals (GitLab Free's: anyone with access approves; no rules). The answer is the merge request's approval state.
  api.post('/projects/:id/merge_requests/:iid/approve', (req, res) => {
    const project = projectOf(req);
    res.status(201).json(json.approvals(project, state.approve(project, mrOf(req), String(res.locals.username))));
  });
  api.get('/projects/:id/merge_requests/:iid/approvals', (req, res) => {
    res.json(json.approvals(projectOf(req), mrOf(req)));
  });
  api.get('/projects/:id/merge_requests/:iid/notes', (req, res) => {
    const mr = mrOf(req);
    res.json(paged(req, res, mr.notes).map((note) => json.note(projectOf(req), mr, note)));
  });
  api.post('/projects/:id/merge_requests/:iid/notes', (req, res) => {
    const mr = mrOf(req);
    const note = state.addNote(mr, String((req.body as { body?: string } | undefined)?.body ?? ''), String(res.locals.username), projectOf(req));
    res.status(201).json(json.note(projectOf(req), mr, note));
  });
  // Discussions: every note is in one (a plain comment is an individual note); threads take replies and resolve.
  api.get('/projects/:id/merge_requests/:iid/discussions', (req, res) => {
    const project = projectOf(req);
    const mr = mrOf(req);
    res.json(paged(req, res, discussionsOf(mr.notes)).map((d) => json.discussion(project, mr, d)));
  });
  api.get('/projects/:id/merge_requests/:iid/discussions/:discussion_id', (req, res) => {
    const mr = mrOf(req);
    res.json(json.discussion(projectOf(req), mr, state.discussion(mr, String(req.params.discussion_id))));
  });
  api.post('/projects/:id/merge_requests/:iid/discussions', async (req, res, next) => {
    try {
      const project = projectOf(req);
      const mr = mrOf(req);
      const body = (req.body ?? {}) as { body?: unknown; position?: Record<string, unknown> };
      if (typeof body.body !== 'string') throw new GitLabSimError(400, { error: 'body is missing' });
      const position = body.position === undefined ? undefined : positionParam(body.position);
      // A line outside the diff (or of a file the merge request does not change) has no line code: GitLab refuses it.
      const repositories = { target: git.existingRepositoryPath(project.path), source: git.existingRepositoryPath((mr.sourceProject ?? project).path) };
      if (position && !(await isLineOfMergeRequestDiff(repositories, mr, position))) throw new GitLabSimError(400, { message: NO_LINE_CODE });
      const note = state.startDiscussion(mr, body.body, String(res.locals.username), { project, ...(position ? { position } : {}) });
      res.status(201).json(json.discussion(project, mr, state.discussion(mr, note.discussionId)));
    } catch (error) {
      next(error);
    }
  });
  api.post('/projects/:id/merge_requests/:iid/discussions/:discussion_id/notes', (req, res) => {
    const project = projectOf(req);
    const mr = mrOf(req);
    const body = (req.body ?? {}) as { body?: unknown };
    if (typeof body.body !== 'string') throw new GitLabSimError(400, { error: 'body is missing' });
    const note = state.replyInDiscussion(mr, String(req.params.discussion_id), body.body, String(res.locals.username), project);
    res.status(201).json(json.note(project, mr, note));
  });
  api.put('/projects/:id/merge_requests/:iid/discussions/:discussion_id', (req, res) => {
    const raw = req.query.resolved ?? (req.body as { resolved?: unknown } | undefined)?.resolved;
    const resolved = raw === true || raw === 'true' ? true : raw === false || raw === 'false' ? false : undefined;
    if (resolved === undefined) throw new GitLabSimError(400, { error: raw === undefined ? 'resolved is missing' : 'resolved is invalid' });
    const project = projectOf(req);
    const mr = mrOf(req);
    res.json(json.discussion(project, mr, state.resolveDiscussion(project, mr, String(req.params.discussion_id), resolved, String(res.locals.username))));
  });
  // A merge request's pipelines run in its source project: the fork's, for a merge request from a fork, and are
  // listed here with that project's id, as GitLab lists them on the merge request.
  api.get('/projects/:id/merge_requests/:iid/pipelines', (req, res) => {
    const mr = mrOf(req);
    const source = mr.sourceProject ?? projectOf(req);
    const list = source.pipelines.filter((p) => p.ref === mr.sourceBranch).sort((a, b) => b.id - a.id);
    res.json(paged(req, res, list).map((p) => json.pipeline(source, p)));
  });
  // An external CI reports on a commit (GitLab's "set the pipeline status of a commit"): GitLab runs such statuses in
  // a pipeline of its own, which shows on the merge request and sends its hook. Each report is one pipeline here.
  api.post('/projects/:id/statuses/:sha', (req, res) => {
    const project = projectOf(req);
    const body = { ...(req.query as Record<string, unknown>), ...((req.body ?? {}) as Record<string, unknown>) };
    const status = String(body.state ?? '');
    if (!COMMIT_STATUSES.includes(status)) throw new GitLabSimError(400, { error: `state does not have a valid value (${COMMIT_STATUSES.join(', ')})` });
    const sha = String(req.params.sha);
    const ref = typeof body.ref === 'string' && body.ref ? body.ref : [...project.branches].find(([, head]) => head === sha)?.[0];
    if (!ref || project.branches.get(ref) === undefined) throw new GitLabSimError(404, { message: '404 References for commit Not Found' });
    const name = typeof body.name === 'string' && body.name ? body.name : 'default';
    const pipeline = state.reportPipeline(project, ref, sha, status, [{ name, stage: 'external', status }]);
    res.status(201).json({ id: pipeline.jobs?.[0]?.id ?? pipeline.id, sha, ref, status, name, pipeline_id: pipeline.id, created_at: pipeline.createdAt });
  });
  api.get('/projects/:id/pipelines', (req, res) => {
    const project = projectOf(req);
    const list = project.pipelines.filter((p) => typeof req.query.sha !== 'string' || p.sha === req.query.sha).sort((a, b) => b.id - a.id);
    res.json(paged(req, res, list).map((p) => json.pipeline(project, p)));
  });

  app.use((_req: Request, res: Response) => { res.status(404).json({ error: '404 Not Found' }); });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof GitLabSimError) { res.status(error.status).json(error.body); return; }
    res.status(500).json({ message: '500 Internal Server Error' });
  });

  const started = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1');
  url = `${started.url}${options.pathPrefix ?? ''}`;
  return {
    url,
    apiUrl: `${url}/api/v4`,
    state,
    faults,
    git,
    mergeRequests,
    webhooks,
    async close() { faults.releaseAll(); await closeServer(started.server); git.close(); },
  };
}

/** The pipeline hook's merge request carries the two statuses, not `has_conflicts`. */
function withoutConflictFlag(fields: ReturnType<typeof mergeStatusFields>): { merge_status: string; detailed_merge_status: string } {
  return { merge_status: fields.merge_status, detailed_merge_status: fields.detailed_merge_status };
}

/** GitLab paging: per_page (max 100, default 20), page, and X-Next-Page ('' on the last page). */
function paged<T>(req: Request, res: Response, items: T[]): T[] {
  const perPage = Math.min(100, Math.max(1, Number(req.query.per_page ?? 20) || 20));
  const page = Math.max(1, Number(req.query.page ?? 1) || 1);
  res.setHeader('x-page', String(page));
  res.setHeader('x-per-page', String(perPage));
  res.setHeader('x-total', String(items.length));
  res.setHeader('x-next-page', page * perPage < items.length ? String(page + 1) : '');
  return items.slice((page - 1) * perPage, page * perPage);
}

/** GitLab's line code of a diff position: the SHA-1 of the path, then the old and the new line. */
function lineCode(position: SimPosition): string {
  return `${sha(position.new_path)}_${position.old_line ?? 0}_${position.new_line ?? 0}`;
}

/** The `position` parameter of a new diff thread: GitLab requires the three SHAs and a text (or image) type. */
function positionParam(raw: Record<string, unknown>): SimPosition {
  for (const key of ['base_sha', 'start_sha', 'head_sha', 'position_type']) {
    if (typeof raw[key] !== 'string' || !raw[key]) throw new GitLabSimError(400, { error: `position[${key}] is missing` });
  }
  if (raw.position_type !== 'text') throw new GitLabSimError(400, { error: 'position[position_type] does not have a valid value' });
  const path = (raw.new_path ?? raw.old_path) as string | undefined;
  const line = (value: unknown) => (value === undefined || value === null || value === '' ? null : Number(value));
  if (!path || (line(raw.new_line) === null && line(raw.old_line) === null)) throw new GitLabSimError(400, { message: NO_LINE_CODE });
  return {
    base_sha: String(raw.base_sha), start_sha: String(raw.start_sha), head_sha: String(raw.head_sha),
    old_path: String(raw.old_path ?? path), new_path: String(raw.new_path ?? path), position_type: 'text',
    old_line: line(raw.old_line), new_line: line(raw.new_line), line_range: null,
  };
}

/** A time filter of GitLab's list APIs (ISO 8601); GitLab answers an unparseable one with 400. */
function timeParam(raw: unknown, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const at = typeof raw === 'string' ? Date.parse(raw) : NaN;
  if (Number.isNaN(at)) throw new GitLabSimError(400, { error: `${name} is invalid` });
  return at;
}

/** GitLab's `state_id` of a merge request state. */
const STATE_ID: Record<SimMergeRequest['state'], number> = { opened: 1, closed: 2, merged: 3 };

/** The `labels` parameter of GitLab's API: a comma-separated string or an array of titles. */
function labelList(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(',') : [];
  return items.map((t) => t.trim()).filter(Boolean);
}

const FINISHED = ['success', 'failed', 'canceled', 'skipped'];
const COMMIT_STATUSES = ['pending', 'running', ...FINISHED];

/**
 * GitLab's webhook bodies for merge request, note and pipeline events, with the fields real deliveries carry
 * (test/process/sandbox/gitlab-delivery-corpus.test.ts holds them to a corpus of real ones). The simulator knows a
 * commit by its sha only, so a commit's message and author are the placeholders its REST branches show.
 */
export function gitlabHookPayload(json: GitLabJson, event: GitLabSimEvent): Record<string, unknown> {
  const hooks = new GitLabHookJson(json);
  const user = hooks.user(event.user);
  switch (event.kind) {
    case 'merge_request': {
      const attributes = hooks.mergeRequest(event.project, event.mr);
      const changes = Object.fromEntries(Object.entries(event.changes ?? {}).map(([field, change]) => [field, field === 'labels'
        ? { previous: hooks.labels(event.project, change.previous as string[]), current: hooks.labels(event.project, change.current as string[]) }
        : change]));
      return {
        object_kind: 'merge_request', event_type: 'merge_request', user, project: hooks.project(event.project),
        object_attributes: { ...attributes, draft: isDraftTitle(event.mr.title), action: event.action },
        labels: attributes.labels, changes, repository: hooks.repository(event.project),
      };
    }
    case 'note': {
      // The note's own attributes as GitLab's hook sends them: its discussion, its type (null for a plain comment)
      // and, for a diff note, its position. Nothing in them says whether the note started its thread or replied.
      const note = event.note;
      return {
        object_kind: 'note', event_type: 'note', user, project_id: event.project.id, project: hooks.project(event.project),
        object_attributes: {
          attachment: null, author_id: json.user(note.author).id, change_position: null, commit_id: note.position?.head_sha ?? null, created_at: note.createdAt,
          discussion_id: note.discussionId, id: note.id, line_code: note.position ? lineCode(note.position) : null, note: note.body, noteable_id: event.mr.id, noteable_type: 'MergeRequest',
          original_position: note.position ?? null, position: note.position ?? null, project_id: event.project.id,
          resolved_at: note.resolvedAt ?? null, resolved_by_id: note.resolvedBy ? json.user(note.resolvedBy).id : null, resolved_by_push: null,
          st_diff: null, system: note.system, type: note.type, updated_at: note.updatedAt, updated_by_id: null,
          description: note.body, url: `${json.mergeRequestUrl(event.project, event.mr)}#note_${note.id}`, action: 'create',
        },
        repository: hooks.repository(event.project),
        merge_request: hooks.mergeRequest(event.project, event.mr),
      };
    }
    case 'pipeline': {
      // The open merge request whose source branch this is: in this project, or (a pipeline of a fork) in the
      // upstream the fork's merge request targets. GitLab names both projects and the merge request's URL.
      const from = (p: SimProject) => p.mergeRequests.filter((m) => m.state === 'opened' && (m.sourceProject ?? p) === event.project && m.sourceBranch === event.pipeline.ref).map((mr) => ({ mr, target: p }));
      const found = [event.project, event.project.forkedFrom].flatMap((p) => (p ? from(p) : []))[0];
      const pipeline = event.pipeline;
      const finished = FINISHED.includes(pipeline.status);
      const jobs = pipeline.jobs ?? [];
      return {
        object_kind: 'pipeline',
        object_attributes: {
          id: pipeline.id, iid: pipeline.iid, ref: pipeline.ref, tag: false, sha: pipeline.sha, before_sha: pipeline.sha, source: 'merge_request_event', status: pipeline.status,
          stages: [...new Set(jobs.map((job) => job.stage))], created_at: pipeline.createdAt, finished_at: finished ? pipeline.updatedAt : null,
          duration: finished ? seconds(pipeline.createdAt, pipeline.updatedAt) : null, variables: [] as unknown[],
          url: `${json.projectUrl(event.project)}/-/pipelines/${pipeline.id}`,
        },
        merge_request: found ? {
          id: found.mr.id, iid: found.mr.iid, title: found.mr.title, source_branch: found.mr.sourceBranch, source_project_id: event.project.id,
          target_branch: found.mr.targetBranch, target_project_id: found.target.id, state: found.mr.state,
          ...withoutConflictFlag(mergeStatusFields(found.mr, isDraftTitle(found.mr.title), keptMergeability(found.target, found.mr))),
          url: json.mergeRequestUrl(found.target, found.mr),
        } : null,
        user, project: hooks.pipelineProject(event.project), commit: withoutTitle(hooks.commit(event.project, pipeline.sha, pipeline.createdAt)),
        builds: jobs.map((job) => hooks.job(pipeline, job, event.user)),
      };
    }
  }
}

/** The pipeline hook's commit has no `title`, unlike a merge request's last commit. */
function withoutTitle<T extends { title: string }>(commit: T): Omit<T, 'title'> {
  const { title: _title, ...rest } = commit;
  return rest;
}

function seconds(from: string, to: string): number {
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
}

/** The shapes GitLab's webhooks give users, projects, labels, commits, jobs and merge requests (its hook_attrs). */
class GitLabHookJson {
  constructor(private readonly json: GitLabJson) {}

  /** GitLab shows `[REDACTED]` for the e-mail of a user without a public one, as the simulator's users are. */
  user(username: string) {
    const { id, web_url: webUrl } = this.json.user(username);
    return { id, name: username, username, avatar_url: `${webUrl}.png`, email: '[REDACTED]' };
  }

  /** A project as the pipeline hook names it. */
  pipelineProject(project: SimProject) {
    const web = this.json.projectUrl(project);
    const host = new URL(web).host;
    return {
      id: project.id, name: project.path.split('/').pop() ?? project.path, description: '', web_url: web, avatar_url: null,
      git_ssh_url: `git@${host}:${project.path}.git`, git_http_url: `${web}.git`, namespace: project.path.split('/').slice(0, -1).join('/'),
      visibility_level: 0, path_with_namespace: project.path, default_branch: project.defaultBranch,
    };
  }

  /** A project as the merge request and note hooks name it (and a merge request's source and target). */
  project(project: SimProject) {
    const base = this.pipelineProject(project);
    return { ...base, ci_config_path: '', homepage: base.web_url, url: base.git_ssh_url, ssh_url: base.git_ssh_url, http_url: base.git_http_url };
  }

  repository(project: SimProject) {
    const base = this.pipelineProject(project);
    return { name: base.name, url: base.git_ssh_url, description: base.description, homepage: base.web_url };
  }

  labels(project: SimProject, titles: string[]) {
    return titles.flatMap((title) => {
      const label = project.labels?.get(title);
      return label ? [{
        id: label.id, title: label.title, color: label.color, project_id: project.id, created_at: label.createdAt, updated_at: label.createdAt,
        template: false, description: null, type: 'ProjectLabel', group_id: null,
      }] : [];
    });
  }

  commit(project: SimProject, sha: string, time: string) {
    return {
      id: sha, message: 'Simulated commit\n', title: 'Simulated commit', timestamp: time, url: `${this.json.projectUrl(project)}/-/commit/${sha}`,
      author: { name: 'Simulator', email: 'simulator@example.invalid' },
    };
  }

  job(pipeline: SimPipeline, job: SimJob, username: string) {
    const finished = FINISHED.includes(job.status);
    const started = job.status !== 'created' && job.status !== 'pending' && job.status !== 'skipped';
    return {
      id: job.id, stage: job.stage, name: job.name, status: job.status, created_at: pipeline.createdAt,
      started_at: started ? pipeline.createdAt : null, finished_at: finished ? pipeline.updatedAt : null,
      duration: finished ? seconds(pipeline.createdAt, pipeline.updatedAt) : null, queued_duration: started ? 0 : null,
      failure_reason: job.status === 'failed' ? 'script_failure' : null, when: 'on_success', manual: false, allow_failure: false,
      user: this.user(username),
      runner: started ? { id: 1, description: 'simulator-runner', active: true, runner_type: 'instance_type', is_shared: true, tags: [] as string[] } : null,
      // The simulator's jobs deploy nowhere.
      artifacts_file: { filename: null, size: null }, environment: null,
    };
  }

  /** A merge request's attributes: the hook's `object_attributes` and the note hook's `merge_request`. */
  mergeRequest(project: SimProject, mr: SimMergeRequest) {
    const source = mr.sourceProject ?? project;
    const head = source.branches.get(mr.sourceBranch);
    const draft = isDraftTitle(mr.title);
    const status = mergeStatusFields(mr, draft, keptMergeability(project, mr));
    const headPipeline = head ? [...source.pipelines].reverse().find((pipeline) => pipeline.sha === head) : undefined;
    const unresolved = mr.notes.some((note) => isResolvable(note) && !note.resolvedAt);
    return {
      assignee_id: null, author_id: this.json.user(mr.author).id, created_at: mr.createdAt, description: mr.description,
      head_pipeline_id: headPipeline?.id ?? null, id: mr.id, iid: mr.iid,
      last_edited_at: mr.lastEditedAt ?? null, last_edited_by_id: mr.lastEditedBy ? this.json.user(mr.lastEditedBy).id : null,
      merge_commit_sha: mr.mergeCommitSha ?? null, merge_error: null, merge_params: { force_remove_source_branch: '0' },
      merge_status: status.merge_status, merge_user_id: null, merge_when_pipeline_succeeds: false, milestone_id: null,
      source_branch: mr.sourceBranch, source_project_id: source.id, state_id: STATE_ID[mr.state], target_branch: mr.targetBranch, target_project_id: project.id,
      time_estimate: 0, title: mr.title, updated_at: mr.updatedAt, updated_by_id: mr.lastEditedBy ? this.json.user(mr.lastEditedBy).id : null,
      url: this.json.mergeRequestUrl(project, mr), source: this.project(source), target: this.project(project),
      last_commit: head ? this.commit(source, head, mr.createdAt) : null,
      work_in_progress: draft, total_time_spent: 0, time_change: 0, human_total_time_spent: null, human_time_change: null, human_time_estimate: null,
      assignee_ids: [] as number[], reviewer_ids: [] as number[], labels: this.labels(project, mr.labels ?? []), state: mr.state,
      blocking_discussions_resolved: !unresolved, first_contribution: false, detailed_merge_status: status.detailed_merge_status,
    };
  }
}
