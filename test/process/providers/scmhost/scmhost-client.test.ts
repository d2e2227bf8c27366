import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScmhostClient, ScmhostClient, scmhostOptionsFromEnv, validationDetails } from '../../../../src/providers/scmhost/scmhost-client';
import { idempotencyKeyOf, stripIdempotencyMarker } from '../../../../src/providers/scmhost/idempotency-marker';
import { NotFoundProviderError, PreconditionProviderError, RetryableProviderError, TerminalProviderError } from '../../../../src/providers/provider-errors';
import { startScmhostSimulator, ScmhostSimulator } from '../../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { fakeSha } from '../../../../src/sandbox/scmhost-simulator/scmhost-state';

const TOKEN = 'ghp_simulatedtoken0123456789abcdefABCD';
const repoRef = { owner: 'acme', repo: 'api' };

describe('source-host client against the GitHub-shaped simulator', () => {
  let sim: ScmhostSimulator;
  let client: ScmhostClient;

  const newClient = (overrides: Parameters<typeof createScmhostClient>[0] extends infer O ? Partial<O> : never = {}) =>
    createScmhostClient({ token: TOKEN, baseUrl: sim.url, writeSpacingMs: 0, retryBaseMs: 10, timeoutMs: 2_000, ...overrides });

  /** The service's branch with one pushed commit, ready for a PR. */
  const pushServiceBranch = (branch = 'service/proj-1') => {
    const repo = sim.state.repo('acme', 'api');
    return sim.state.pushBranch(repo, branch);
  };

  beforeEach(async () => {
    sim = await startScmhostSimulator({ repositories: ['acme/api'], tokens: { [TOKEN]: 'service-bot' } });
    client = await newClient();
  });
  afterEach(async () => {
    await sim.close();
  });

  it('identifies the token owner and reads the repository', async () => {
    expect(await client.getAuthenticatedUser()).toMatchObject({ login: 'service-bot' });
    expect(await client.getRepository(repoRef)).toMatchObject({ fullName: 'acme/api', defaultBranch: 'main', fork: false });
  });

  it('rejects a bad token with a terminal 401 whose message does not contain the token', async () => {
    const bad = await newClient({ token: 'ghp_wrongtoken0123456789abcdefABCDEF' });
    const error = await bad.getAuthenticatedUser().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalProviderError);
    expect((error as TerminalProviderError).status).toBe(401);
    expect((error as TerminalProviderError).requestId).toBeTruthy();
    expect((error as Error).message).toContain('Bad credentials');
    expect(JSON.stringify((error as TerminalProviderError).toJSON())).not.toContain('ghp_wrongtoken');
  });

  it('creates, finds by head branch, updates and lists pull requests', async () => {
    pushServiceBranch('service/proj-1');
    pushServiceBranch('service/proj-2');
    pushServiceBranch('feature/other');
    const pr = await client.createPullRequest(repoRef, { title: '[PROJ-1] Checkout', body: 'Body', head: 'service/proj-1', base: 'main' });
    expect(pr).toMatchObject({ number: 1, state: 'open', headRef: 'service/proj-1', baseRef: 'main', merged: false, title: '[PROJ-1] Checkout' });
    await client.createPullRequest(repoRef, { title: '[PROJ-2] Other', body: '', head: 'service/proj-2', base: 'main', draft: true });
    await client.createPullRequest(repoRef, { title: 'Human PR', body: '', head: 'feature/other', base: 'main' });

    expect((await client.findPullRequestByHeadBranch(repoRef, 'service/proj-1'))?.number).toBe(1);
    expect(await client.findPullRequestByHeadBranch(repoRef, 'service/none')).toBeUndefined();

    const updated = await client.updatePullRequest(repoRef, 1, { title: '[PROJ-1] Checkout v2', body: 'New body' });
    expect(updated).toMatchObject({ title: '[PROJ-1] Checkout v2', body: 'New body' });
    expect((await client.getPullRequest(repoRef, 1)).body).toBe('New body');

    const open = await client.listOpenPullRequestsByBranchPrefix(repoRef, 'service/');
    expect(open.map((p) => [p.number, p.draft])).toEqual([[1, false], [2, true]]);
  });

  it('reports a duplicate pull request as a precondition failure with GitHub\'s reason', async () => {
    pushServiceBranch();
    await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
    const error = await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionProviderError);
    expect((error as PreconditionProviderError).status).toBe(422);
    expect((error as PreconditionProviderError).providerMessage).toContain('A pull request already exists for acme:service/proj-1');
  });

  it('reads the merge state before and after a merge', async () => {
    pushServiceBranch();
    await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
    expect(await client.getMergeState(repoRef, 1)).toMatchObject({ merged: false, mergeable: true, mergeableState: 'clean' });
    sim.state.mergePull(sim.state.repo('acme', 'api'), 1);
    const merged = await client.getMergeState(repoRef, 1);
    expect(merged.merged).toBe(true);
    expect(merged.mergeCommitSha).toMatch(/^[0-9a-f]{40}$/);
    expect((await client.findPullRequestByHeadBranch(repoRef, 'service/proj-1'))?.merged).toBe(true);
  });

  it('posts PR comments with a hidden idempotency marker and finds them by key', async () => {
    pushServiceBranch();
    await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
    sim.state.addIssueComment(sim.state.repo('acme', 'api'), 1, '/service skip-gate lint');
    const posted = await client.createIssueComment(repoRef, 1, 'Skipping **lint**.', { idempotencyKey: 'PROJ-1:run:ci:comment:1' });
    expect(posted.body).toContain('<!-- service:idempotency-key=PROJ-1:run:ci:comment:1 -->');
    expect(stripIdempotencyMarker(posted.body)).toBe('Skipping **lint**.');
    expect((await client.findIssueCommentByIdempotencyKey(repoRef, 1, 'PROJ-1:run:ci:comment:1'))?.id).toBe(posted.id);
    const again = await client.createIssueCommentOnce(repoRef, 1, 'Skipping **lint**.', 'PROJ-1:run:ci:comment:1');
    expect(again.created).toBe(false);
    const comments = await client.listIssueComments(repoRef, 1);
    expect(comments.map((c) => [c.author, c.idempotencyKey])).toEqual([['octo-reviewer', undefined], ['service-bot', 'PROJ-1:run:ci:comment:1']]);
  });

  it('never adopts a person\'s comment, review or reply carrying the marker of its next write', async () => {
    pushServiceBranch();
    await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
    const repo = sim.state.repo('acme', 'api');
    const mallory = sim.state.user('mallory');
    const forge = (key: string) => `Looks good, merge it.\n\n<!-- service:idempotency-key=${key} -->`;
    sim.state.addIssueComment(repo, 1, forge('PROJ-1:run:ci:1:comment'), mallory);
    sim.state.submitReview(repo, 1, { state: 'COMMENTED', body: forge('PROJ-1:run:review:1:review'), comments: [{ path: 'src/a.ts', line: 3, body: 'rename this' }] }, mallory);
    const root = (await client.listReviewComments(repoRef, 1))[0]!;
    sim.state.replyToReviewComment(repo, 1, root.id, forge('PROJ-1:run:reply:1:reply'), mallory);

    expect(await client.findIssueCommentByIdempotencyKey(repoRef, 1, 'PROJ-1:run:ci:1:comment')).toBeUndefined();
    expect(await client.findReviewByIdempotencyKey(repoRef, 1, 'PROJ-1:run:review:1:review')).toBeUndefined();
    expect(await client.findReviewCommentByIdempotencyKey(repoRef, 1, 'PROJ-1:run:reply:1:reply')).toBeUndefined();

    const first = await client.createIssueCommentOnce(repoRef, 1, 'CI passed.', 'PROJ-1:run:ci:1:comment');
    expect(first.created).toBe(true);
    expect(await client.createIssueCommentOnce(repoRef, 1, 'CI passed.', 'PROJ-1:run:ci:1:comment')).toEqual({ comment: expect.objectContaining({ id: first.comment.id, author: 'service-bot' }), created: false });
    const review = await client.createReview(repoRef, 1, { event: 'COMMENT', body: 'Automated review.', idempotencyKey: 'PROJ-1:run:review:1:review' });
    expect((await client.findReviewByIdempotencyKey(repoRef, 1, 'PROJ-1:run:review:1:review'))?.id).toBe(review.id);
    const reply = await client.replyToReviewComment(repoRef, 1, root.id, 'Renamed.', { idempotencyKey: 'PROJ-1:run:reply:1:reply' });
    expect((await client.findReviewCommentByIdempotencyKey(repoRef, 1, 'PROJ-1:run:reply:1:reply'))?.id).toBe(reply.id);

    expect((await client.listIssueComments(repoRef, 1)).map((c) => [c.author, c.idempotencyKey])).toEqual([['mallory', 'PROJ-1:run:ci:1:comment'], ['service-bot', 'PROJ-1:run:ci:1:comment']]);
    expect((await client.listReviews(repoRef, 1)).filter((r) => idempotencyKeyOf(r.body)).map((r) => r.author)).toEqual(['mallory', 'service-bot']);
  });

  it('takes the configured bot login as its own without asking GitHub, and names a failed lookup when it must ask', async () => {
    pushServiceBranch();
    await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
    const posted = await client.createIssueComment(repoRef, 1, 'CI passed.', { idempotencyKey: 'k-own' });
    sim.faults.enqueue({ match: { method: 'GET', path: '^/user$' }, kind: 'status', status: 503, times: 10 });
    const configured = await newClient({ botLogin: 'Service-Bot' });
    expect((await configured.findIssueCommentByIdempotencyKey(repoRef, 1, 'k-own'))?.id).toBe(posted.id);
    expect(sim.faults.applied).toEqual([]);
    const asking = await newClient();
    const error = await asking.createIssueCommentOnce(repoRef, 1, 'CI passed.', 'k-own').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableProviderError);
    expect((error as RetryableProviderError).effectStatus).toBe('retryable_failure');
    expect((error as Error).message).toMatch(/^scmhost GET \/user status 503 \(getAuthenticatedUser\): could not learn the service account/);
    expect(sim.state.issueComments).toHaveLength(1);
    const elsewhere = await newClient({ botLogin: 'another-bot' });
    expect(await elsewhere.findIssueCommentByIdempotencyKey(repoRef, 1, 'k-own')).toBeUndefined();
  });

  it('lists comments across pages', async () => {
    pushServiceBranch();
    await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
    for (let i = 0; i < 105; i++) sim.state.addIssueComment(sim.state.repo('acme', 'api'), 1, `c${i}`);
    const comments = await client.listIssueComments(repoRef, 1);
    expect(comments).toHaveLength(105);
    expect(comments[104]?.body).toBe('c104');
  });

  it('reads reviews and review threads, and replies in a thread', async () => {
    pushServiceBranch();
    const pr = await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
    const repo = sim.state.repo('acme', 'api');
    sim.state.submitReview(repo, 1, { state: 'CHANGES_REQUESTED', body: 'Needs work', comments: [{ path: 'src/a.ts', line: 3, body: 'rename this' }, { path: 'src/b.ts', line: 9, body: 'add a test' }] });
    const reviews = await client.listReviews(repoRef, 1);
    expect(reviews).toEqual([expect.objectContaining({ state: 'CHANGES_REQUESTED', body: 'Needs work', commitId: pr.headSha, author: 'octo-reviewer', authorId: expect.any(Number) })]);

    const threads = await client.listReviewThreads(repoRef, 1);
    expect(threads.map((t) => [t.path, t.line, t.comments.length])).toEqual([['src/a.ts', 3, 1], ['src/b.ts', 9, 1]]);
    const root = threads[0]?.comments[0];
    const reply = await client.replyToReviewComment(repoRef, 1, root?.id ?? 0, 'Renamed.', { idempotencyKey: 'k-reply' });
    expect(reply.inReplyToId).toBe(root?.id);
    expect(idempotencyKeyOf(reply.body)).toBe('k-reply');
    const after = await client.listReviewThreads(repoRef, 1);
    expect(after[0]?.comments.map((c) => stripIdempotencyMarker(c.body))).toEqual(['rename this', 'Renamed.']);
    await expect(client.replyToReviewComment(repoRef, 1, 999_999, 'x')).rejects.toBeInstanceOf(NotFoundProviderError);
  });

  it('submits its own review with line comments', async () => {
    sim.state.pushBranch(sim.state.repo('acme', 'api'), 'feature/x');
    sim.state.createPull(sim.state.repo('acme', 'api'), { title: 'Human work', head: 'feature/x', base: 'main' }, sim.state.user('someone'));
    const review = await client.createReview(repoRef, 1, { event: 'REQUEST_CHANGES', body: 'See comments', comments: [{ path: 'x.ts', line: 1, body: 'typo' }] });
    expect(review.state).toBe('CHANGES_REQUESTED');
    expect((await client.listReviewComments(repoRef, 1)).map((c) => c.body)).toEqual(['typo']);
  });

  it('lists check runs for a commit', async () => {
    const sha = pushServiceBranch();
    const repo = sim.state.repo('acme', 'api');
    sim.state.reportCheckRun(repo, { name: 'build', headSha: sha, conclusion: 'success' });
    sim.state.reportCheckRun(repo, { name: 'lint', headSha: sha, status: 'in_progress' });
    sim.state.reportCheckRun(repo, { name: 'test', headSha: sha, conclusion: 'failure', summary: '2 failed' });
    sim.state.reportCheckRun(repo, { name: 'other', headSha: fakeSha('else'), conclusion: 'success' });
    const runs = await client.listCheckRuns(repoRef, sha);
    expect(runs.map((r) => [r.name, r.status, r.conclusion])).toEqual([['build', 'completed', 'success'], ['lint', 'in_progress', null], ['test', 'completed', 'failure']]);
    expect(runs[2]?.output.summary).toBe('2 failed');
  });

  it('reads and creates branches, and forks', async () => {
    const main = await client.getBranch(repoRef, 'main');
    expect(main?.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await client.getBranch(repoRef, 'nope')).toBeUndefined();
    expect(await client.createBranch(repoRef, 'service/proj-9', main?.sha ?? '')).toEqual({ name: 'service/proj-9', sha: main?.sha });
    await expect(client.createBranch(repoRef, 'service/proj-9', main?.sha ?? '')).rejects.toBeInstanceOf(PreconditionProviderError);
    const fork = await client.createFork(repoRef);
    expect(fork).toMatchObject({ fullName: 'service-bot/api', fork: true, parentFullName: 'acme/api' });
    expect((await client.getRepository({ owner: 'service-bot', repo: 'api' })).parentFullName).toBe('acme/api');
  });

  it('opens a PR from a fork and finds it by the fork owner', async () => {
    await client.createFork(repoRef);
    sim.state.pushBranch(sim.state.repo('service-bot', 'api'), 'service/proj-3');
    const pr = await client.createPullRequest(repoRef, { title: 'From fork', body: '', head: 'service-bot:service/proj-3', base: 'main' });
    expect(pr.headRepoFullName).toBe('service-bot/api');
    expect((await client.findPullRequestByHeadBranch(repoRef, 'service/proj-3', { headOwner: 'service-bot' }))?.number).toBe(pr.number);
    expect(await client.findPullRequestByHeadBranch(repoRef, 'service/proj-3')).toBeUndefined();
  });

  describe('faults and rate limits', () => {
    it('waits out a secondary rate limit (403 + Retry-After) and then succeeds', async () => {
      sim.faults.enqueue({ match: { method: 'GET', path: '^/repos/acme/api$' }, kind: 'rate-limit', retryAfterSeconds: 1, variant: 'secondary' });
      const started = Date.now();
      expect((await client.getRepository(repoRef)).fullName).toBe('acme/api');
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(sim.faults.applied).toHaveLength(1);
    });

    it('waits out a 429 with Retry-After on a write, which GitHub did not apply', async () => {
      pushServiceBranch();
      sim.faults.enqueue({ match: { method: 'POST', path: '/pulls$' }, kind: 'rate-limit', retryAfterSeconds: 1 });
      const started = Date.now();
      const pr = await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(pr.number).toBe(1);
    });

    it('waits for the primary rate limit reset', async () => {
      sim.faults.enqueue({ match: { path: '^/user$' }, kind: 'rate-limit', retryAfterSeconds: 0, variant: 'primary' });
      const started = Date.now();
      await client.getAuthenticatedUser();
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    });

    it('surfaces a rate limit longer than it is willing to wait, with retry-after', async () => {
      sim.faults.enqueue({ kind: 'rate-limit', retryAfterSeconds: 120, variant: 'secondary' });
      const error = await client.getAuthenticatedUser().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect((error as RetryableProviderError).retryAfterMs).toBe(120_000);
      expect((error as RetryableProviderError).effectStatus).toBe('retryable_failure');
    });

    it('retries reads after a 502 but surfaces a 502 on a write without repeating it', async () => {
      sim.faults.enqueue({ match: { method: 'GET' }, kind: 'status', status: 502 });
      expect((await client.getRepository(repoRef)).fullName).toBe('acme/api');
      pushServiceBranch();
      sim.faults.enqueue({ match: { method: 'POST' }, kind: 'status', status: 502, times: 3 });
      const error = await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect((error as RetryableProviderError).status).toBe(502);
      expect((error as RetryableProviderError).outcomeUnknown).toBe(true);
      expect(sim.faults.applied.map((f) => f.method)).toEqual(['GET', 'POST']);
    });

    it('marks a comment that was applied but never answered as indeterminate, then finds it by key', async () => {
      pushServiceBranch();
      await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
      const impatient = await newClient({ timeoutMs: 300 });
      sim.faults.enqueue({ match: { method: 'POST', path: '/comments$' }, kind: 'apply-then-timeout', holdMs: 5_000 });
      const error = await impatient.createIssueComment(repoRef, 1, 'hello', { idempotencyKey: 'e-1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect((error as RetryableProviderError).effectStatus).toBe('indeterminate');
      expect((error as Error).message).toContain('timed out after 300 ms');
      expect((await client.findIssueCommentByIdempotencyKey(repoRef, 1, 'e-1'))?.body).toContain('hello');
      expect(sim.state.issueComments).toHaveLength(1);
    });

    it('reports latency per attempt to the metrics hook', async () => {
      const seen: string[] = [];
      const measured = await newClient({ onLatency: (service) => seen.push(service) });
      await measured.getAuthenticatedUser();
      expect(seen).toEqual(['scmhost']);
    });

    it('spaces writes when asked to', async () => {
      pushServiceBranch();
      await client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' });
      const spaced = await newClient({ writeSpacingMs: 300 });
      const started = Date.now();
      await spaced.createIssueComment(repoRef, 1, 'a');
      await spaced.createIssueComment(repoRef, 1, 'b');
      await spaced.createIssueComment(repoRef, 1, 'c');
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
      expect(Date.now() - started).toBeLessThan(1_100);
    });
  });
});

describe('scmhostOptionsFromEnv', () => {
  it('requires SCMHOST_TOKEN', () => {
    expect(() => scmhostOptionsFromEnv({})).toThrow('SCMHOST_TOKEN');
    expect(scmhostOptionsFromEnv({ SCMHOST_TOKEN: ' t ' })).toEqual({ token: 't' });
  });
});

describe('validationDetails (the reasons of a GitHub 422)', () => {
  it('reads plain-string reasons, which GitHub sends on some endpoints', () => {
    expect(validationDetails(['Can not approve your own pull request'])).toBe('Can not approve your own pull request');
  });

  it('reads object reasons by message, or by field and code when there is no message', () => {
    expect(validationDetails([
      { resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for acme:service/proj-1.' },
      { resource: 'PullRequest', field: 'base', code: 'invalid' },
    ])).toBe('A pull request already exists for acme:service/proj-1.; base invalid');
  });

  it('has nothing to say about a missing or empty list', () => {
    expect(validationDetails(undefined)).toBeUndefined();
    expect(validationDetails([])).toBeUndefined();
    expect(validationDetails([null, 7])).toBeUndefined();
  });
});
