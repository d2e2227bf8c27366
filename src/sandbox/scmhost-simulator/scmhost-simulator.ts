/**
 * A GitHub look-alike for tests and `service dev --sandbox`: the REST endpoints the source-host client uses, kept
 * in memory, with GitHub's status codes and error bodies, token checks, signed webhooks on every change (headers
 * of SPEC 4.3), and faults on demand, including GitHub's primary and secondary rate-limit answers.
 */
import express, { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { FaultInjector, createFaultInjector } from '../fault-injector';
import { serveSimulator } from '../listen';
import { WebhookSender, WebhookTarget, createWebhookSender, hmacSha256Hex } from '../webhook-sender';
import { GitHubJson, SimUser, type PullRequestSize, type SimPull, type SimRepo } from './github-json';
import { ScmhostSimError, ScmhostState, fakeSha, type ScmhostSnapshot } from './scmhost-state';
import { githubWebhookPayload, pullStats, setPullRequestCounters } from './scmhost-webhook-payloads';
import { createGitSmartHttp, type GitSmartHttp } from './git-smart-http';
import { GitCommandError } from './bare-repository';
import { registerGitContentRoutes } from './git-content-routes';
import { checkStateAgainstGit, type GitStateCheck } from './git-state-check';
import { PullRequestGit, type PullRequestMoment } from './pull-request-git';
import { registerPullRequestPages } from './pull-request-page';
import { n, p, page } from './route-params';
import { tokenLogin } from './person-tokens';

export interface ScmhostSimulatorOptions {
  port?: number;
  host?: string;
  /** The gateway's /api/v1/webhooks/scmhost and the secret to sign with. */
  webhook?: WebhookTarget;
  /** Accepted tokens and the login each one acts as. When unset, any token acts as `service-bot`. */
  tokens?: Record<string, string>;
  /**
   * With `tokens`: the secret of the person tokens (person-tokens.ts) the sandbox hands `service sandbox ... --as`;
   * each acts as its own login, never as one of `tokens`' logins.
   */
  personTokenSecret?: string;
  /** Repositories (`owner/name`) created at start, with a `main` branch. */
  repositories?: string[];
  /**
   * Folder for the bare repositories served over git smart HTTP (`<gitRoot>/<owner>/<name>.git`), kept across
   * restarts; a temporary one, removed on close, by default.
   */
  gitRoot?: string;
  /** State of an earlier run (`scmhost.json`), restored before anyone is served and checked against `gitRoot`. */
  restore?: ScmhostSnapshot;
}

export interface ScmhostSimulator {
  /** The REST API root (what the client's baseUrl should be). */
  url: string;
  state: ScmhostState;
  faults: FaultInjector;
  webhooks: WebhookSender;
  /** Git over smart HTTP at `<url>/<owner>/<repo>.git` (token as the Basic password). */
  git: GitSmartHttp;
  /** Pull requests' commits, files and diffs read from git, and the merge button. */
  pulls: PullRequestGit;
  /** With `restore`: where the restored state and the git repositories disagreed (empty otherwise). */
  gitCheck: GitStateCheck;
  close(): Promise<void>;
}

const DOCS = 'https://docs.github.com/rest';

function githubError(status: number, message: string): unknown {
  // GitHub answers every 429 with its rate-limit wording; clients key their waiting on it.
  const text = status === 429 ? 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' : message;
  return { message: text, documentation_url: DOCS, status: String(status) };
}

export async function startScmhostSimulator(options: ScmhostSimulatorOptions = {}): Promise<ScmhostSimulator> {
  let url = '';
  const state = new ScmhostState();
  const json = new GitHubJson(() => url, () => url.replace(/\/api\/v3$/, ''));
  if (options.restore) state.restore(options.restore);
  const restored = [...state.repos.keys()];
  for (const name of options.repositories ?? []) state.createRepository(name);
  const faults = createFaultInjector(githubError);
  const webhooks = createWebhookSender(options.webhook);
  let hookId = 1;

  state.onEvent((event) => {
    const payload = githubWebhookPayload(state, json, event);
    // A pull_request body carries the pull request's counters as git has them at the event; git answers later, so
    // the body is completed before it is signed and sent (in order with the others).
    const ready = event.event === 'pull_request' ? withGitCounters(payload, event.repo, event.pull, momentOf(event.repo, event.pull)) : undefined;
    webhooks.send(event.event, payload, (body, deliveryId) => {
      const secret = webhooks.target?.secret;
      return {
        'x-github-event': event.event,
        'x-scmhost-event': event.event,
        'x-github-delivery': deliveryId,
        'x-github-hook-id': String(hookId++),
        'user-agent': 'GitHub-Hookshot/simulator',
        ...(secret ? { 'x-hub-signature-256': `sha256=${hmacSha256Hex(secret, body)}` } : {}),
      };
    }, ready);
  });

  const app = express();
  app.disable('x-powered-by');
  const loginOf = tokenLogin(options);
  const git = createGitSmartHttp({
    root: options.gitRoot,
    tokens: loginOf,
    defaultBranchOf: (fullName) => state.repos.get(fullName.toLowerCase())?.defaultBranch,
    parentOf: (fullName) => state.repos.get(fullName.toLowerCase())?.parentFullName,
    onBranches: (fullName, heads, login) => {
      const repo = state.repos.get(fullName.toLowerCase());
      for (const head of heads) if (repo && repo.branches.get(head.branch) !== head.sha) state.pushBranch(repo, head.branch, head.sha, state.user(login));
    },
  });
  const pulls = new PullRequestGit(state, (fullName) => git.repositoryPath(fullName));
  // Like GitHub, the base repository keeps each pull request's head at refs/pull/<n>/head as soon as it is opened or
  // pushed to, so its commits stay there when the branch is force-pushed or deleted (in the background: a head only
  // the state knows has nothing to keep).
  state.onEvent((event) => {
    if (event.event === 'pull_request' && event.action !== 'closed') void pulls.ensureHead(event.repo, event.pull).catch(() => undefined);
  });
  // Before any git repository is created: a missing one must be reported, not replaced silently.
  const gitCheck = options.restore
    ? await checkStateAgainstGit(state, restored, (fullName) => git.existingRepositoryPath(fullName), (fullName) => `${options.gitRoot ?? 'the git folder'}/${fullName.toLowerCase()}.git`)
    : { problems: [], followed: [] };
  // The repositories exist in git from the start, so the REST API's `main` is a commit git has.
  for (const name of options.repositories ?? []) git.repositoryPath(name);
  // Faults apply to git over smart HTTP too (a push applied and then no answer), before its own Basic auth.
  app.use((req: Request, res: Response, next: NextFunction) => (req.path.includes('.git/') ? faults.middleware(req, res, next) : next()));
  app.use(git.handler);
  // The web page of a pull request (its html_url), readable from loopback without a token.
  registerPullRequestPages(app, { state, pulls, tokens: loginOf });
  app.use((_req, res, next) => {
    res.setHeader('x-github-request-id', randomUUID().toUpperCase());
    res.setHeader('x-github-api-version-selected', '2022-11-28');
    res.setHeader('x-ratelimit-limit', '5000');
    res.setHeader('x-ratelimit-remaining', '4999');
    next();
  });
  app.use(express.json({ limit: '5mb' }));
  app.use((req: Request, res: Response, next: NextFunction) => {
    const match = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const token = match?.[1];
    const login = token ? loginOf(token) : undefined;
    if (!login) {
      res.status(401).json({ message: token ? 'Bad credentials' : 'Requires authentication', documentation_url: DOCS, status: '401' });
      return;
    }
    res.locals.user = state.user(login);
    next();
  });
  app.use(faults.middleware);

  const api = express.Router();
  // Same routes at the root (github.com style) and under /api/v3 (Enterprise style).
  app.use('/api/v3', api);
  app.use('/', api);
  const me = (res: Response): SimUser => res.locals.user as SimUser;
  const repoOf = (req: Request) => state.repo(p(req, 'owner'), p(req, 'repo'));

  api.get('/user', (_req, res) => { res.json(json.authenticatedUser(me(res))); });
  registerGitContentRoutes(api, { state, json, pulls });

  api.get('/repos/:owner/:repo', (req, res) => {
    const repo = repoOf(req);
    const [owner = '', name = ''] = repo.parentFullName?.split('/') ?? [];
    res.json(json.fullRepository(repo, repo.parentFullName ? state.repo(owner, name) : undefined));
  });

  api.post('/repos/:owner/:repo/forks', (req, res) => {
    const repo = repoOf(req);
    const organization = (req.body as { organization?: string } | undefined)?.organization;
    const fork = state.fork(repo, organization ? state.user(organization) : me(res));
    res.status(202).json(json.fullRepository(fork, repo));
  });

  api.get('/repos/:owner/:repo/branches/:branch', (req, res) => {
    const repo = repoOf(req);
    const sha = repo.branches.get(p(req, 'branch'));
    if (!sha) throw new ScmhostSimError(404, 'Branch not found');
    res.json(json.branch(repo, p(req, 'branch'), sha));
  });

  api.post('/repos/:owner/:repo/git/refs', (req, res) => {
    const repo = repoOf(req);
    const body = (req.body ?? {}) as { ref?: string; sha?: string };
    if (!body.ref?.startsWith('refs/') || body.ref.split('/').length < 3) throw new ScmhostSimError(422, 'Reference name must start with \'refs/\' and have at least two slashes.');
    const branch = body.ref.replace(/^refs\/heads\//, '');
    state.createBranch(repo, branch, body.sha ?? '');
    res.status(201).json({ ref: body.ref, node_id: 'REF_sim', url: `${url}/repos/${state.fullName(repo)}/git/${body.ref}`, object: { sha: body.sha, type: 'commit', url: `${url}/repos/${state.fullName(repo)}/git/commits/${body.sha}` } });
  });

  api.get('/repos/:owner/:repo/pulls', (req, res) => {
    const repo = repoOf(req);
    const wantedState = String(req.query.state ?? 'open');
    const head = typeof req.query.head === 'string' ? req.query.head : undefined;
    let pulls = state.pullsOf(repo).filter((pull) => wantedState === 'all' || pull.state === wantedState);
    if (head) {
      const [owner, branch] = head.includes(':') ? head.split(':', 2) : [repo.owner.login, head];
      pulls = pulls.filter((pull) => pull.headRepo.owner.login.toLowerCase() === owner?.toLowerCase() && pull.headRef === branch);
    }
    if (typeof req.query.base === 'string') pulls = pulls.filter((pull) => pull.baseRef === req.query.base);
    pulls = [...pulls].sort((a, b) => b.number - a.number);
    if (req.query.direction === 'asc') pulls.reverse();
    // Lists carry GitHub's pull-request-simple: no merged, mergeable or counters (read those from a single PR).
    res.json(page(req, res, pulls).map((pull) => json.pullRequestSimple(repo, pull)));
  });

  api.post('/repos/:owner/:repo/pulls', (req, res) => {
    const repo = repoOf(req);
    const body = (req.body ?? {}) as { title?: string; body?: string; head?: string; base?: string; draft?: boolean };
    const pull = state.createPull(repo, { title: body.title ?? '', body: body.body, head: body.head ?? '', base: body.base ?? '', draft: body.draft }, me(res));
    res.status(201).json(json.pullRequest(repo, pull, pullStats(state, repo, pull)));
  });

  // What a person or a CI app does (the sandbox's `service sandbox merge|check`); the service itself never merges.
  // The merge is a real commit on the base branch in git, as GitHub's merge button makes one.
  api.put('/repos/:owner/:repo/pulls/:number/merge', async (req, res) => {
    const repo = repoOf(req);
    const body = (req.body ?? {}) as { merge_method?: string; sha?: string; commit_title?: string; commit_message?: string };
    const pull = await pulls.merge(repo, n(req), { method: body.merge_method, sha: body.sha, title: body.commit_title, message: body.commit_message }, me(res));
    res.json({ sha: pull.mergeCommitSha, merged: true, message: 'Pull Request successfully merged' });
  });

  api.post('/repos/:owner/:repo/check-runs', (req, res) => {
    const repo = repoOf(req);
    const body = (req.body ?? {}) as { name?: string; head_sha?: string; status?: 'queued' | 'in_progress' | 'completed'; conclusion?: string; output?: { summary?: string; text?: string } };
    if (!body.name || !body.head_sha) throw new ScmhostSimError(422, 'Unprocessable Entity', ['name and head_sha are required']);
    const run = state.reportCheckRun(repo, { name: body.name, headSha: body.head_sha, status: body.status, conclusion: body.conclusion, summary: body.output?.summary, text: body.output?.text });
    res.status(201).json(json.checkRun(repo, run, state.openPullsForSha(repo, run.headSha)));
  });

  api.get('/repos/:owner/:repo/pulls/:number', async (req, res) => {
    const repo = repoOf(req);
    const pull = state.pull(repo, n(req));
    const mergeable = await pulls.mergeableOnRead(repo, pull);
    res.json(json.pullRequest(repo, pull, { ...pullStats(state, repo, pull), size: await sizeOf(repo, pull), mergeable }));
  });

  api.patch('/repos/:owner/:repo/pulls/:number', (req, res) => {
    const repo = repoOf(req);
    const pull = state.updatePull(repo, state.pull(repo, n(req)), (req.body ?? {}) as { title?: string; body?: string; state?: 'open' | 'closed' }, me(res));
    res.json(json.pullRequest(repo, pull, pullStats(state, repo, pull)));
  });

  api.get('/repos/:owner/:repo/issues/:number/comments', (req, res) => {
    const repo = repoOf(req);
    state.pull(repo, n(req));
    const comments = state.issueComments.filter((c) => c.repo === state.fullName(repo) && c.number === n(req));
    res.json(page(req, res, comments).map((c) => json.issueComment(repo, c)));
  });

  api.post('/repos/:owner/:repo/issues/:number/comments', (req, res) => {
    const repo = repoOf(req);
    const comment = state.addIssueComment(repo, n(req), String((req.body as { body?: string } | undefined)?.body ?? ''), me(res));
    res.status(201).json(json.issueComment(repo, comment));
  });

  api.get('/repos/:owner/:repo/pulls/:number/reviews', (req, res) => {
    const repo = repoOf(req);
    state.pull(repo, n(req));
    const reviews = state.reviews.filter((r) => r.repo === state.fullName(repo) && r.number === n(req));
    res.json(page(req, res, reviews).map((r) => json.review(repo, r)));
  });

  api.post('/repos/:owner/:repo/pulls/:number/reviews', (req, res) => {
    const repo = repoOf(req);
    const body = (req.body ?? {}) as { event?: string; body?: string; commit_id?: string; comments?: Array<{ path: string; line: number; body: string }> };
    const states: Record<string, 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED'> = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' };
    const reviewState = states[String(body.event ?? '')];
    if (!reviewState) throw new ScmhostSimError(422, 'Unprocessable Entity', [`Invalid event: ${String(body.event)}`]);
    const pull = state.pull(repo, n(req));
    if (pull.user.login === me(res).login && reviewState !== 'COMMENTED') {
      // This endpoint's 422 lists its reasons as plain strings (GitHub's validation-error-simple).
      throw new ScmhostSimError(422, 'Unprocessable Entity', ['Can not approve your own pull request']);
    }
    const review = state.submitReview(repo, n(req), { state: reviewState, body: body.body, commitId: body.commit_id, comments: body.comments }, me(res));
    res.json(json.review(repo, review));
  });

  api.get('/repos/:owner/:repo/pulls/:number/comments', (req, res) => {
    const repo = repoOf(req);
    state.pull(repo, n(req));
    const comments = state.reviewComments.filter((c) => c.repo === state.fullName(repo) && c.number === n(req));
    res.json(page(req, res, comments).map((c) => json.reviewComment(repo, c)));
  });

  api.post('/repos/:owner/:repo/pulls/:number/comments/:commentId/replies', (req, res) => {
    const repo = repoOf(req);
    const body = String((req.body as { body?: string } | undefined)?.body ?? '');
    if (!body.trim()) throw new ScmhostSimError(422, 'Validation Failed', [{ resource: 'PullRequestReviewComment', field: 'body', code: 'missing_field' }]);
    const reply = state.replyToReviewComment(repo, n(req), Number(p(req, 'commentId')), body, me(res));
    res.status(201).json(json.reviewComment(repo, reply));
  });

  // --- planning: repository files (git trees and contents, default branch only) ---
  api.get('/repos/:owner/:repo/git/trees/:ref', (req, res) => {
    const repo = repoOf(req);
    const files = [...state.filesOf(repo)].sort(([a], [b]) => a.localeCompare(b));
    const directories = new Set(files.flatMap(([path]) => path.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
    const recursive = req.query.recursive !== undefined && req.query.recursive !== '0' && req.query.recursive !== 'false';
    const entries = [
      ...[...directories].map((path) => ({ path, mode: '040000', type: 'tree', sha: fakeSha(`tree:${path}`) })),
      ...files.map(([path, content]) => ({ path, mode: '100644', type: 'blob', sha: fakeSha(`blob:${content}`), size: Buffer.byteLength(content) })),
    ].filter((entry) => recursive || !entry.path.includes('/')).sort((a, b) => a.path.localeCompare(b.path));
    res.json({ sha: repo.branches.get(repo.defaultBranch) ?? fakeSha(p(req, 'ref')), url: `${url}${req.originalUrl}`, tree: entries, truncated: false });
  });

  api.get('/repos/:owner/:repo/contents/*path', (req, res) => {
    const repo = repoOf(req);
    const path = p(req, 'path');
    const content = state.filesOf(repo).get(path);
    if (content === undefined) throw new ScmhostSimError(404, 'Not Found');
    const sha = fakeSha(`blob:${content}`);
    const self = `${url}/repos/${repo.owner.login}/${repo.name}/contents/${path}`;
    const html = `${url.replace(/\/api\/v3$/, '')}/${repo.owner.login}/${repo.name}/blob/${repo.defaultBranch}/${path}`;
    const git = `${url}/repos/${repo.owner.login}/${repo.name}/git/blobs/${sha}`;
    res.json({
      type: 'file', encoding: 'base64', size: Buffer.byteLength(content), name: path.split('/').pop(), path,
      content: Buffer.from(content).toString('base64').replace(/(.{60})/g, '$1\n'), sha,
      url: self, html_url: html, git_url: git, download_url: `${url.replace(/\/api\/v3$/, '')}/raw/${repo.owner.login}/${repo.name}/${repo.defaultBranch}/${path}`,
      _links: { self, git, html },
    });
  });
  // --- end planning ---

  api.get('/repos/:owner/:repo/commits/:ref/check-runs', (req, res) => {
    const repo = repoOf(req);
    const ref = p(req, 'ref');
    const sha = repo.branches.get(ref) ?? ref;
    const runs = state.checkRuns.filter((r) => r.repo === state.fullName(repo) && r.headSha === sha);
    res.json({ total_count: runs.length, check_runs: page(req, res, runs).map((r) => json.checkRun(repo, r, state.openPullsForSha(repo, sha))) });
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ message: 'Not Found', documentation_url: DOCS, status: '404' });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof ScmhostSimError) {
      res.status(error.status).json({ message: error.message, ...(error.errors ? { errors: error.errors } : {}), documentation_url: error.documentationUrl ?? DOCS, status: String(error.status) });
      return;
    }
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500) {
      res.status(400).json({ message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' });
      return;
    }
    res.status(500).json({ message: `Server Error: ${error instanceof Error ? error.message : String(error)}`, documentation_url: DOCS, status: '500' });
  });

  /**
   * The counters of a single pull request as git has them; undefined when git lacks its head or base (a test that
   * drives the state alone), so the JSON answer never fails over its counters.
   */
  async function sizeOf(repo: SimRepo, pull: SimPull): Promise<PullRequestSize | undefined> {
    if (!(await pulls.ensureHead(repo, pull))) return undefined;
    try {
      const content = await pulls.content(repo, pull);
      const sum = (key: 'additions' | 'deletions') => content.files.reduce((total, file) => total + file[key], 0);
      return { commits: content.commits.length, additions: sum('additions'), deletions: sum('deletions'), changedFiles: content.files.length };
    } catch (error) {
      if (error instanceof ScmhostSimError || error instanceof GitCommandError) return undefined;
      throw error;
    }
  }

  /** Where the pull request stands as an event is emitted (the state changes on before git is read). */
  function momentOf(repo: SimRepo, pull: SimPull): PullRequestMoment {
    return { headSha: pull.headSha, baseSha: repo.branches.get(pull.baseRef) ?? pull.baseSha, mergeCommitSha: pull.merged ? pull.mergeCommitSha : undefined };
  }

  /** Writes the counters of that moment into a pull_request webhook body; leaves them when git lacks the commits. */
  async function withGitCounters(payload: Record<string, unknown>, repo: SimRepo, pull: SimPull, moment: PullRequestMoment): Promise<void> {
    const counters = await pulls.countersAt(repo, pull, moment).catch((error: unknown) => {
      if (error instanceof ScmhostSimError || error instanceof GitCommandError) return undefined;
      throw error;
    });
    if (counters) setPullRequestCounters(payload, counters);
  }

  const served = await serveSimulator(app, options, { faults, webhooks });
  url = served.url;
  return { url, state, faults, webhooks, git, pulls, gitCheck, close: async () => { await served.close(); git.close(); } };
}
