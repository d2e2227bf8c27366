/**
 * GitHub REST client for the source host, on @octokit/core with the retry and throttling plugins. Reads are
 * retried on 5xx and network errors; writes are never repeated after an ambiguous failure (the effect journal
 * reconciles them by PR head branch or comment marker). Primary and secondary rate limits are waited out when the
 * provider's Retry-After (or reset time) is short, and surfaced as typed retryable errors otherwise.
 *
 * @octokit/core is ESM-only; it is loaded with import() so this CommonJS module works on every Node 20.
 */
import type { Octokit } from '@octokit/core' with { 'resolution-mode': 'import' };
import type { LatencyHook } from '../http/json-http-client';
import {
  ProviderError,
  RetryableProviderError,
  providerErrorForStatus,
} from '../provider-errors';
import { parseRetryAfterMs, sleep } from '../retry-policy';
import { cachedIdentity, sameLogin, serviceIdentityUnknown } from '../own-writes';
import { idempotencyKeyOf, withIdempotencyMarker } from './idempotency-marker';
import type {
  Branch,
  CheckRun,
  IssueComment,
  MergeState,
  PullRequest,
  RepoRef,
  Repository,
  Review,
  ReviewComment,
  ReviewState,
  ReviewThread,
} from './scmhost-types';

export interface ScmhostClientOptions {
  token: string;
  /**
   * The login the service writes as (SCMHOST_BOT_LOGIN), which names its own comments and reviews; when unset it is
   * the token's own login (`GET /user`, asked once). A GitHub App's installation token cannot ask, so set it there.
   */
  botLogin?: string;
  /** Default https://api.github.com; GitHub Enterprise: https://host/api/v3. */
  baseUrl?: string;
  /** Per request attempt; default 30 s. */
  timeoutMs?: number;
  /** Retries of reads after 5xx and network errors; default 3. */
  readRetries?: number;
  /** Base of the read retry backoff ((n+1)^2 x base); default 1000 ms. */
  retryBaseMs?: number;
  /** Rate-limit waits: at most this many per request, each at most maxRateLimitWaitSeconds; longer waits surface. */
  maxRateLimitRetries?: number;
  maxRateLimitWaitSeconds?: number;
  /**
   * Minimum spacing of writes, as GitHub asks of integrations to avoid secondary limits; default 1000 ms.
   * Tests and the sandbox set 0.
   */
  writeSpacingMs?: number;
  onLatency?: LatencyHook;
  userAgent?: string;
  fetch?: typeof fetch;
}

export function scmhostOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ScmhostClientOptions {
  const token = env.SCMHOST_TOKEN?.trim();
  if (!token) throw new Error('Source-host client is not configured: set SCMHOST_TOKEN');
  return { token, ...(env.SCMHOST_API_URL?.trim() ? { baseUrl: env.SCMHOST_API_URL.trim() } : {}) };
}

export async function createScmhostClient(options: ScmhostClientOptions): Promise<ScmhostClient> {
  const [{ Octokit: Core }, { retry }, { throttling }] = await Promise.all([
    import('@octokit/core'),
    import('@octokit/plugin-retry'),
    import('@octokit/plugin-throttling'),
  ]);
  const maxRetries = options.maxRateLimitRetries ?? 2;
  const maxWait = options.maxRateLimitWaitSeconds ?? 60;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const baseFetch = options.fetch ?? fetch;
  const writeSpacingMs = options.writeSpacingMs ?? 1_000;
  const wantRetry = (retryAfterSeconds: number, _request: unknown, _octokit: unknown, retryCount: number) =>
    retryCount < maxRetries && retryAfterSeconds <= maxWait;
  const Client = Core.plugin(retry, throttling);
  const octokit = new Client({
    auth: options.token,
    baseUrl: options.baseUrl ?? 'https://api.github.com',
    userAgent: options.userAgent ?? 'service-ticket-workflow',
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    request: {
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const started = performance.now();
        try {
          const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
          return await baseFetch(input, { ...init, signal });
        } finally {
          options.onLatency?.('scmhost', (performance.now() - started) / 1000);
        }
      },
    },
    // 429 is the throttling plugin's to wait out (it honours Retry-After); the retry plugin would guess.
    retry: { doNotRetry: [400, 401, 403, 404, 409, 410, 412, 422, 429, 451], retries: options.readRetries ?? 3, retryAfterBaseValue: options.retryBaseMs ?? 1_000 },
    throttle: {
      onRateLimit: wantRetry,
      onSecondaryRateLimit: wantRetry,
      // One spacing queue per client instead of the plugin's process-wide groups.
      write: writeSpacingGroup(writeSpacingMs),
      notifications: writeSpacingGroup(writeSpacingMs),
    } as never,
  });
  return new ScmhostClient(octokit as unknown as Octokit, options.token, timeoutMs, options.botLogin?.trim() || undefined);
}

