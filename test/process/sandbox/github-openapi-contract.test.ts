/**
 * Contract: the GitHub simulator answers as GitHub's official OpenAPI description (@octokit/openapi) says GitHub
 * does. The simulator is driven through the service's own client, every request and response is recorded at the
 * fetch boundary, and each body is validated against the response schema of the operation and status it answered;
 * every webhook it sends is validated against the description's webhook schema. A field GitHub does not declare
 * fails too: code that reads it would pass here and break on GitHub.
 *
 * A route the client calls that no case here drives fails the coverage test, so new endpoints come under the
 * contract as they are added. The routes people use in the sandbox (reading a pull request's files and commits, a
 * commit, the merge button, CI's check runs) are held to the same description in the second part.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreconditionProviderError, ProviderError, TerminalProviderError } from '../../../src/providers/provider-errors';
import { createScmhostClient, ScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { startScmhostSimulator, ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { loadOpenApiDocument, OpenApiContract } from '../../helpers/openapi-contract';
import { Exchange, recordingFetch, routeOf } from '../../helpers/recording-fetch';
import { pushCommit, remoteUrl } from './git-over-http';
import { startWebhookReceiver } from './webhook-receiver';

const TOKEN = 'ghp_contracttoken0123456789abcdefABCDEF';
const REVIEWER_TOKEN = 'ghp_reviewertoken0123456789abcdefABCD';
const repoRef = { owner: 'acme', repo: 'api' };

/** Every `METHOD /path` route the client calls, read from its source so a new one cannot slip past this test. */
function clientRoutes(): string[] {
  const source = readFileSync(join(__dirname, '../../../src/providers/scmhost/scmhost-client.ts'), 'utf8');
  return [...new Set([...source.matchAll(/'((?:GET|POST|PATCH|PUT|DELETE) \/[^']*)'/g)].map((m) => m[1] as string))].sort();
}

/**
 * GitHub puts `status` in every error body (`"status": "422"`), but only basic-error declares it; the other error
 * schemas (validation-error, validation-error-simple) do not.
 */
const errorStatusField = (status: number) => (path: string) => status >= 400 && path === '/status';

// Loaded once for both parts: the description is large, and the checker normalises it in place.
const contract = new OpenApiContract(loadOpenApiDocument('@octokit/openapi/generated/api.github.com.json'));

/** A response's problems against the description, for the operation of `routes` it answered. */
function problemsAgainst(routes: string[], exchange: Exchange): string[] {
  const route = routeOf(routes, exchange);
  if (!route) return [`${exchange.method} ${exchange.path}: not a route of this contract`];
  const [method = '', template = ''] = route.split(' ');
  const declared = contract.responseSchema(method, template, exchange.status);
  if (declared === undefined && exchange.status < 400) return [`${route}: GitHub does not answer ${exchange.status}`];
  // Errors GitHub sends on any route (401, rate limits) are described once, as basic-error and validation-error.
  const schema = declared ?? contract.component(exchange.status === 422 ? 'validation-error' : 'basic-error');
  return contract.problems(schema, exchange.body, errorStatusField(exchange.status)).map((p) => `${route} ${exchange.status} ${p}`);
}

describe('GitHub simulator against GitHub\'s OpenAPI description', () => {
  const routes = clientRoutes();
  const exchanges: Exchange[] = [];
  const clientErrors = new Map<string, unknown>();
  let sim: ScmhostSimulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  const newClient = (token: string, overrides: Partial<Parameters<typeof createScmhostClient>[0]> = {}): Promise<ScmhostClient> =>
    createScmhostClient({ token, baseUrl: sim.url, writeSpacingMs: 0, retryBaseMs: 10, timeoutMs: 5_000, readRetries: 0, fetch: recordingFetch(exchanges), ...overrides });
  const failure = async (name: string, call: Promise<unknown>) => {
    const error = await call.then(() => undefined, (e: unknown) => e);
    clientErrors.set(name, error);
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    sim = await startScmhostSimulator({
      repositories: ['acme/api'],
      tokens: { [TOKEN]: 'service-bot', [REVIEWER_TOKEN]: 'octo-reviewer' },
      webhook: { url: `${receiver.url}/scmhost`, secret: 'contract-secret' },
    });
    const client = await newClient(TOKEN);
    const reviewer = await newClient(REVIEWER_TOKEN);
    const repo = sim.state.repo('acme', 'api');

    await client.getAuthenticatedUser();
    await failure('bad token', (await newClient('ghp_wrongtoken0123456789abcdefABCDEF')).getAuthenticatedUser());
    await client.getRepository(repoRef);
    const fork = await client.createFork(repoRef);
    await client.getRepository({ owner: 'service-bot', repo: 'api' });
    expect(fork.parentFullName).toBe('acme/api');

    // The model's read-only repository tools (the planning stations).
    sim.state.putFile(repo, 'src/index.ts', 'export const answer = 42;\n');
    expect((await client.listFiles(repoRef)).paths).toContain('src/index.ts');
    expect(await client.readFile(repoRef, 'src/index.ts')).toMatchObject({ text: 'export const answer = 42;\n' });
    expect(await client.readFile(repoRef, 'no/such/file.ts')).toBeUndefined();

    const main = await client.getBranch(repoRef, 'main');
    expect(await client.getBranch(repoRef, 'no-such-branch')).toBeUndefined();
    await client.createBranch(repoRef, 'service/proj-1', main!.sha);
    await failure('existing ref', client.createBranch(repoRef, 'service/proj-1', main!.sha));
    sim.state.pushBranch(repo, 'service/proj-1');
    await client.getBranch(repoRef, 'service/proj-1');

    const pull = await client.createPullRequest(repoRef, { title: '[PROJ-1] Checkout', body: 'Body', head: 'service/proj-1', base: 'main' });
    await failure('duplicate pull request', client.createPullRequest(repoRef, { title: '[PROJ-1] Checkout', body: '', head: 'service/proj-1', base: 'main' }));
    await failure('unknown base', client.createPullRequest(repoRef, { title: 'x', body: '', head: 'service/proj-1', base: 'no-such-base' }));
    await client.getPullRequest(repoRef, pull.number);
    await failure('missing pull request', client.getPullRequest(repoRef, 999));
    await client.findPullRequestByHeadBranch(repoRef, 'service/proj-1');
    await client.listOpenPullRequestsByBranchPrefix(repoRef, 'service/');
    await client.updatePullRequest(repoRef, pull.number, { title: '[PROJ-1] Checkout v2', body: 'New body' });
    sim.state.pushBranch(repo, 'service/proj-1');
    await client.getMergeState(repoRef, pull.number);

    await client.createIssueCommentOnce(repoRef, pull.number, 'Stage done', 'proj-1:stage');
    await failure('comment on a missing pull request', client.createIssueComment(repoRef, 999, 'x'));
    await failure('approving own pull request', client.createReview(repoRef, pull.number, { event: 'APPROVE' }));
    await failure('changes requested without a body', reviewer.createReview(repoRef, pull.number, { event: 'REQUEST_CHANGES' }));
    await client.createReview(repoRef, pull.number, { event: 'COMMENT', body: 'Review', comments: [{ path: 'a.ts', line: 1, body: 'here' }] });
    await reviewer.createReview(repoRef, pull.number, { event: 'REQUEST_CHANGES', body: 'please fix', comments: [{ path: 'b.ts', line: 2, body: 'and here' }] });
    await client.listReviews(repoRef, pull.number);
    const threads = await client.listReviewThreads(repoRef, pull.number);
    await client.replyToReviewComment(repoRef, pull.number, threads[0]!.rootId, 'Fixed');
    await failure('empty reply', client.replyToReviewComment(repoRef, pull.number, threads[0]!.rootId, ' '));
    await failure('reply to a missing comment', client.replyToReviewComment(repoRef, pull.number, 999_999, 'x'));

    const head = (await client.getPullRequest(repoRef, pull.number)).headSha;
    sim.state.reportCheckRun(repo, { name: 'build', headSha: head, status: 'in_progress' });
    sim.state.reportCheckRun(repo, { name: 'build', headSha: head, conclusion: 'failure', summary: '1 failed' });
    await client.listCheckRuns(repoRef, head);

    sim.faults.enqueue({ match: { method: 'GET', path: '^/repos/acme/api$' }, kind: 'rate-limit', retryAfterSeconds: 600, variant: 'primary' });
    await failure('primary rate limit', client.getRepository(repoRef));
    sim.faults.enqueue({ match: { method: 'POST', path: '/pulls$' }, kind: 'rate-limit', retryAfterSeconds: 600 });
    await failure('secondary rate limit', client.createPullRequest(repoRef, { title: 't', body: '', head: 'service/proj-1', base: 'main' }));

    await client.updatePullRequest(repoRef, pull.number, { state: 'closed' });
    await client.listRecentlyClosedPullRequestsByBranchPrefix(repoRef, 'service/', new Date(Date.now() - 60_000));
    await client.updatePullRequest(repoRef, pull.number, { state: 'open' });
    sim.state.mergePull(repo, pull.number);
    await client.getMergeState(repoRef, pull.number);
    await sim.webhooks.flush();
  });
  afterAll(async () => {
    await sim?.close();
    await receiver?.close();
  });

  const problemsOf = (exchange: Exchange): string[] => problemsAgainst(routes, exchange);

  it('drives every route the client calls, with a success answer', () => {
    expect(routes.length).toBeGreaterThanOrEqual(16);
    const answered = new Set(exchanges.filter((e) => e.status < 300).map((e) => routeOf(routes, e)));
    expect(routes.filter((route) => !answered.has(route))).toEqual([]);
  });

  it('answers every request with a status and body GitHub\'s description allows', () => {
    expect(exchanges.length).toBeGreaterThan(30);
    expect(exchanges.flatMap(problemsOf)).toEqual([]);
  });

  it('answers the error statuses the client relies on', () => {
    const statuses = (route: string) => exchanges.filter((e) => routeOf(routes, e) === route).map((e) => e.status);
    expect(statuses('GET /user')).toContain(401);
    expect(statuses('GET /repos/{owner}/{repo}/branches/{branch}')).toContain(404);
    expect(statuses('GET /repos/{owner}/{repo}/pulls/{pull_number}')).toContain(404);
    expect(statuses('POST /repos/{owner}/{repo}/git/refs')).toContain(422);
    expect(statuses('POST /repos/{owner}/{repo}/pulls')).toEqual(expect.arrayContaining([422, 429]));
    expect(statuses('POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews')).toContain(422);
    expect(statuses('POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies')).toEqual(expect.arrayContaining([404, 422]));
    expect(statuses('GET /repos/{owner}/{repo}')).toContain(403);
  });

  it('reads GitHub\'s 422 reasons in both shapes: objects (validation-error) and strings (validation-error-simple)', () => {
    const review422 = exchanges.find((e) => e.status === 422 && e.path.endsWith('/reviews'));
    expect((review422?.body as { errors?: unknown[] }).errors).toEqual(['Can not approve your own pull request']);
    const own = clientErrors.get('approving own pull request');
    expect(own).toBeInstanceOf(PreconditionProviderError);
    expect((own as ProviderError).providerMessage).toContain('Can not approve your own pull request');
    const duplicate = clientErrors.get('duplicate pull request');
    expect(duplicate).toBeInstanceOf(PreconditionProviderError);
    expect((duplicate as ProviderError).providerMessage).toContain('A pull request already exists for acme:service/proj-1');
    expect((clientErrors.get('changes requested without a body') as ProviderError).providerMessage).toContain('Review body is required');
    expect(clientErrors.get('bad token')).toBeInstanceOf(TerminalProviderError);
  });

  /** Every event and action the simulator emits; the scenario above must make each happen. */
  const WEBHOOKS = [
    'pull_request.opened', 'pull_request.edited', 'pull_request.synchronize', 'pull_request.closed', 'pull_request.reopened',
    'pull_request_review.submitted', 'issue_comment.created', 'check_run.created', 'check_run.completed',
  ];
  // Events without actions (push, create, delete) are named by the event alone, as the description's keys are.
  const webhookName = (delivery: { headers: Record<string, unknown>; json: Record<string, unknown> }) =>
    [delivery.headers['x-github-event'], delivery.json.action].filter((part) => typeof part === 'string').join('.');

  it('sends every webhook it can, and only those', () => {
    expect([...new Set(receiver.received.map(webhookName))].sort()).toEqual([...WEBHOOKS].sort());
  });

  it.each(WEBHOOKS)('webhook %s matches the description\'s schema', (name) => {
    const deliveries = receiver.received.filter((r) => webhookName(r) === name);
    expect(deliveries.length, `the simulator sent ${name}`).toBeGreaterThan(0);
    const schema = contract.webhookSchema(name.replace(/_/g, '-').replace('.', '-'));
    expect(deliveries.flatMap((d) => contract.problems(schema, d.json))).toEqual([]);
  });

  it('catches a broken body (the check can fail)', () => {
    const getPull = exchanges.find((e) => e.method === 'GET' && /\/pulls\/1$/.test(e.path) && e.status === 200)!;
    expect(problemsOf(getPull)).toEqual([]);
    const broken = structuredClone(getPull.body) as Record<string, unknown>;
    delete broken.auto_merge;
    broken.number = '1';
    broken.ticket = 'PROJ-1';
    const problems = problemsOf({ ...getPull, body: broken });
    expect(problems.join('\n')).toMatch(/must have required property 'auto_merge'/);
    expect(problems.join('\n')).toMatch(/\/number: must be integer/);
    const invented = structuredClone(getPull.body) as { ticket?: string; head: { repo: Record<string, unknown> } };
    invented.ticket = 'PROJ-1';
    invented.head.repo.ticket_key = 'PROJ';
    expect(problemsOf({ ...getPull, body: invented })).toEqual([
      'GET /repos/{owner}/{repo}/pulls/{pull_number} 200 /head/repo/ticket_key: not declared by the schema',
      'GET /repos/{owner}/{repo}/pulls/{pull_number} 200 /ticket: not declared by the schema',
    ]);
    // The list answers GitHub's pull-request-simple: a merge field there is something GitHub never sends.
    const list = exchanges.find((e) => e.method === 'GET' && /\/pulls$/.test(e.path) && e.status === 200 && (e.body as unknown[]).length > 0)!;
    const withMerged = structuredClone(list.body) as Array<Record<string, unknown>>;
    withMerged[0]!.mergeable = true;
    expect(problemsOf({ ...list, body: withMerged })).toEqual(['GET /repos/{owner}/{repo}/pulls 200 /0/mergeable: not declared by the schema']);
    const opened = receiver.received.find((r) => r.headers['x-github-event'] === 'pull_request' && r.json.action === 'opened')!;
    const hook = structuredClone(opened.json) as { pull_request: Record<string, unknown> };
    hook.pull_request.mergeable_state = 42;
    expect(contract.problems(contract.webhookSchema('pull-request-opened'), hook).join('\n')).toMatch(/mergeable_state: must be string/);
    const checkRun = receiver.received.find((r) => r.headers['x-github-event'] === 'check_run' && r.json.action === 'completed')!;
    const unencoded = structuredClone(checkRun.json) as { sender: Record<string, unknown> };
    unencoded.sender.url = String(unencoded.sender.url).replace('%5Bbot%5D', '[bot]');
    expect(contract.problems(contract.webhookSchema('check-run-completed'), unencoded)).toEqual(['/sender/url: must match format "uri" {"format":"uri"}']);
  });
});

/**
 * The routes a person uses in the sandbox and the service's client does not (`service sandbox show|merge|check|
 * approve`, curl on the banner's examples): the JSON answers of reading a pull request's files and commits, a single
 * commit (the merge commit included), the merge button with its refusals, and CI's check runs. Their diff and patch
 * answers are text, compared with git in scmhost-git-content.test.ts.
 */
describe('GitHub simulator\'s routes for people, against GitHub\'s OpenAPI description', () => {
  const PERSON_ROUTES = [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits',
    'GET /repos/{owner}/{repo}/commits/{ref}',
    'GET /repos/{owner}/{repo}/pulls/{pull_number}',
    'GET /repos/{owner}/{repo}/pulls',
    // Opened here as the service would, so there is something to read.
    'POST /repos/{owner}/{repo}/pulls',
    'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    'POST /repos/{owner}/{repo}/check-runs',
  ];
  const exchanges: Exchange[] = [];
  let sim: ScmhostSimulator;

  beforeAll(async () => {
    sim = await startScmhostSimulator({ repositories: ['acme/api'], tokens: { [TOKEN]: 'service-bot', [REVIEWER_TOKEN]: 'octo-reviewer' } });
    const record = recordingFetch(exchanges);
    const call = (path: string, token: string, init: { method?: string; body?: unknown } = {}) => record(`${sim.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const remote = remoteUrl(sim.url, 'acme/api', TOKEN);
    await pushCommit(remote, 'main', { 'old.txt': 'moves\n', 'gone.txt': 'removed\n' }, 'seed');
    await pushCommit(remote, 'service/proj-1', { 'src/a.ts': 'export const a = 1;\n', 'README.md': '# acme/api\nmore\n' }, '[PROJ-1] implement', { from: 'main' });
    const head = await pushCommit(remote, 'service/proj-1', { 'old.txt': null, 'new.txt': 'moves\n', 'gone.txt': null }, '[PROJ-1] tidy');
    const opened = await call('/repos/acme/api/pulls', TOKEN, { method: 'POST', body: { title: '[PROJ-1] Export', head: 'service/proj-1', base: 'main' } });
    expect(opened.status).toBe(201);

    await call('/repos/acme/api/pulls?state=all', REVIEWER_TOKEN);
    await call('/repos/acme/api/pulls/1', REVIEWER_TOKEN);
    await call('/repos/acme/api/pulls/1/files', REVIEWER_TOKEN);
    await call('/repos/acme/api/pulls/1/commits', REVIEWER_TOKEN);
    await call(`/repos/acme/api/commits/${head}`, REVIEWER_TOKEN);
    await call(`/repos/acme/api/commits/${'0'.repeat(40)}`, REVIEWER_TOKEN);
    await call('/repos/acme/api/check-runs', REVIEWER_TOKEN, { method: 'POST', body: { name: 'build', head_sha: head, status: 'completed', conclusion: 'success', output: { summary: 'green' } } });
    await call('/repos/acme/api/pulls/1/reviews', REVIEWER_TOKEN, { method: 'POST', body: { event: 'APPROVE', body: 'Fine' } });
    await call('/repos/acme/api/pulls/1/merge', REVIEWER_TOKEN, { method: 'PUT', body: { sha: '1'.repeat(40) } });
    await call('/repos/acme/api/pulls/1/merge', REVIEWER_TOKEN, { method: 'PUT', body: { merge_method: 'rebase' } });
    await call('/repos/acme/api/pulls/1/merge', REVIEWER_TOKEN, { method: 'PUT', body: { merge_method: 'merge', sha: head } });
    const merge = (exchanges.at(-1)?.body as { sha: string }).sha;
    await call(`/repos/acme/api/commits/${merge}`, REVIEWER_TOKEN);
    await call('/repos/acme/api/pulls/1', REVIEWER_TOKEN);
    await call('/repos/acme/api/pulls/1/files', REVIEWER_TOKEN);
    await call('/repos/acme/api/pulls/1/merge', REVIEWER_TOKEN, { method: 'PUT', body: {} });
  }, 60_000); // several git clones and pushes: slow on a loaded machine
  afterAll(async () => {
    await sim?.close();
  });

  it('drives every route, with a success answer, and the refusals people meet', () => {
    const answered = new Set(exchanges.filter((e) => e.status < 300).map((e) => routeOf(PERSON_ROUTES, e)));
    expect(PERSON_ROUTES.filter((route) => !answered.has(route))).toEqual([]);
    const statuses = (route: string) => exchanges.filter((e) => routeOf(PERSON_ROUTES, e) === route).map((e) => e.status);
    expect(statuses('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge')).toEqual([409, 405, 200, 405]);
    expect(statuses('GET /repos/{owner}/{repo}/commits/{ref}')).toEqual([200, 422, 200]);
  });

  it('answers every request with a status and body GitHub\'s description allows', () => {
    expect(exchanges.flatMap((exchange) => problemsAgainst(PERSON_ROUTES, exchange))).toEqual([]);
  });

  it('catches a broken body on the new routes (the check can fail)', () => {
    const files = exchanges.find((e) => e.path.endsWith('/pulls/1/files') && e.status === 200)!;
    const broken = structuredClone(files.body) as Array<Record<string, unknown>>;
    broken[0]!.status = 'moved';
    broken[0]!.ticket = 'PROJ-1';
    const problems = problemsAgainst(PERSON_ROUTES, { ...files, body: broken }).join('\n');
    expect(problems).toMatch(/\/0\/status: must be equal to one of the allowed values/);
    const commit = exchanges.find((e) => /\/commits\/[0-9a-f]{40}$/.test(e.path) && e.status === 200)!;
    const invented = structuredClone(commit.body) as Record<string, unknown>;
    invented.branch = 'main';
    expect(problemsAgainst(PERSON_ROUTES, { ...commit, body: invented })).toEqual(['GET /repos/{owner}/{repo}/commits/{ref} 200 /branch: not declared by the schema']);
  });
});
