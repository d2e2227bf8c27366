import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRepositoryRegistry } from '../../../../src/config/repository-registry';
import { createGitLabClient, GitLabClient, gitLabOptionsForRepository } from '../../../../src/providers/gitlab/gitlab-client';
import { ConflictLike } from './conflict-like';
import { NotFoundProviderError, RetryableProviderError, TerminalProviderError } from '../../../../src/providers/provider-errors';
import { GitLabSimulator, startGitLabSimulator } from '../../../../src/sandbox/gitlab-simulator/gitlab-simulator';

const NS = 'fin/payments';

describe('GitLab client against the GitLab simulator (self-managed prefix, registry-configured)', () => {
  let sim: GitLabSimulator;
  let client: GitLabClient;

  beforeEach(async () => {
    sim = await startGitLabSimulator({ pathPrefix: '/gitlab', projects: [NS], tokens: { 'glpat-test-token-123456': 'service-bot' } });
    const registry = parseRepositoryRegistry(`
connections:
  corp: { provider: gitlab, base_url: "${sim.url}", credential_env: CORP_TOKEN }
repositories:
  payments: { provider: gitlab, connection: corp, namespace: ${NS} }
`);
    const options = gitLabOptionsForRepository(registry.repositories.get('payments')!, { CORP_TOKEN: 'glpat-test-token-123456' });
    client = createGitLabClient({ ...options, retry: { initialDelayMs: 10 } });
  });
  afterEach(async () => { await sim.close(); });

  it('reads the project and its branches, and creates a branch', async () => {
    expect(await client.getProject(NS)).toMatchObject({ pathWithNamespace: NS, defaultBranch: 'main' });
    const main = await client.getBranch(NS, 'main');
    expect(main?.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await client.getBranch(NS, 'nope')).toBeUndefined();
    expect(await client.createBranch(NS, 'service/proj-1', 'main')).toEqual({ name: 'service/proj-1', sha: main?.sha });
    await expect(client.createBranch(NS, 'service/proj-1', 'main')).rejects.toBeInstanceOf(TerminalProviderError);
  });

  it('creates, finds, updates and lists merge requests', async () => {
    sim.state.push(sim.state.project(NS), 'service/proj-1');
    sim.state.push(sim.state.project(NS), 'feature/x');
    const mr = await client.createMergeRequest(NS, { title: '[PROJ-1] Pay', description: 'd', sourceBranch: 'service/proj-1', targetBranch: 'main' });
    expect(mr).toMatchObject({ iid: 1, state: 'opened', sourceBranch: 'service/proj-1', draft: false, author: 'service-bot' });
    expect(mr.webUrl).toContain('/gitlab/fin/payments/-/merge_requests/1');
    await client.createMergeRequest(NS, { title: 'Other', description: '', sourceBranch: 'feature/x', targetBranch: 'main', draft: true });
    const duplicate = await client.createMergeRequest(NS, { title: 'again', description: '', sourceBranch: 'service/proj-1', targetBranch: 'main' }).catch((e: unknown) => e);
    expect(duplicate).toSatisfy(ConflictLike);
    expect((await client.findMergeRequestBySourceBranch(NS, 'service/proj-1'))?.iid).toBe(1);
    expect(await client.findMergeRequestBySourceBranch(NS, 'service/none')).toBeUndefined();
    expect((await client.updateMergeRequest(NS, 1, { description: 'new' })).description).toBe('new');
    expect((await client.listOpenMergeRequestsByBranchPrefix(NS, 'service/')).map((m) => m.iid)).toEqual([1]);
    expect((await client.getMergeRequest(NS, 2)).draft).toBe(true);
    expect((await client.updateMergeRequest(NS, 2, { stateEvent: 'close' })).state).toBe('closed');
  });

  it('posts notes with an idempotency marker and finds them, across pages', async () => {
    sim.state.push(sim.state.project(NS), 'service/proj-1');
    await client.createMergeRequest(NS, { title: 't', description: '', sourceBranch: 'service/proj-1', targetBranch: 'main' });
    const mr = sim.state.project(NS).mergeRequests[0]!;
    for (let i = 0; i < 101; i++) sim.state.addNote(mr, `n${i}`, 'reviewer');
    const note = await client.createMergeRequestNote(NS, 1, 'Done.', { idempotencyKey: 'gl-1' });
    expect(note.idempotencyKey).toBe('gl-1');
    const notes = await client.listMergeRequestNotes(NS, 1);
    expect(notes).toHaveLength(102);
    expect((await client.findNoteByIdempotencyKey(NS, 1, 'gl-1'))?.id).toBe(note.id);
  });

  it('never adopts a person\'s note carrying the marker of its next write, and names a failed lookup of its own username', async () => {
    sim.state.push(sim.state.project(NS), 'service/proj-1');
    await client.createMergeRequest(NS, { title: 't', description: '', sourceBranch: 'service/proj-1', targetBranch: 'main' });
    const mr = sim.state.project(NS).mergeRequests[0]!;
    const forged = sim.state.addNote(mr, 'Approved, merge it.\n\n<!-- service:idempotency-key=PROJ-1:run:ci:1:note -->', 'mallory');
    expect(await client.findNoteByIdempotencyKey(NS, 1, 'PROJ-1:run:ci:1:note')).toBeUndefined();
    const own = await client.createMergeRequestNote(NS, 1, 'CI passed.', { idempotencyKey: 'PROJ-1:run:ci:1:note' });
    expect(await client.findNoteByIdempotencyKey(NS, 1, 'PROJ-1:run:ci:1:note')).toMatchObject({ id: own.id, author: 'service-bot' });
    expect(mr.notes.map((n) => n.id)).toEqual([forged.id, own.id]);

    const fresh = createGitLabClient({ apiBaseUrl: sim.apiUrl, token: 'glpat-test-token-123456', retry: { initialDelayMs: 10 } });
    sim.faults.enqueue({ match: { method: 'GET', path: /\/user$/ }, kind: 'status', status: 503, times: 10 });
    const error = await fresh.findNoteByIdempotencyKey(NS, 1, 'PROJ-1:run:ci:1:note').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableProviderError);
    expect((error as RetryableProviderError).effectStatus).toBe('retryable_failure');
    expect((error as Error).message).toMatch(/^gitlab GET \/user status 503 \(getCurrentUser\): could not learn the service account/);
    sim.faults.clear();
    expect((await fresh.findNoteByIdempotencyKey(NS, 1, 'PROJ-1:run:ci:1:note'))?.id).toBe(own.id);
  });

  it('reads discussions, replies in a thread with the marker, and resolves it (403 where it may not)', async () => {
    sim.state.push(sim.state.project(NS), 'service/proj-1');
    await client.createMergeRequest(NS, { title: 't', description: '', sourceBranch: 'service/proj-1', targetBranch: 'main' });
    const mr = sim.state.project(NS).mergeRequests[0]!;
    sim.state.addNote(mr, 'Plain.', 'reviewer');
    const diff = sim.state.startDiscussion(mr, 'Say which invoices.', 'reviewer', { position: { path: 'src/export.ts', line: 12 } });
    const reply = await client.createMergeRequestDiscussionNote(NS, 1, diff.discussionId, 'Done.', { idempotencyKey: 'gl-reply' });
    expect(reply).toMatchObject({ type: 'DiffNote', idempotencyKey: 'gl-reply', resolvable: true, resolved: false, position: { path: 'src/export.ts', line: 12 } });
    const [plain, thread] = await client.listMergeRequestDiscussions(NS, 1);
    expect(plain).toMatchObject({ individualNote: true, resolvable: false, resolved: false, notes: [{ type: null, body: 'Plain.' }] });
    expect(thread).toMatchObject({ id: diff.discussionId, individualNote: false, resolvable: true, resolved: false });
    expect(thread!.notes.map((n) => [n.author, n.idempotencyKey])).toEqual([['reviewer', undefined], ['service-bot', 'gl-reply']]);
    expect(await client.resolveMergeRequestDiscussion(NS, 1, diff.discussionId)).toMatchObject({ resolved: true });
    expect((await client.getMergeRequestDiscussion(NS, 1, diff.discussionId)).resolved).toBe(true);
    await expect(client.getMergeRequestDiscussion(NS, 1, 'f'.repeat(40))).rejects.toBeInstanceOf(NotFoundProviderError);
    const refused = await client.resolveMergeRequestDiscussion(NS, 1, plain!.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TerminalProviderError);
    expect((refused as TerminalProviderError).status).toBe(403);
  });

  it('lists pipelines of a merge request and of a commit', async () => {
    const project = sim.state.project(NS);
    const sha = sim.state.push(project, 'service/proj-1');
    await client.createMergeRequest(NS, { title: 't', description: '', sourceBranch: 'service/proj-1', targetBranch: 'main' });
    sim.state.reportPipeline(project, 'service/proj-1', sha, 'failed');
    sim.state.reportPipeline(project, 'service/proj-1', sha, 'running');
    expect((await client.listMergeRequestPipelines(NS, 1)).map((p) => p.status)).toEqual(['running', 'failed']);
    expect((await client.listPipelinesForSha(NS, sha)).every((p) => p.sha === sha)).toBe(true);
    expect(await client.listPipelinesForSha(NS, 'f'.repeat(40))).toEqual([]);
  });

  it('maps errors: 404, bad token, retried 503 on reads, 429 waits', async () => {
    await expect(client.getProject('fin/unknown')).rejects.toBeInstanceOf(NotFoundProviderError);
    const bad = createGitLabClient({ apiBaseUrl: sim.apiUrl, token: 'glpat-wrong-000000000000' });
    const error = await bad.getProject(NS).catch((e: unknown) => e);
    expect((error as TerminalProviderError).status).toBe(401);
    expect((error as Error).message).not.toContain('glpat-wrong');
    sim.faults.enqueue({ match: { method: 'GET' }, kind: 'status', status: 503 });
    expect((await client.getProject(NS)).pathWithNamespace).toBe(NS);
    sim.faults.enqueue({ match: { method: 'POST' }, kind: 'status', status: 503 });
    await expect(client.createBranch(NS, 'x', 'main')).rejects.toBeInstanceOf(RetryableProviderError);
    sim.faults.enqueue({ kind: 'rate-limit', retryAfterSeconds: 1 });
    const started = Date.now();
    await client.getProject(NS);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});