/** A minimal stand-in for a Bottleneck group: spaces scheduled jobs at least `minTimeMs` apart. */
function writeSpacingGroup(minTimeMs: number) {
  let nextStart = 0;
  const limiter = {
    schedule: async (...args: unknown[]) => {
      const jobIndex = typeof args[0] === 'function' ? 0 : 1;
      const job = args[jobIndex] as (...rest: unknown[]) => unknown;
      const now = Date.now();
      const wait = Math.max(0, nextStart - now);
      nextStart = Math.max(now, nextStart) + minTimeMs;
      if (wait > 0) await sleep(wait);
      return job(...args.slice(jobIndex + 1));
    },
  };
  return { key: () => limiter };
}

interface CallOptions {
  /** A write that must not be repeated blindly. */
  write?: boolean;
}

type Data = Record<string, unknown>;

export class ScmhostClient {
  private readonly login: () => Promise<string>;

  constructor(private readonly octokit: Octokit, private readonly token: string, private readonly timeoutMs: number, botLogin?: string) {
    this.login = botLogin ? () => Promise.resolve(botLogin) : cachedIdentity(async () => (await this.getAuthenticatedUser()).login);
  }

  private async call<T = Data>(operation: string, route: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<{ status: number; data: T }> {
    try {
      const response = await this.octokit.request(route, {
        ...params,
        headers: { 'x-github-api-version': '2022-11-28' },
        ...(options.write ? { request: { retries: 0 } } : {}),
      });
      return { status: response.status, data: response.data as T };
    } catch (error) {
      throw this.toProviderError(error, operation, route, params, options.write ?? false);
    }
  }

  private toProviderError(error: unknown, operation: string, route: string, params: Record<string, unknown>, write: boolean): ProviderError {
    const [method = 'GET', template = route] = route.split(' ');
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name] ?? `{${name}}`)));
    const base = { provider: 'scmhost' as const, operation, method, path, secrets: [this.token], cause: error };
    const requestError = error as { status?: number; response?: { status: number; headers: Record<string, string | undefined>; data?: unknown }; message?: string };
    if (!requestError.response) {
      const timedOut = causeChainHas(error, (e) => e.name === 'TimeoutError' || e.name === 'AbortError');
      const notSent = causeChainHas(error, (e) => ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(String((e as { code?: unknown }).code)));
      return new RetryableProviderError(timedOut ? `timed out after ${this.timeoutMs} ms` : `network error: ${requestError.message ?? String(error)}`, {
        ...base,
        notSent,
        outcomeUnknown: write && !notSent,
      });
    }
    const { status, headers, data } = requestError.response;
    const message = typeof (data as { message?: unknown } | undefined)?.message === 'string' ? (data as { message: string }).message : undefined;
    const details = validationDetails((data as { errors?: unknown } | undefined)?.errors);
    const rateLimited = status === 429 || (status === 403 && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message ?? '')));
    let retryAfterMs = parseRetryAfterMs(headers['retry-after']);
    if (retryAfterMs === undefined && headers['x-ratelimit-remaining'] === '0' && headers['x-ratelimit-reset']) {
      retryAfterMs = Math.max(0, Number(headers['x-ratelimit-reset']) * 1000 - Date.now());
    }
    const common = {
      ...base,
      requestId: headers['x-github-request-id'],
      retryAfterMs,
      providerMessage: [message, details].filter(Boolean).join(': ') || undefined,
      outcomeUnknown: write && [500, 502, 504].includes(status),
    };
    if (rateLimited) return new RetryableProviderError('rate limited', { ...common, status });
    return providerErrorForStatus(status, common);
  }

  async getAuthenticatedUser(): Promise<{ login: string; id: number }> {
    const { data } = await this.call<{ login: string; id: number }>('getAuthenticatedUser', 'GET /user');
    return { login: data.login, id: data.id };
  }

  async getRepository(ref: RepoRef): Promise<Repository> {
    const { data } = await this.call<GitHubRepo>('getRepository', 'GET /repos/{owner}/{repo}', { ...ref });
    return toRepository(data);
  }

  /** Forks into the token owner's account (or an organization). GitHub answers 202 and creates it asynchronously. */
  async createFork(ref: RepoRef, options: { organization?: string; defaultBranchOnly?: boolean } = {}): Promise<Repository> {
    const { data } = await this.call<GitHubRepo>('createFork', 'POST /repos/{owner}/{repo}/forks', {
      ...ref,
      ...(options.organization ? { organization: options.organization } : {}),
      default_branch_only: options.defaultBranchOnly ?? true,
    });
    return toRepository(data);
  }

  async getBranch(ref: RepoRef, branch: string): Promise<Branch | undefined> {
    try {
      const { data } = await this.call<{ name: string; commit: { sha: string } }>('getBranch', 'GET /repos/{owner}/{repo}/branches/{branch}', { ...ref, branch });
      return { name: data.name, sha: data.commit.sha };
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return undefined;
      throw error;
    }
  }

  // --- planning: read-only repository files (the model's tree and file tools) ---
  /**
   * The paths of a branch's files (`ref` defaults to the default branch), from the recursive git tree. GitHub cuts
   * very large trees (`truncated`); the caller says so rather than pretending the list is complete.
   */
  async listFiles(ref: RepoRef, options: { ref?: string } = {}): Promise<{ paths: string[]; truncated: boolean }> {
    const { data } = await this.call<{ tree: Array<{ path: string; type: string }>; truncated?: boolean }>('listFiles', 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
      ...ref, tree_sha: options.ref ?? 'HEAD', recursive: '1',
    });
    return { paths: data.tree.filter((entry) => entry.type === 'blob').map((entry) => entry.path), truncated: data.truncated ?? false };
  }

  /** A file's text, or undefined when there is no such file (a directory is not a file either). */
  async readFile(ref: RepoRef, path: string, options: { ref?: string } = {}): Promise<{ text: string; size: number } | undefined> {
    try {
      const { data } = await this.call<{ type?: string; encoding?: string; content?: string; size?: number } | unknown[]>('readFile', 'GET /repos/{owner}/{repo}/contents/{path}', {
        ...ref, path, ...(options.ref ? { ref: options.ref } : {}),
      });
      if (Array.isArray(data) || data.type !== 'file' || typeof data.content !== 'string') return undefined;
      const text = data.encoding === 'base64' ? Buffer.from(data.content.replace(/\n/g, ''), 'base64').toString('utf8') : data.content;
      return { text, size: data.size ?? Buffer.byteLength(text) };
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return undefined;
      throw error;
    }
  }
  // --- end planning ---

  /** Creates a branch at a commit. An existing branch is a precondition failure (422 "Reference already exists"). */
  async createBranch(ref: RepoRef, branch: string, sha: string): Promise<Branch> {
    const { data } = await this.call<{ ref: string; object: { sha: string } }>('createBranch', 'POST /repos/{owner}/{repo}/git/refs', {
      ...ref,
      ref: `refs/heads/${branch}`,
      sha,
    }, { write: true });
    return { name: data.ref.replace(/^refs\/heads\//, ''), sha: data.object.sha };
  }

  async createPullRequest(ref: RepoRef, input: { title: string; body: string; head: string; base: string; draft?: boolean }): Promise<PullRequest> {
    const { data } = await this.call<GitHubPull>('createPullRequest', 'POST /repos/{owner}/{repo}/pulls', { ...ref, ...input, draft: input.draft ?? false }, { write: true });
    return toPullRequest(data);
  }

  async getPullRequest(ref: RepoRef, number: number): Promise<PullRequest> {
    const { data } = await this.call<GitHubPull>('getPullRequest', 'GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...ref, pull_number: number });
    return toPullRequest(data);
  }

  /**
   * The pull request whose head is `branch` (newest first; open before closed), or undefined. `headOwner` is the
   * fork owner for PRs from a fork; default the repository owner.
   */
  async findPullRequestByHeadBranch(ref: RepoRef, branch: string, options: { headOwner?: string; state?: 'open' | 'closed' | 'all' } = {}): Promise<PullRequest | undefined> {
    const { data } = await this.call<GitHubPull[]>('findPullRequestByHeadBranch', 'GET /repos/{owner}/{repo}/pulls', {
      ...ref,
      head: `${options.headOwner ?? ref.owner}:${branch}`,
      state: options.state ?? 'all',
      per_page: 100,
    });
    const pulls = data.map(toPullRequest).sort((a, b) => Number(b.state === 'open') - Number(a.state === 'open') || b.number - a.number);
    return pulls[0];
  }

  /** Open pull requests whose head branch starts with `prefix` (e.g. `service/`), across all pages. */
  async listOpenPullRequestsByBranchPrefix(ref: RepoRef, prefix: string): Promise<PullRequest[]> {
    const pulls = await this.paginate<GitHubPull>('listOpenPullRequestsByBranchPrefix', 'GET /repos/{owner}/{repo}/pulls', { ...ref, state: 'open', sort: 'created', direction: 'asc' });
    return pulls.map(toPullRequest).filter((pull) => pull.headRef.startsWith(prefix));
  }

  /**
   * Pull requests closed (or merged) recently, newest first: one page of the most recently updated closed pull
   * requests is enough for a poll window, and keeps the call cheap.
   */
  async listRecentlyClosedPullRequestsByBranchPrefix(ref: RepoRef, prefix: string, since: Date): Promise<PullRequest[]> {
    const { data } = await this.call<GitHubPull[]>('listRecentlyClosedPullRequestsByBranchPrefix', 'GET /repos/{owner}/{repo}/pulls', { ...ref, state: 'closed', sort: 'updated', direction: 'desc', per_page: 100 });
    return data.map(toPullRequest).filter((pull) => pull.headRef.startsWith(prefix) && Date.parse(pull.closedAt ?? pull.updatedAt) >= since.getTime());
  }

  async updatePullRequest(ref: RepoRef, number: number, changes: { title?: string; body?: string; state?: 'open' | 'closed' }): Promise<PullRequest> {
    // PATCH with the same title and body is set-like, so a repeat is harmless.
    const { data } = await this.call<GitHubPull>('updatePullRequest', 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { ...ref, pull_number: number, ...changes });
    return toPullRequest(data);
  }

  async getMergeState(ref: RepoRef, number: number): Promise<MergeState> {
    const { data } = await this.call<GitHubPull>('getMergeState', 'GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...ref, pull_number: number });
    return {
      merged: Boolean(data.merged),
      mergedAt: data.merged_at ?? undefined,
      mergeCommitSha: data.merge_commit_sha ?? undefined,
      mergeable: data.mergeable ?? null,
      mergeableState: data.mergeable_state ?? 'unknown',
    };
  }

  async listIssueComments(ref: RepoRef, number: number): Promise<IssueComment[]> {
    const comments = await this.paginate<GitHubComment>('listIssueComments', 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...ref, issue_number: number });
    return comments.map(toIssueComment);
  }

  /** Comments on a PR (or issue); with an idempotency key the body carries the hidden marker. */
  async createIssueComment(ref: RepoRef, number: number, body: string, options: { idempotencyKey?: string } = {}): Promise<IssueComment> {
    const text = options.idempotencyKey ? withIdempotencyMarker(body, options.idempotencyKey) : body;
    const { data } = await this.call<GitHubComment>('createIssueComment', 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...ref, issue_number: number, body: text }, { write: true });
    return toIssueComment(data);
  }

  /**
   * The login the service writes as: the configured bot login, else the token's own (asked once). It fails as a
   * retryable error naming the lookup, as nothing can be adopted without it.
   */
  async serviceLogin(): Promise<string> {
    try {
      return await this.login();
    } catch (error) {
      throw serviceIdentityUnknown('scmhost', { method: 'GET', path: '/user' }, error);
    }
  }

  /**
   * The service's own comment carrying the key. Anyone who may comment can copy a marker, so a comment by anyone
   * else is not the service's write, whatever it carries (src/providers/own-writes.ts).
   */
  async findIssueCommentByIdempotencyKey(ref: RepoRef, number: number, idempotencyKey: string): Promise<IssueComment | undefined> {
    const self = await this.serviceLogin();
    return (await this.listIssueComments(ref, number)).find((comment) => comment.idempotencyKey === idempotencyKey && sameLogin(comment.author, self));
  }

  async createIssueCommentOnce(ref: RepoRef, number: number, body: string, idempotencyKey: string): Promise<{ comment: IssueComment; created: boolean }> {
    const existing = await this.findIssueCommentByIdempotencyKey(ref, number, idempotencyKey);
    if (existing) return { comment: existing, created: false };
    return { comment: await this.createIssueComment(ref, number, body, { idempotencyKey }), created: true };
  }

  async listReviews(ref: RepoRef, number: number): Promise<Review[]> {
    const reviews = await this.paginate<GitHubReview>('listReviews', 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { ...ref, pull_number: number });
    return reviews.map(toReview);
  }

  /** Submits a review (the service's own code review), optionally with line comments. */
  async createReview(ref: RepoRef, number: number, input: {
    event: 'COMMENT' | 'APPROVE' | 'REQUEST_CHANGES';
    body?: string;
    commitId?: string;
    comments?: Array<{ path: string; line: number; body: string; side?: 'LEFT' | 'RIGHT' }>;
    idempotencyKey?: string;
  }): Promise<Review> {
    const body = input.idempotencyKey ? withIdempotencyMarker(input.body ?? '', input.idempotencyKey) : input.body;
    const { data } = await this.call<GitHubReview>('createReview', 'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
      ...ref,
      pull_number: number,
      event: input.event,
      ...(body !== undefined ? { body } : {}),
      ...(input.commitId ? { commit_id: input.commitId } : {}),
      ...(input.comments ? { comments: input.comments.map((c) => ({ path: c.path, line: c.line, body: c.body, side: c.side ?? 'RIGHT' })) } : {}),
    }, { write: true });
    return toReview(data);
  }

  /** The service's own review carrying the key in its body's marker; anyone else's is not its write. */
  async findReviewByIdempotencyKey(ref: RepoRef, number: number, idempotencyKey: string): Promise<Review | undefined> {
    const self = await this.serviceLogin();
    return (await this.listReviews(ref, number)).find((review) => idempotencyKeyOf(review.body) === idempotencyKey && sameLogin(review.author, self));
  }

  async listReviewComments(ref: RepoRef, number: number): Promise<ReviewComment[]> {
    const comments = await this.paginate<GitHubReviewComment>('listReviewComments', 'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', { ...ref, pull_number: number });
    return comments.map(toReviewComment);
  }

  /** Review comments grouped into threads: each root comment with its replies, oldest first. */
  async listReviewThreads(ref: RepoRef, number: number): Promise<ReviewThread[]> {
    return groupReviewThreads(await this.listReviewComments(ref, number));
  }

  /** The service's own review comment (a reply in a thread) carrying the key; anyone else's is not its write. */
  async findReviewCommentByIdempotencyKey(ref: RepoRef, number: number, idempotencyKey: string): Promise<ReviewComment | undefined> {
    const self = await this.serviceLogin();
    return (await this.listReviewComments(ref, number)).find((comment) => idempotencyKeyOf(comment.body) === idempotencyKey && sameLogin(comment.author, self));
  }

  /** Replies in a review thread; `commentId` may be any comment of the thread (GitHub replies to its root). */
  async replyToReviewComment(ref: RepoRef, number: number, commentId: number, body: string, options: { idempotencyKey?: string } = {}): Promise<ReviewComment> {
    const text = options.idempotencyKey ? withIdempotencyMarker(body, options.idempotencyKey) : body;
    const { data } = await this.call<GitHubReviewComment>('replyToReviewComment', 'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies', {
      ...ref,
      pull_number: number,
      comment_id: commentId,
      body: text,
    }, { write: true });
    return toReviewComment(data);
  }

  /** All check runs for a commit, across pages. */
  async listCheckRuns(ref: RepoRef, sha: string): Promise<CheckRun[]> {
    const all: CheckRun[] = [];
    for (let page = 1; ; page++) {
      const { data } = await this.call<{ total_count: number; check_runs: GitHubCheckRun[] }>('listCheckRuns', 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
        owner: ref.owner, repo: ref.repo, ref: sha, per_page: 100, page,
      });
      all.push(...data.check_runs.map(toCheckRun));
      if (data.check_runs.length < 100 || all.length >= data.total_count) return all;
    }
  }

  private async paginate<T>(operation: string, route: string, params: Record<string, unknown>): Promise<T[]> {
    const all: T[] = [];
    for (let page = 1; ; page++) {
      const { data } = await this.call<T[]>(operation, route, { ...params, per_page: 100, page });
      all.push(...data);
      if (data.length < 100) return all;
    }
  }
}

