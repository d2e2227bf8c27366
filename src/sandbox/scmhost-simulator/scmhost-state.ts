/**
 * The source-host simulator's in-memory world (GitHub-shaped): repositories with branches, pull requests, issue
 * comments, reviews, review comments and check runs. Changes from the service (over HTTP) and from tests acting
 * as reviewers or CI go through the same methods, so the same webhooks fire.
 */
import { createHash } from 'node:crypto';
import type { SimCheckRun, SimIssueComment, SimPull, SimRepo, SimReview, SimReviewComment, SimUser } from './github-json';

/** A failure answered with GitHub's error body. */
export class ScmhostSimError extends Error {
  /**
   * `errors` entries are objects (validation-error) or, on some endpoints, plain strings (validation-error-simple);
   * `documentationUrl` is the endpoint's page when GitHub names it (else its REST root).
   */
  constructor(readonly status: number, message: string, readonly errors?: Array<Record<string, string> | string>, readonly documentationUrl?: string) {
    super(message);
  }
}

/** The page GitHub names in the errors of `PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge`. */
export const MERGE_DOCS = 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request';

/**
 * Everything the source-host simulator knows, as plain JSON (see TrackerSnapshot for why it is kept): a pull
 * request names its head repository by full name instead of holding it.
 */
export interface ScmhostSnapshot {
  version: 1;
  nextId: number;
  users: SimUser[];
  repos: Array<Omit<SimRepo, 'branches'> & { branches: Array<[string, string]> }>;
  pulls: Array<{ repo: string; pulls: Array<Omit<SimPull, 'headRepo'> & { headRepo: string }> }>;
  issueComments: ScmhostState['issueComments'];
  reviews: ScmhostState['reviews'];
  reviewComments: ScmhostState['reviewComments'];
  checkRuns: ScmhostState['checkRuns'];
  /** Repository files by lower-case full name, then path. */
  files?: Array<[string, Array<[string, string]>]>;
}

export type ScmhostSimEvent =
  | {
    event: 'pull_request'; action: 'opened' | 'closed' | 'synchronize' | 'edited' | 'reopened'; repo: SimRepo; pull: SimPull; sender: SimUser;
    /** `edited`: the previous title and body. */
    changes?: { title?: { from: string }; body?: { from: string } };
    /** `synchronize`: the head before and after the push. */
    before?: string;
    after?: string;
  }
  | { event: 'pull_request_review'; action: 'submitted'; repo: SimRepo; pull: SimPull; review: SimReview; sender: SimUser }
  | { event: 'issue_comment'; action: 'created'; repo: SimRepo; pull: SimPull; comment: SimIssueComment; sender: SimUser }
  | { event: 'check_run'; action: 'created' | 'completed'; repo: SimRepo; run: SimCheckRun; sender: SimUser };

export const DEFAULT_REVIEWER: SimUser = { login: 'octo-reviewer', id: 583231, type: 'User' };
const CI_APP: SimUser = { login: 'ci-bot[bot]', id: 41898282, type: 'Bot' };

