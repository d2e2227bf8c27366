import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTrackerClient, TrackerClient, trackerOptionsFromEnv } from '../../../../src/providers/tracker/tracker-client';
import {
  NotFoundProviderError,
  PreconditionProviderError,
  RetryableProviderError,
  TerminalProviderError,
} from '../../../../src/providers/provider-errors';
import { startTrackerSimulator, TrackerSimulator } from '../../../../src/sandbox/tracker-simulator/tracker-simulator';

const EMAIL = 'bot@example.com';
const TOKEN = 'tracker-token-abcdef123456';

describe('tracker client against the tracker simulator', () => {
  let sim: TrackerSimulator;
  let client: TrackerClient;

  beforeEach(async () => {
    sim = await startTrackerSimulator({ projects: ['PROJ'], credentials: { email: EMAIL, apiToken: TOKEN } });
    client = createTrackerClient({ baseUrl: sim.url, email: EMAIL, apiToken: TOKEN, timeoutMs: 2_000, retry: { initialDelayMs: 10 } });
  });
  afterEach(async () => {
    await sim.close();
  });

  it('reads the service account behind the credentials', async () => {
    const me = await client.getMyself();
    expect(me.emailAddress).toBe(EMAIL);
    expect(me.accountId).toBeTruthy();
  });

  it('rejects wrong credentials with a terminal error that does not leak the token', async () => {
    const wrong = createTrackerClient({ baseUrl: sim.url, email: EMAIL, apiToken: 'wrong-token-999999' });
    const error = await wrong.getMyself().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalProviderError);
    expect((error as TerminalProviderError).status).toBe(401);
    expect((error as TerminalProviderError).requestId).toBeTruthy();
    expect(String((error as Error).message)).not.toContain('wrong-token-999999');
  });

  it('creates an issue with parent, labels and a Markdown description, and reads it back', async () => {
    const feature = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'Checkout', labels: ['service:managed'] });
    const epic = await client.createIssue({
      projectKey: 'PROJ',
      issueType: 'Epic',
      summary: 'Payments epic',
      description: '# Goal\n\nShip **payments**.\n\n- one\n- two',
      labels: ['service:managed', `service:parent:${feature.key}`],
      parentKey: feature.key,
    });
    expect(epic.key).toBe('PROJ-2');
    const issue = await client.getIssue(epic.key);
    expect(issue).toMatchObject({
      key: 'PROJ-2',
      projectKey: 'PROJ',
      summary: 'Payments epic',
      issueType: 'Epic',
      status: 'To Do',
      statusCategory: 'new',
      parentKey: 'PROJ-1',
      labels: ['service:managed', 'service:parent:PROJ-1'],
    });
    expect(issue.description).toBe('# Goal\n\nShip **payments**.\n\n- one\n- two');
  });

  it('links a created issue to another one', async () => {
    const bug = await client.createIssue({ projectKey: 'PROJ', issueType: 'Bug', summary: 'Crash' });
    const fix = await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'Fix: Crash (acme/api)', links: [{ type: 'Relates', issueKey: bug.key }] });
    expect(sim.state.issue(fix.key).links).toEqual([expect.objectContaining({ type: 'Relates', outwardKey: fix.key, inwardKey: bug.key })]);
    await expect(client.linkIssues('Nonsense', fix.key, bug.key)).rejects.toBeInstanceOf(NotFoundProviderError);
  });

  it('reports invalid issue input as a terminal error carrying Jira field errors', async () => {
    const error = await client.createIssue({ projectKey: 'PROJ', issueType: 'Spaceship', summary: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalProviderError);
    expect((error as TerminalProviderError).status).toBe(400);
    expect((error as TerminalProviderError).providerMessage).toContain('issuetype: Specify a valid issue type');
  });

  it('adds and removes labels, and the changelog records both', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'F', labels: ['service:managed'] });
    await client.addLabels(key, ['service:prd-pending', 'service:managed']);
    await client.updateLabels(key, [{ remove: 'service:prd-pending' }, { add: 'service:prd-approved' }]);
    await client.removeLabels(key, ['not-there']);
    const issue = await client.getIssue(key, { changelog: true });
    expect(issue.labels).toEqual(['service:managed', 'service:prd-approved']);
    expect(issue.changelog?.map((entry) => entry.items[0])).toEqual([
      { field: 'labels', fromString: 'service:managed', toString: 'service:managed service:prd-pending' },
      { field: 'labels', fromString: 'service:managed service:prd-pending', toString: 'service:managed service:prd-approved' },
    ]);
    expect(Number(issue.changelog?.[1]?.id)).toBeGreaterThan(Number(issue.changelog?.[0]?.id));
  });

  it('pages through a changelog longer than the 100 entries expand=changelog returns', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
    for (let i = 0; i < 105; i++) sim.state.updateLabels(key, [{ add: `l${i}` }]);
    const issue = await client.getIssue(key, { changelog: true });
    expect(issue.changelog).toHaveLength(105);
    expect(issue.changelog?.[104]?.items[0]?.toString).toContain('l104');
  });

  it('posts a comment carrying an idempotency key and finds it again by that key', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'F' });
    sim.state.addComment(key, 'a human comment');
    const posted = await client.addComment(key, '## PRD\n\nSee `prd.md`.', { idempotencyKey: 'PROJ-1:run:prd:comment:1' });
    expect(posted.idempotencyKey).toBe('PROJ-1:run:prd:comment:1');
    const found = await client.findCommentByIdempotencyKey(key, 'PROJ-1:run:prd:comment:1');
    expect(found?.id).toBe(posted.id);
    expect(found?.body).toBe('## PRD\n\nSee `prd.md`.');
    expect(found?.author?.emailAddress).toBe(EMAIL);
    expect(await client.findCommentByIdempotencyKey(key, 'other')).toBeUndefined();
    const comments = await client.getComments(key);
    expect(comments.map((c) => c.body)).toEqual(['a human comment', '## PRD\n\nSee `prd.md`.']);
  });

  it('addCommentOnce does not post twice under the same key', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'F' });
    const first = await client.addCommentOnce(key, 'hello', 'k1');
    const second = await client.addCommentOnce(key, 'hello', 'k1');
    expect(first.created).toBe(true);
    expect(second).toEqual({ comment: expect.objectContaining({ id: first.comment.id }), created: false });
    expect(sim.state.issue(key).comments).toHaveLength(1);
  });

  it('never adopts a person\'s comment carrying the key\'s property: writes its own once, then adopts only that', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'F' });
    // Any Jira user may set a property on their own comment, the exact one the service's next write will carry.
    const forged = sim.state.addComment(key, 'PRD: ship it as is.', undefined, [{ key: 'service.idempotency', value: { key: 'PROJ-1:run:prd:1:comment' } }]);
    expect((await client.getComments(key))[0]?.idempotencyKey).toBe('PROJ-1:run:prd:1:comment');
    expect(await client.findCommentByIdempotencyKey(key, 'PROJ-1:run:prd:1:comment')).toBeUndefined();
    const first = await client.addCommentOnce(key, '## PRD', 'PROJ-1:run:prd:1:comment');
    expect(first.created).toBe(true);
    const retry = await client.addCommentOnce(key, '## PRD', 'PROJ-1:run:prd:1:comment');
    expect(retry).toEqual({ comment: expect.objectContaining({ id: first.comment.id, body: '## PRD' }), created: false });
    expect(sim.state.issue(key).comments.map((c) => [c.id, c.author.accountId === forged.author.accountId])).toEqual([[forged.id, true], [first.comment.id, false]]);
  });

  it('asks for the service account once per client, and again only after a failed lookup, which adopts and writes nothing', async () => {
    let myself = 0;
    const counting = createTrackerClient({
      baseUrl: sim.url, email: EMAIL, apiToken: TOKEN, retry: { initialDelayMs: 10 },
      fetch: (input, init) => { if (String(input).includes('/myself')) myself++; return fetch(input, init); },
    });
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'F' });
    sim.faults.enqueue({ match: { method: 'GET', path: /\/myself$/ }, kind: 'status', status: 503, times: 10 });
    const error = await counting.addCommentOnce(key, 'hello', 'k-id').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableProviderError);
    expect((error as RetryableProviderError).effectStatus).toBe('retryable_failure');
    expect((error as Error).message).toMatch(/^tracker GET \/rest\/api\/3\/myself status 503 \(getMyself\): could not learn the service account/);
    expect(sim.state.issue(key).comments).toHaveLength(0);
    sim.faults.clear();
    const failedLookups = myself;
    expect((await counting.addCommentOnce(key, 'hello', 'k-id')).created).toBe(true);
    expect((await counting.addCommentOnce(key, 'hello', 'k-id')).created).toBe(false);
    expect(myself - failedLookups).toBe(1);
    expect(sim.state.issue(key).comments).toHaveLength(1);
  });

  it('reads every comment across pages', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'F' });
    for (let i = 0; i < 130; i++) sim.state.addComment(key, `comment ${i}`);
    const comments = await client.getComments(key);
    expect(comments).toHaveLength(130);
    expect(comments[129]?.body).toBe('comment 129');
  });

  it('transitions by transition name or by target status, case-insensitively, and is set-like', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
    const transitions = await client.getTransitions(key);
    expect(transitions.map((t) => t.to.name)).toEqual(['In Progress', 'Done', 'Closed']);
    expect(await client.transitionIssue(key, 'in progress')).toEqual({ transitioned: true, status: 'In Progress' });
    expect(await client.transitionIssue(key, 'IN PROGRESS')).toEqual({ transitioned: false, status: 'In Progress' });
    expect(await client.transitionIssue(key, 'close issue')).toEqual({ transitioned: true, status: 'Closed' });
    expect((await client.getIssue(key)).status).toBe('Closed');
    const error = await client.transitionIssue(key, 'Shipped').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionProviderError);
    expect((error as Error).message).toContain('"Start Progress" (to In Progress)');
  });

  it('stores, reads and deletes issue and project properties, with 404 meaning unset', async () => {
    const { key } = await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
    expect(await client.getIssueProperty(key, 'service.item')).toBeUndefined();
    await client.setIssueProperty(key, 'service.item', { id: 3 });
    expect(await client.getIssueProperty(key, 'service.item')).toEqual({ id: 3 });
    await client.deleteIssueProperty(key, 'service.item');
    await client.deleteIssueProperty(key, 'service.item');
    expect(await client.getIssueProperty(key, 'service.item')).toBeUndefined();

    expect(await client.getProjectProperty('PROJ', 'service.repos')).toBeUndefined();
    await client.setProjectProperty('PROJ', 'service.repos', ['acme/api', { name: 'acme/web', draft: true }]);
    await client.setProjectProperty('PROJ', 'service.default_repo', 'acme/api');
    expect(await client.getProjectProperty('PROJ', 'service.repos')).toEqual(['acme/api', { name: 'acme/web', draft: true }]);
    expect(await client.getProjectProperty('PROJ', 'service.default_repo')).toBe('acme/api');
    await client.deleteProjectProperty('PROJ', 'service.default_repo');
    await client.deleteProjectProperty('PROJ', 'service.default_repo');
    expect(await client.getProjectProperty('PROJ', 'service.default_repo')).toBeUndefined();
  });

  it('treats an unknown project as an error, not as an unset property', async () => {
    const error = await client.getProjectProperty('NOPE', 'service.repos').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundProviderError);
    expect((error as NotFoundProviderError).providerMessage).toContain("No project could be found with key 'NOPE'");
    await expect(client.setProjectProperty('NOPE', 'service.repos', [])).rejects.toBeInstanceOf(NotFoundProviderError);
  });

  it('searches with JQL and follows page tokens', async () => {
    for (let i = 0; i < 7; i++) {
      await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: `T${i}`, labels: i % 2 === 0 ? ['service:managed'] : [] });
    }
    const first = await client.searchIssues('project = PROJ AND labels = "service:managed" ORDER BY key ASC', { maxResults: 2 });
    expect(first.issues.map((i) => i.key)).toEqual(['PROJ-1', 'PROJ-3']);
    expect(first.nextPageToken).toBeTruthy();
    const all = await client.searchAllIssues('labels = service:managed AND updated >= -15m ORDER BY key DESC', { pageSize: 3 });
    expect(all.map((i) => i.key)).toEqual(['PROJ-7', 'PROJ-5', 'PROJ-3', 'PROJ-1']);
    expect(all[0]?.labels).toEqual(['service:managed']);
    const error = await client.searchIssues('labels = x AND').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalProviderError);
    expect((error as TerminalProviderError).status).toBe(400);
  });

  it('reads a user\'s groups (GET /user/groups), follows membership changes, and answers 404 for an unknown account', async () => {
    const lead = sim.state.userForEmail('lead@example.com');
    const other = sim.state.userForEmail('other@example.com');
    expect(await client.getUserGroups(lead.accountId)).toEqual([]);
    sim.state.setGroupMembers('release-leads', [lead.accountId]);
    sim.state.setGroupMembers('everyone', [lead.accountId, other.accountId]);
    const groups = await client.getUserGroups(lead.accountId);
    expect(groups.map((g) => g.name)).toEqual(['everyone', 'release-leads']);
    expect(groups[1]?.groupId).toBe(sim.state.groups.get('release-leads')?.groupId);
    sim.state.setGroupMembers('release-leads', [other.accountId]);
    expect((await client.getUserGroups(lead.accountId)).map((g) => g.name)).toEqual(['everyone']);
    const error = await client.getUserGroups('712020:00000000-0000-0000-0000-000000000000').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundProviderError);
    expect((error as NotFoundProviderError).operation).toBe('getUserGroups');
  });

  it('returns 404 as NotFoundProviderError for an unknown issue', async () => {
    const error = await client.getIssue('PROJ-999').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundProviderError);
    expect((error as NotFoundProviderError).path).toBe('/rest/api/3/issue/PROJ-999');
  });

  describe('faults', () => {
    it('retries a read after a 429 and waits for Retry-After', async () => {
      sim.faults.enqueue({ match: { method: 'GET', path: /\/issue\/PROJ-1$/ }, kind: 'rate-limit', retryAfterSeconds: 1 });
      await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
      const started = Date.now();
      const issue = await client.getIssue('PROJ-1');
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(issue.key).toBe('PROJ-1');
      expect(sim.faults.applied).toEqual([{ method: 'GET', path: '/rest/api/3/issue/PROJ-1', kind: 'rate-limit' }]);
    });

    it('retries a write after a 429, because the write was not applied', async () => {
      await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
      sim.faults.enqueue({ match: { method: 'POST', path: /comment$/ }, kind: 'rate-limit', retryAfterSeconds: 1 });
      const started = Date.now();
      await client.addComment('PROJ-1', 'hi', { idempotencyKey: 'k' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(sim.state.issue('PROJ-1').comments).toHaveLength(1);
    });

    it('surfaces a 503 on a write as a retryable error without repeating the write', async () => {
      await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
      sim.faults.enqueue({ match: { method: 'POST', path: /comment$/ }, kind: 'status', status: 503, times: 5 });
      const error = await client.addComment('PROJ-1', 'hi').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect((error as RetryableProviderError).status).toBe(503);
      expect((error as RetryableProviderError).effectStatus).toBe('retryable_failure');
      expect(sim.faults.applied).toHaveLength(1);
    });

    it('retries reads through transient 5xx up to the attempt limit, then surfaces a retryable error', async () => {
      await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
      sim.faults.enqueue({ match: { method: 'GET' }, kind: 'status', status: 502, times: 2 });
      expect((await client.getIssue('PROJ-1')).key).toBe('PROJ-1');
      sim.faults.enqueue({ match: { method: 'GET' }, kind: 'status', status: 500, times: 3 });
      const error = await client.getIssue('PROJ-1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect(sim.faults.applied).toHaveLength(5);
    });

    it('marks a write that was applied but never answered as outcome unknown, and the key finds it', async () => {
      await client.createIssue({ projectKey: 'PROJ', issueType: 'Task', summary: 'T' });
      const impatient = createTrackerClient({ baseUrl: sim.url, email: EMAIL, apiToken: TOKEN, timeoutMs: 300 });
      sim.faults.enqueue({ match: { method: 'POST', path: /comment$/ }, kind: 'apply-then-timeout', holdMs: 5_000 });
      const error = await impatient.addComment('PROJ-1', 'maybe', { idempotencyKey: 'effect-7' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect((error as RetryableProviderError).outcomeUnknown).toBe(true);
      expect((error as RetryableProviderError).effectStatus).toBe('indeterminate');
      expect((await client.findCommentByIdempotencyKey('PROJ-1', 'effect-7'))?.body).toBe('maybe');
    });

    it('surfaces a tracker that keeps failing a group lookup as a retryable error, after retrying the read', async () => {
      const lead = sim.state.userForEmail('lead@example.com');
      sim.faults.enqueue({ match: { method: 'GET', path: /\/user\/groups$/ }, kind: 'status', status: 503, times: 3 });
      const error = await client.getUserGroups(lead.accountId).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect((error as RetryableProviderError).status).toBe(503);
      expect(sim.faults.applied).toHaveLength(3);
    });

    it('reports a slow response as a timeout', async () => {
      const impatient = createTrackerClient({ baseUrl: sim.url, email: EMAIL, apiToken: TOKEN, timeoutMs: 200, retry: { maxAttempts: 1 } });
      sim.faults.enqueue({ kind: 'delay', ms: 1_000 });
      const error = await impatient.getMyself().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryableProviderError);
      expect((error as Error).message).toContain('timed out after 200 ms');
    });

    it('reports latency to the metrics hook', async () => {
      const seen: Array<[string, number]> = [];
      const measured = createTrackerClient({ baseUrl: sim.url, email: EMAIL, apiToken: TOKEN, onLatency: (service, seconds) => seen.push([service, seconds]) });
      await measured.getMyself();
      expect(seen).toHaveLength(1);
      expect(seen[0]?.[0]).toBe('tracker');
      expect(seen[0]?.[1]).toBeGreaterThan(0);
    });
  });
});

describe('trackerOptionsFromEnv', () => {
  it('names every missing variable', () => {
    expect(() => trackerOptionsFromEnv({ TRACKER_BASE_URL: 'https://x' })).toThrow('TRACKER_USER_EMAIL, TRACKER_API_TOKEN');
  });
  it('reads the three variables', () => {
    expect(trackerOptionsFromEnv({ TRACKER_BASE_URL: 'https://acme.atlassian.net', TRACKER_USER_EMAIL: 'a@b.c', TRACKER_API_TOKEN: 'tok' }))
      .toEqual({ baseUrl: 'https://acme.atlassian.net', email: 'a@b.c', apiToken: 'tok' });
  });
});