export function groupReviewThreads(comments: ReviewComment[]): ReviewThread[] {
  const byId = new Map(comments.map((comment) => [comment.id, comment]));
  const rootOf = (comment: ReviewComment): ReviewComment => {
    let current = comment;
    for (let depth = 0; current.inReplyToId !== undefined && depth < 100; depth++) {
      const parent = byId.get(current.inReplyToId);
      if (!parent) break;
      current = parent;
    }
    return current;
  };
  const threads = new Map<number, ReviewThread>();
  for (const comment of [...comments].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id)) {
    const root = rootOf(comment);
    const thread = threads.get(root.id) ?? { rootId: root.id, path: root.path, line: root.line, comments: [] };
    thread.comments.push(comment);
    threads.set(root.id, thread);
  }
  return [...threads.values()];
}

/**
 * The reasons of a GitHub 422. `errors` holds objects ({resource, field, code, message}) on most endpoints and plain
 * strings on some ("Can not approve your own pull request"); both are read, so the reason reaches the operator.
 */
export function validationDetails(errors: unknown): string | undefined {
  if (!Array.isArray(errors)) return undefined;
  const reasons = errors.map((entry: unknown) => {
    if (typeof entry === 'string') return entry;
    if (!entry || typeof entry !== 'object') return '';
    const { message, field, code } = entry as { message?: unknown; field?: unknown; code?: unknown };
    return typeof message === 'string' ? message : [field, code].filter((part) => typeof part === 'string' && part).join(' ');
  }).filter(Boolean);
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

function causeChainHas(error: unknown, test: (e: Error & { code?: unknown }) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (test(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

// GitHub wire shapes (the fields we read).

interface GitHubUser { login: string; id: number }
interface GitHubRepo { full_name: string; default_branch: string; private: boolean; fork: boolean; parent?: { full_name: string }; html_url: string; clone_url: string }
interface GitHubPull {
  number: number; title: string; body: string | null; state: 'open' | 'closed'; draft?: boolean; merged?: boolean;
  merged_at?: string | null; merge_commit_sha?: string | null; mergeable?: boolean | null; mergeable_state?: string;
  head: { ref: string; sha: string; repo: { full_name: string } | null }; base: { ref: string };
  html_url: string; user: GitHubUser | null; created_at: string; updated_at: string; closed_at?: string | null;
}
interface GitHubComment { id: number; body?: string; user: GitHubUser | null; created_at: string; updated_at: string; html_url: string }
interface GitHubReview { id: number; state: string; body: string | null; commit_id?: string; user: GitHubUser | null; submitted_at?: string; html_url: string }
interface GitHubReviewComment {
  id: number; pull_request_review_id?: number | null; in_reply_to_id?: number; body: string; path: string; line?: number | null;
  original_line?: number | null; commit_id: string; user: GitHubUser | null; created_at: string; updated_at: string; html_url: string;
}
interface GitHubCheckRun {
  id: number; name: string; status: string; conclusion: string | null; head_sha: string; details_url?: string | null; html_url?: string | null;
  output: { title?: string | null; summary?: string | null; text?: string | null }; started_at?: string | null; completed_at?: string | null;
}

function toRepository(data: GitHubRepo): Repository {
  return {
    fullName: data.full_name,
    defaultBranch: data.default_branch,
    private: data.private,
    fork: data.fork,
    parentFullName: data.parent?.full_name,
    htmlUrl: data.html_url,
    cloneUrl: data.clone_url,
  };
}

function toPullRequest(data: GitHubPull): PullRequest {
  return {
    number: data.number,
    title: data.title,
    body: data.body ?? '',
    state: data.state,
    draft: Boolean(data.draft),
    merged: Boolean(data.merged ?? data.merged_at),
    headRef: data.head.ref,
    headSha: data.head.sha,
    headRepoFullName: data.head.repo?.full_name,
    baseRef: data.base.ref,
    htmlUrl: data.html_url,
    author: data.user?.login,
    createdAt: data.created_at,
    updatedAt: data.updated_at,
    closedAt: data.closed_at ?? undefined,
    mergeCommitSha: data.merged_at ? data.merge_commit_sha ?? undefined : undefined,
  };
}

function toIssueComment(data: GitHubComment): IssueComment {
  return {
    id: data.id,
    body: data.body ?? '',
    author: data.user?.login,
    ...(data.user?.id !== undefined ? { authorId: data.user.id } : {}),
    createdAt: data.created_at,
    updatedAt: data.updated_at,
    htmlUrl: data.html_url,
    idempotencyKey: idempotencyKeyOf(data.body),
  };
}

function toReview(data: GitHubReview): Review {
  return {
    id: data.id,
    state: data.state.toUpperCase() as ReviewState,
    body: data.body ?? '',
    commitId: data.commit_id,
    author: data.user?.login,
    ...(data.user?.id !== undefined ? { authorId: data.user.id } : {}),
    submittedAt: data.submitted_at,
    htmlUrl: data.html_url,
  };
}

function toReviewComment(data: GitHubReviewComment): ReviewComment {
  return {
    id: data.id,
    reviewId: data.pull_request_review_id ?? undefined,
    inReplyToId: data.in_reply_to_id,
    body: data.body,
    path: data.path,
    line: data.line ?? data.original_line ?? undefined,
    commitId: data.commit_id,
    author: data.user?.login,
    createdAt: data.created_at,
    updatedAt: data.updated_at,
    htmlUrl: data.html_url,
  };
}

function toCheckRun(data: GitHubCheckRun): CheckRun {
  return {
    id: data.id,
    name: data.name,
    status: data.status,
    conclusion: data.conclusion,
    headSha: data.head_sha,
    detailsUrl: data.details_url ?? undefined,
    htmlUrl: data.html_url ?? undefined,
    output: { title: data.output.title ?? undefined, summary: data.output.summary ?? undefined, text: data.output.text ?? undefined },
    startedAt: data.started_at ?? undefined,
    completedAt: data.completed_at ?? undefined,
  };
}