export function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class ScmhostState {
  readonly users = new Map<string, SimUser>();
  readonly repos = new Map<string, SimRepo>();
  readonly pulls = new Map<string, SimPull[]>();
  readonly issueComments: Array<SimIssueComment & { repo: string }> = [];
  readonly reviews: Array<SimReview & { repo: string }> = [];
  readonly reviewComments: Array<SimReviewComment & { repo: string }> = [];
  readonly checkRuns: Array<SimCheckRun & { repo: string }> = [];
  // --- planning: repository files (read by the model's read-only tools) ---
  /** Files of each repository's default branch, by lower-case full name, then path. */
  readonly files = new Map<string, Map<string, string>>();
  // --- end planning ---
  private nextId = 1_000;
  private readonly listeners: Array<(event: ScmhostSimEvent) => void> = [];

  onEvent(listener: (event: ScmhostSimEvent) => void): void {
    this.listeners.push(listener);
  }

  private emit(event: ScmhostSimEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  id(): number {
    return this.nextId++;
  }

  user(login: string, type: 'User' | 'Bot' = 'User'): SimUser {
    const existing = this.users.get(login);
    if (existing) return existing;
    const user: SimUser = { login, id: this.id(), type };
    this.users.set(login, user);
    return user;
  }

  createRepository(fullName: string, options: { defaultBranch?: string; private?: boolean; headSha?: string } = {}): SimRepo {
    const existing = this.repos.get(fullName.toLowerCase());
    if (existing) return existing;
    const [owner = '', name = ''] = fullName.split('/');
    const defaultBranch = options.defaultBranch ?? 'main';
    const repo: SimRepo = {
      id: this.id(),
      owner: this.user(owner),
      name,
      defaultBranch,
      private: options.private ?? true,
      fork: false,
      branches: new Map([[defaultBranch, options.headSha ?? fakeSha(`${fullName}:${defaultBranch}`)]]),
      createdAt: now(),
      nextNumber: 1,
    };
    this.repos.set(fullName.toLowerCase(), repo);
    this.pulls.set(fullName.toLowerCase(), []);
    return repo;
  }

  repo(owner: string, name: string): SimRepo {
    const repo = this.repos.get(`${owner}/${name}`.toLowerCase());
    if (!repo) throw new ScmhostSimError(404, 'Not Found');
    return repo;
  }

  // --- planning: repository files ---
  /** Puts a file on the repository's default branch (what a test sets up as the code the model may read). */
  putFile(repo: SimRepo, path: string, content: string): void {
    const key = this.fullName(repo).toLowerCase();
    const files = this.files.get(key) ?? new Map<string, string>();
    files.set(path.replace(/^\/+/, ''), content);
    this.files.set(key, files);
  }

  filesOf(repo: SimRepo): Map<string, string> {
    return this.files.get(this.fullName(repo).toLowerCase()) ?? new Map();
  }
  // --- end planning ---

  fullName(repo: SimRepo): string {
    return `${repo.owner.login}/${repo.name}`;
  }

  fork(repo: SimRepo, owner: SimUser): SimRepo {
    const fullName = `${owner.login}/${repo.name}`;
    const existing = this.repos.get(fullName.toLowerCase());
    if (existing) return existing;
    const fork = this.createRepository(fullName, { defaultBranch: repo.defaultBranch, headSha: repo.branches.get(repo.defaultBranch) });
    fork.fork = true;
    fork.parentFullName = this.fullName(repo);
    return fork;
  }

  createBranch(repo: SimRepo, branch: string, sha: string): void {
    if (repo.branches.has(branch)) throw new ScmhostSimError(422, 'Reference already exists');
    if (!/^[0-9a-f]{40}$/.test(sha)) throw new ScmhostSimError(422, 'Object does not exist');
    repo.branches.set(branch, sha);
  }

  /** A push (by the service's git effect or a person): moves the branch and synchronizes open PRs on it. */
  pushBranch(repo: SimRepo, branch: string, sha: string = fakeSha(`${this.fullName(repo)}:${branch}:${this.id()}`), sender: SimUser = repo.owner): string {
    repo.branches.set(branch, sha);
    for (const [key, pulls] of this.pulls) {
      for (const pull of pulls) {
        if (pull.state === 'open' && pull.headRepo === repo && pull.headRef === branch && pull.headSha !== sha) {
          const before = pull.headSha;
          pull.headSha = sha;
          pull.updatedAt = now();
          const base = this.repos.get(key);
          if (base) this.emit({ event: 'pull_request', action: 'synchronize', repo: base, pull, sender, before, after: sha });
        }
      }
    }
    return sha;
  }

  pullsOf(repo: SimRepo): SimPull[] {
    return this.pulls.get(this.fullName(repo).toLowerCase()) ?? [];
  }

  pull(repo: SimRepo, number: number): SimPull {
    const pull = this.pullsOf(repo).find((p) => p.number === number);
    if (!pull) throw new ScmhostSimError(404, 'Not Found');
    return pull;
  }

  createPull(repo: SimRepo, input: { title: string; body?: string; head: string; base: string; draft?: boolean }, user: SimUser): SimPull {
    const [headOwner, headBranch] = input.head.includes(':') ? input.head.split(':', 2) as [string, string] : [repo.owner.login, input.head];
    const headRepo = headOwner.toLowerCase() === repo.owner.login.toLowerCase()
      ? repo
      : [...this.repos.values()].find((r) => r.owner.login.toLowerCase() === headOwner.toLowerCase() && r.parentFullName === this.fullName(repo));
    const invalid = (field: string) => new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequest', field, code: 'invalid' }]);
    if (!input.title?.trim()) throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
    if (!headRepo || !headRepo.branches.has(headBranch)) throw invalid('head');
    if (!repo.branches.has(input.base)) throw invalid('base');
    const existing = this.pullsOf(repo).find((p) => p.state === 'open' && p.headRepo === headRepo && p.headRef === headBranch);
    if (existing) {
      throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${headOwner}:${headBranch}.` }]);
    }
    const headSha = headRepo.branches.get(headBranch) ?? '';
    if (headSha === repo.branches.get(input.base)) {
      throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: `No commits between ${input.base} and ${headBranch}` }]);
    }
    const time = now();
    const pull: SimPull = {
      id: this.id(),
      number: repo.nextNumber++,
      title: input.title,
      body: input.body ?? '',
      state: 'open',
      draft: input.draft ?? false,
      merged: false,
      headRef: headBranch,
      headSha,
      headRepo,
      baseRef: input.base,
      baseSha: repo.branches.get(input.base) ?? '',
      user,
      createdAt: time,
      updatedAt: time,
    };
    this.pullsOf(repo).push(pull);
    this.emit({ event: 'pull_request', action: 'opened', repo, pull, sender: user });
    return pull;
  }

  updatePull(repo: SimRepo, pull: SimPull, changes: { title?: string; body?: string; state?: 'open' | 'closed' }, user: SimUser): SimPull {
    if (changes.title !== undefined && !changes.title.trim()) throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
    const previous = {
      ...(changes.title !== undefined && changes.title !== pull.title ? { title: { from: pull.title } } : {}),
      ...(changes.body !== undefined && changes.body !== pull.body ? { body: { from: pull.body } } : {}),
    };
    const edited = Object.keys(previous).length > 0;
    if (changes.title !== undefined) pull.title = changes.title;
    if (changes.body !== undefined) pull.body = changes.body;
    pull.updatedAt = now();
    if (changes.state && changes.state !== pull.state) {
      if (pull.merged) throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: 'Cannot change the state of a merged pull request.' }]);
      pull.state = changes.state;
      pull.closedAt = changes.state === 'closed' ? pull.updatedAt : undefined;
      this.emit({ event: 'pull_request', action: changes.state === 'closed' ? 'closed' : 'reopened', repo, pull, sender: user });
    } else if (edited) {
      this.emit({ event: 'pull_request', action: 'edited', repo, pull, sender: user, changes: previous });
    }
    return pull;
  }

  /**
   * A person merges the PR: the base branch moves to `mergeCommitSha` and `pull_request closed` (merged) fires. The
   * simulator's merge route passes the merge commit it wrote in git; a test that drives the state alone gets a
   * made-up sha that git does not have.
   */
  mergePull(repo: SimRepo, number: number, user: SimUser = DEFAULT_REVIEWER, mergeCommitSha?: string): SimPull {
    const pull = this.pull(repo, number);
    if (pull.state !== 'open') throw new ScmhostSimError(405, 'Pull Request is not mergeable', undefined, MERGE_DOCS);
    const time = now();
    pull.state = 'closed';
    pull.merged = true;
    pull.mergedAt = time;
    pull.closedAt = time;
    pull.updatedAt = time;
    pull.mergedBy = user;
    pull.mergeCommitSha = mergeCommitSha ?? fakeSha(`merge:${pull.id}`);
    repo.branches.set(pull.baseRef, pull.mergeCommitSha);
    this.emit({ event: 'pull_request', action: 'closed', repo, pull, sender: user });
    return pull;
  }

  addIssueComment(repo: SimRepo, number: number, body: string, user: SimUser = DEFAULT_REVIEWER): SimIssueComment {
    const pull = this.pull(repo, number);
    if (!body?.trim()) throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'IssueComment', field: 'body', code: 'missing_field' }]);
    if (body.length > 65_536) throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }]);
    const time = now();
    const comment = { id: this.id(), number, body, user, createdAt: time, updatedAt: time };
    this.issueComments.push({ ...comment, repo: this.fullName(repo) });
    this.emit({ event: 'issue_comment', action: 'created', repo, pull, comment, sender: user });
    return comment;
  }

  /** A review with optional line comments; state APPROVED, CHANGES_REQUESTED or COMMENTED. */
  submitReview(repo: SimRepo, number: number, input: { state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED'; body?: string; commitId?: string; comments?: Array<{ path: string; line: number; body: string }> }, user: SimUser = DEFAULT_REVIEWER): SimReview {
    const pull = this.pull(repo, number);
    if (input.state !== 'APPROVED' && !input.body?.trim() && !input.comments?.length) {
      throw new ScmhostSimError(422, 'Unprocessable Entity', ['Review body is required for this event.']);
    }
    const time = now();
    const review: SimReview = { id: this.id(), number, state: input.state, body: input.body ?? '', commitId: input.commitId ?? pull.headSha, user, submittedAt: time };
    this.reviews.push({ ...review, repo: this.fullName(repo) });
    for (const c of input.comments ?? []) {
      this.reviewComments.push({ id: this.id(), number, reviewId: review.id, body: c.body, path: c.path, line: c.line, commitId: review.commitId, user, createdAt: time, updatedAt: time, repo: this.fullName(repo) });
    }
    this.emit({ event: 'pull_request_review', action: 'submitted', repo, pull, review, sender: user });
    return review;
  }

  replyToReviewComment(repo: SimRepo, number: number, commentId: number, body: string, user: SimUser): SimReviewComment {
    const pull = this.pull(repo, number);
    const target = this.reviewComments.find((c) => c.id === commentId && c.number === number && c.repo === this.fullName(repo));
    if (!target) throw new ScmhostSimError(404, 'Not Found');
    const rootId = target.inReplyToId ?? target.id;
    const time = now();
    // A reply creates a one-comment review of its own on GitHub.
    const review: SimReview = { id: this.id(), number, state: 'COMMENTED', body: '', commitId: pull.headSha, user, submittedAt: time };
    this.reviews.push({ ...review, repo: this.fullName(repo) });
    const reply: SimReviewComment = { id: this.id(), number, reviewId: review.id, inReplyToId: rootId, body, path: target.path, line: target.line, commitId: pull.headSha, user, createdAt: time, updatedAt: time };
    this.reviewComments.push({ ...reply, repo: this.fullName(repo) });
    return reply;
  }

  /** CI reports a check run; a completed one fires `check_run completed`. */
  reportCheckRun(repo: SimRepo, input: { name: string; headSha: string; status?: 'queued' | 'in_progress' | 'completed'; conclusion?: string | null; summary?: string; text?: string }): SimCheckRun {
    const status = input.status ?? 'completed';
    const time = now();
    const existing = this.checkRuns.find((r) => r.repo === this.fullName(repo) && r.headSha === input.headSha && r.name === input.name);
    const run: SimCheckRun & { repo: string } = existing ?? {
      id: this.id(), name: input.name, headSha: input.headSha, status, conclusion: null, startedAt: time, completedAt: null,
      output: { title: null, summary: null, text: null }, repo: this.fullName(repo),
    };
    run.status = status;
    run.conclusion = status === 'completed' ? input.conclusion ?? 'success' : null;
    run.completedAt = status === 'completed' ? time : null;
    run.output = { title: input.name, summary: input.summary ?? null, text: input.text ?? null };
    if (!existing) this.checkRuns.push(run);
    this.emit({ event: 'check_run', action: status === 'completed' ? 'completed' : 'created', repo, run, sender: CI_APP });
    return run;
  }

  snapshot(): ScmhostSnapshot {
    return structuredClone({
      version: 1,
      nextId: this.nextId,
      users: [...this.users.values()],
      repos: [...this.repos.values()].map((repo) => ({ ...repo, branches: [...repo.branches] })),
      pulls: [...this.pulls].map(([repo, pulls]) => ({ repo, pulls: pulls.map((pull) => ({ ...pull, headRepo: this.fullName(pull.headRepo) })) })),
      issueComments: this.issueComments,
      reviews: this.reviews,
      reviewComments: this.reviewComments,
      checkRuns: this.checkRuns,
      files: [...this.files].map(([repo, files]) => [repo, [...files]]),
    });
  }

  /** Replaces everything with a snapshot (before the simulator serves anyone: no events fire). */
  restore(snapshot: ScmhostSnapshot): void {
    if (snapshot.version !== 1) throw new Error(`source-host simulator state version ${String(snapshot.version)} is not supported`);
    const copy = structuredClone(snapshot);
    this.nextId = copy.nextId;
    this.users.clear();
    for (const user of copy.users) this.users.set(user.login, user);
    this.repos.clear();
    for (const repo of copy.repos) this.repos.set(`${repo.owner.login}/${repo.name}`.toLowerCase(), { ...repo, branches: new Map(repo.branches) });
    this.pulls.clear();
    for (const { repo, pulls } of copy.pulls) {
      this.pulls.set(repo, pulls.map((pull) => {
        const headRepo = this.repos.get(pull.headRepo.toLowerCase());
        if (!headRepo) throw new Error(`source-host simulator state: pull request ${repo}#${pull.number} names an unknown head repository ${pull.headRepo}`);
        return { ...pull, headRepo };
      }));
    }
    this.files.clear();
    for (const [repo, files] of copy.files ?? []) this.files.set(repo, new Map(files));
    for (const [list, saved] of [[this.issueComments, copy.issueComments], [this.reviews, copy.reviews], [this.reviewComments, copy.reviewComments], [this.checkRuns, copy.checkRuns]] as const) {
      list.length = 0;
      (list as unknown[]).push(...saved);
    }
  }

  openPullsForSha(repo: SimRepo, sha: string): SimPull[] {
    return this.pullsOf(repo).filter((pull) => pull.state === 'open' && pull.headSha === sha);
  }
}
