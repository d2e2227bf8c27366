import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEffectActivities } from '../../../activities/effect-activities';
import { resolutionStep } from '../../../activities/merge-request-effect-activities';
import { openMergeRequestFeedback } from '../../../activities/stations/code-change/merge-request-feedback';
import { parseRepositoryRegistry } from '../../../src/config/repository-registry';
import { gitlabHookSchema } from '../../../src/ingress/gitlab/gitlab-webhook-schema';
import { normaliseGitLabEvent } from '../../../src/ingress/gitlab/normalise-gitlab-event';
import { createLogger } from '../../../src/logging/logger';
import { createGitLabClient } from '../../../src/providers/gitlab/gitlab-client';
import { createGitLabRepositories } from '../../../src/providers/gitlab/gitlab-repositories';
import { startGitLabSimulator, type GitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { discussionsOf } from '../../../src/sandbox/gitlab-simulator/gitlab-discussions';
import { pushCommit, remoteUrl } from '../sandbox/git-over-http';

const TOKEN = 'glpat-mergeRequestEffects0123';

/** The pull-request effects of a GitLab project of the repository registry, over real HTTP against the GitLab simulator. */
describe('merge request effects', () => {
  let gitlab: GitLabSimulator;
  let effects: ReturnType<typeof createEffectActivities>;
  let hooks: Server;
  const received: Array<{ headers: Record<string, string | string[] | undefined>; body: unknown }> = [];

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => { received.push({ headers: req.headers, body: JSON.parse(body) }); res.statusCode = 202; res.end(); });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    const port = (hooks.address() as { port: number }).port;
    gitlab = await startGitLabSimulator({ tokens: { [TOKEN]: 'service-bot' }, projects: ['platform/billing', 'platform/forked', 'platform/reviewed'], webhook: { url: `http://127.0.0.1:${port}/hook`, secret: 'hook-secret' } });
    const registry = parseRepositoryRegistry(JSON.stringify({
      connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_TOKEN' }, unset: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_UNSET' } },
      repositories: {
        'platform/billing': { provider: 'gitlab', connection: 'gl', namespace: 'platform/billing' },
        'platform/forked': { provider: 'gitlab', connection: 'gl', namespace: 'platform/forked', change_request_mode: 'fork' },
        'platform/reviewed': { provider: 'gitlab', connection: 'gl', namespace: 'platform/reviewed' },
        'platform/nocred': { provider: 'gitlab', connection: 'unset', namespace: 'platform/nocred' },
      },
    }));
    effects = createEffectActivities({ gitlab: createGitLabRepositories(registry, { env: { GL_TOKEN: TOKEN } }), logger: createLogger({ level: 'error', write: () => undefined }) });
  });
  afterAll(async () => Promise.all([gitlab?.close(), new Promise((resolve) => hooks?.close(resolve))]));

  const perform = (key: string, operation: Record<string, unknown>, attempt = 1) => effects.performEffect({ idempotency_key: key, attempt, operation } as never);

  it('opens a merge request once (a repeat adopts the open one of the branch), as a draft when asked, and its reference is group/project!iid', async () => {
    const project = gitlab.state.project('platform/billing');
    gitlab.state.push(project, 'service/fd-1');
    const operation = { kind: 'scmhost.open_pr', repository: 'platform/billing', head: 'service/fd-1', base: null, title: '[FD-1] Export', body: 'What and why; token glpat-abcdefghijklmnopqrst', draft: true };
    const first = await perform('FD-1:r:create_pr:1:open_pr', operation);
    expect(first).toMatchObject({ status: 'succeeded', evidence: { provider: 'gitlab', ids: { pull_request: 'platform/billing!1', number: '1' }, url: `${gitlab.url}/platform/billing/-/merge_requests/1` } });
    expect(first.evidence).not.toHaveProperty('adopted');
    const again = await perform('FD-1:r:create_pr:1:open_pr', { ...operation, title: 'a retry' }, 2);
    expect(again).toMatchObject({ status: 'succeeded', evidence: { ids: { pull_request: 'platform/billing!1' }, adopted: true } });
    expect(project.mergeRequests.map((mr) => [mr.iid, mr.title, mr.targetBranch, mr.description])).toEqual([[1, 'Draft: [FD-1] Export', 'main', 'What and why; token [REDACTED]']]);
  });

  it('updates the description only when it differs, keeping the draft prefix of the title', async () => {
    const operation = { kind: 'scmhost.update_pr', repository: 'platform/billing', number: 1, title: '[FD-1] Export v2', body: 'New description' };
    expect(await perform('k-update', operation)).toMatchObject({ status: 'succeeded', evidence: { ids: { pull_request: 'platform/billing!1' } } });
    const mr = gitlab.state.project('platform/billing').mergeRequests[0]!;
    expect([mr.title, mr.description]).toEqual(['Draft: [FD-1] Export v2', 'New description']);
    expect(await perform('k-update', operation, 2)).toMatchObject({ evidence: { adopted: true } });
  });

  it('posts a comment as a note once, found again by its key', async () => {
    const comment = { kind: 'scmhost.pr_comment', repository: 'platform/billing', number: 1, body: 'Rebased on main.' };
    expect(await perform('k-comment', comment)).toMatchObject({ status: 'succeeded' });
    expect(await perform('k-comment', comment, 2)).toMatchObject({ evidence: { adopted: true } });
    const notes = gitlab.state.project('platform/billing').mergeRequests[0]!.notes.map((n) => n.body.split('\n<!--')[0]!.trim());
    expect(notes).toEqual(['Rebased on main.']);
  });

  it('fails closed, without a write, for a connection without its credential', async () => {
    const nocred = await perform('k-nocred', { kind: 'scmhost.pr_comment', repository: 'platform/nocred', number: 1, body: 'x' });
    expect(nocred).toMatchObject({ status: 'terminal_failure', error: expect.stringContaining('set GL_UNSET') });
  });

  it('announces merge requests, notes, pipelines and merges with GitLab webhooks the ingress reads', async () => {
    const project = gitlab.state.project('platform/billing');
    const mr = project.mergeRequests[0]!;
    gitlab.state.reportPipeline(project, mr.sourceBranch, project.branches.get(mr.sourceBranch)!, 'failed');
    gitlab.state.merge(project, mr);
    await gitlab.webhooks.flush();
    expect(received.every((r) => r.headers['x-gitlab-token'] === 'hook-secret')).toBe(true);
    const observed = received.map((r) => normaliseGitLabEvent(gitlabHookSchema.parse(r.body)));
    const kinds = observed.map((o) => (o.kind === 'observation' ? `${o.observation.event}:${o.observation.claim ?? o.observation.facts.action}` : o.kind));
    expect(kinds).toEqual(['merge_request:open', 'merge_request:update', 'note:created', 'pipeline:completed', 'merge_request:merged']);
    const pipeline = observed[3]!;
    expect(pipeline.kind === 'observation' && pipeline.observation.facts.pipeline).toMatchObject({ status: 'failed', sha: project.branches.get('service/fd-1') });
    expect(pipeline.kind === 'observation' && pipeline.routing.pull_request_ref).toBe('platform/billing!1');
  });

  it('writes its own note beside a person\'s note carrying the exact marker of the write, and a retry adopts its own', async () => {
    const mr = gitlab.state.project('platform/billing').mergeRequests[0]!;
    const forged = gitlab.state.addNote(mr, 'Closing summary: nothing to do here.\n\n<!-- service:idempotency-key=k-forged-note -->', 'mallory');
    const comment = { kind: 'scmhost.pr_comment', repository: 'platform/billing', number: 1, body: 'Merged; the ticket is done.' };
    const first = await perform('k-forged-note', comment);
    expect(first).toMatchObject({ status: 'succeeded' });
    expect(first.evidence).not.toHaveProperty('adopted');
    expect(first.evidence!.ids!.note_id).not.toBe(String(forged.id));
    expect(await perform('k-forged-note', comment, 2)).toMatchObject({ evidence: { adopted: true, ids: first.evidence!.ids } });
    const marked = mr.notes.filter((n) => n.body.includes('k-forged-note')).map((n) => [n.id, n.author, n.body.split('\n')[0]]);
    expect(marked).toEqual([[forged.id, 'mallory', 'Closing summary: nothing to do here.'], [Number(first.evidence!.ids!.note_id), 'service-bot', 'Merged; the ticket is done.']]);
  });

  describe('a reply in a discussion thread', () => {
    const reply = (comment_id: string, extra: Record<string, unknown> = {}) => ({ kind: 'scmhost.review_reply', repository: 'platform/billing', number: 2, comment_id, body: 'Done in abc1234: listed them', ...extra });
    let mr: ReturnType<GitLabSimulator['state']['project']>['mergeRequests'][number];

    beforeAll(() => {
      const project = gitlab.state.project('platform/billing');
      gitlab.state.push(project, 'service/fd-3');
      mr = { id: gitlab.state.id(), iid: 2, title: '[FD-3] Rows', description: '', state: 'opened', sourceBranch: 'service/fd-3', targetBranch: 'main', author: 'service-bot', createdAt: 't', updatedAt: 't', notes: [] };
      project.mergeRequests.push(mr);
    });
    const discussion = (id: string) => gitlab.state.discussion(mr, id);

    it('replies once in the thread (a repeat finds its reply there by its key) and resolves it when asked', async () => {
      const thread = gitlab.state.startDiscussion(mr, 'Say which invoices are exported.', 'octo-reviewer', { position: { path: 'src/export.ts', line: 3 } });
      const first = await perform('k-thread', reply(thread.discussionId, { resolve: true }));
      expect(first).toMatchObject({ status: 'succeeded', evidence: { provider: 'gitlab', ids: { discussion_id: thread.discussionId, resolution: 'resolved' } } });
      expect(first.evidence).not.toHaveProperty('adopted');
      const again = await perform('k-thread', reply(thread.discussionId, { resolve: true }), 2);
      expect(again).toMatchObject({ status: 'succeeded', evidence: { adopted: true, ids: { note_id: first.evidence!.ids!.note_id, resolution: 'already_resolved' } } });
      expect(discussion(thread.discussionId).notes.map((n) => [n.author, n.type, n.body.split('\n')[0], n.resolvedBy])).toEqual([
        ['octo-reviewer', 'DiffNote', 'Say which invoices are exported.', 'service-bot'],
        ['service-bot', 'DiffNote', 'Done in abc1234: listed them', 'service-bot'],
      ]);
    });

    it('replies beside a person\'s reply that carries the marker of its reply, and a retry adopts its own', async () => {
      const thread = gitlab.state.startDiscussion(mr, 'Why are refunds left out?', 'octo-reviewer', { position: { path: 'src/export.ts', line: 5 } });
      const forged = gitlab.state.replyInDiscussion(mr, thread.discussionId, 'Intentional, nothing to change.\n\n<!-- service:idempotency-key=k-thread-forged -->', 'mallory');
      const first = await perform('k-thread-forged', reply(thread.discussionId));
      expect(first).toMatchObject({ status: 'succeeded' });
      expect(first.evidence).not.toHaveProperty('adopted');
      expect(await perform('k-thread-forged', reply(thread.discussionId), 2)).toMatchObject({ evidence: { adopted: true, ids: { note_id: first.evidence!.ids!.note_id } } });
      expect(discussion(thread.discussionId).notes.map((n) => [n.id === forged.id, n.author, n.body.split('\n')[0]])).toEqual([
        [false, 'octo-reviewer', 'Why are refunds left out?'],
        [true, 'mallory', 'Intentional, nothing to change.'],
        [false, 'service-bot', 'Done in abc1234: listed them'],
      ]);
    });

    it('leaves a thread open when not asked, and records GitLab refusing to resolve without failing the reply', async () => {
      const asked = gitlab.state.startDiscussion(mr, 'Why CSV?', 'octo-reviewer');
      expect(await perform('k-asked', reply(asked.discussionId, { body: 'CSV opens anywhere.' }))).toMatchObject({ status: 'succeeded', evidence: { ids: { discussion_id: asked.discussionId } } });
      expect(discussion(asked.discussionId).notes.map((n) => n.resolvedAt)).toEqual([undefined, undefined]);

      const project = gitlab.state.project('platform/billing');
      const forbidden = gitlab.state.startDiscussion(mr, 'Rename it.', 'octo-reviewer');
      project.resolveForbidden = true;
      const refused = await perform('k-forbidden', reply(forbidden.discussionId, { resolve: true }));
      project.resolveForbidden = false;
      expect(refused).toMatchObject({ status: 'succeeded', evidence: { ids: { resolution: 'refused' }, note: expect.stringContaining('(403)') } });
      expect(discussion(forbidden.discussionId).notes.map((n) => [n.author, n.resolvedAt])).toEqual([['octo-reviewer', undefined], ['service-bot', undefined]]);
    });

    it('retries a resolve that failed for a while: the repeat adopts the reply and resolves', async () => {
      const thread = gitlab.state.startDiscussion(mr, 'Add a test.', 'octo-reviewer');
      gitlab.faults.enqueue({ match: { method: 'PUT', path: /\/discussions\/[0-9a-f]{40}$/ }, kind: 'status', status: 503, times: 10 });
      const first = await perform('k-retry', reply(thread.discussionId, { resolve: true }));
      gitlab.faults.clear();
      expect(first.status).toBe('retryable_failure');
      const second = await perform('k-retry', reply(thread.discussionId, { resolve: true }), 2);
      expect(second).toMatchObject({ status: 'succeeded', evidence: { adopted: true, ids: { resolution: 'resolved' } } });
      expect(discussion(thread.discussionId).notes.filter((n) => n.author === 'service-bot')).toHaveLength(1);
    });

    it('does not try to resolve a plain comment (it cannot be), and a missing discussion is not found', async () => {
      const comment = gitlab.state.addNote(mr, 'Nice.', 'octo-reviewer');
      expect(await perform('k-plain', reply(comment.discussionId, { resolve: true }))).toMatchObject({ status: 'succeeded', evidence: { ids: { resolution: 'not_resolvable' } } });
      expect(await perform('k-missing', reply('f'.repeat(40)))).toMatchObject({ status: 'terminal_failure', evidence: { status_code: 404 } });
    });
  });

  describe('the service review on a merge request with a real diff', () => {
    const lines = (from: number, to: number, text = (n: number) => `line ${n}`) => Array.from({ length: to - from + 1 }, (_, i) => `${text(from + i)}\n`).join('');
    const project = () => gitlab.state.project('platform/reviewed');
    let iid = 0;
    // What the diff holds: src/export.ts line 3 changed and line 31 added (two hunks, lines 1-6 and 28-31), src/new.ts added.
    const findings = [
      { path: 'src/export.ts', line: 3, body: 'an off-by-one; token glpat-abcdefghijklmnopqrst' },
      { path: 'README.md', line: 1, body: 'the README does not mention the export' },
      { path: 'src/export.ts', line: 15, body: 'this loop is quadratic' },
      { path: 'src/new.ts', line: 2, body: 'name the constant' },
      { path: 'src/export.ts', line: 31, body: 'the last line lacks a test' },
    ];
    const review = (extra: Record<string, unknown> = {}) => ({ kind: 'scmhost.pr_review', repository: 'platform/reviewed', number: iid, event: 'COMMENT', body: 'Automated review by the service', comments: findings, ...extra });
    const mr = () => project().mergeRequests.find((m) => m.iid === iid)!;
    const visible = (body: string) => body.split('\n\n<!--')[0]!;
    const threadsOf = () => discussionsOf(mr().notes).filter((d) => d.notes[0]!.type === 'DiffNote');
    const notesOf = () => discussionsOf(mr().notes).filter((d) => d.notes[0]!.type === null);

    beforeAll(async () => {
      const remote = remoteUrl(gitlab.url, 'platform/reviewed', TOKEN);
      await pushCommit(remote, 'main', { 'src/export.ts': lines(1, 30) }, 'seed');
      await pushCommit(remote, 'service/fd-4', { 'src/export.ts': lines(1, 31, (n) => (n === 3 ? 'line three' : `line ${n}`)), 'src/new.ts': 'export const a = 1;\nexport const b = 2;\n' }, '[FD-4] export');
      const opened = await perform('k-open-fd-4', { kind: 'scmhost.open_pr', repository: 'platform/reviewed', head: 'service/fd-4', base: null, title: '[FD-4] Export', body: 'b' });
      iid = Number(opened.evidence!.ids!.number);
    }, 60_000);

    it('puts each finding with a line of the diff in a thread on that line, and the body with the others in one note, once', async () => {
      const first = await perform('k-review-fd-4', review());
      expect(first).toMatchObject({ status: 'succeeded', evidence: { provider: 'gitlab', note: expect.stringContaining('2 finding(s)') } });
      expect(first.evidence).not.toHaveProperty('adopted');
      const threads = threadsOf();
      const head = project().branches.get('service/fd-4');
      expect(threads.map((d) => [d.notes[0]!.position!.new_path, d.notes[0]!.position!.new_line, d.notes[0]!.position!.head_sha, d.notes[0]!.author, visible(d.notes[0]!.body)])).toEqual([
        ['src/export.ts', 3, head, 'service-bot', 'an off-by-one; token [REDACTED]'],
        ['src/new.ts', 2, head, 'service-bot', 'name the constant'],
        ['src/export.ts', 31, head, 'service-bot', 'the last line lacks a test'],
      ]);
      expect(notesOf().map((d) => visible(d.notes[0]!.body))).toEqual([
        'Automated review by the service\n\nNot on a line of this merge request\'s diff:\n\n- `README.md:1`: the README does not mention the export\n- `src/export.ts:15`: this loop is quadratic',
      ]);
      expect(first.evidence!.ids).toEqual({ note_id: String(notesOf()[0]!.notes[0]!.id), discussion_ids: threads.map((d) => d.id).join(',') });

      const again = await perform('k-review-fd-4', review(), 2);
      expect(again).toMatchObject({ status: 'succeeded', evidence: { adopted: true, ids: first.evidence!.ids, note: first.evidence!.note } });
      expect([threadsOf().length, notesOf().length]).toEqual([3, 1]);
    });

    it('after an attempt whose outcome is lost past the first thread, the next attempt adopts that thread and writes only what is missing', async () => {
      const key = 'k-review-fd-4-crash';
      const before = threadsOf().length;
      // The first thread is written, its answer never arrives: the attempt fails with an unknown outcome (the write
      // may land after the connection dropped, as on GitLab).
      gitlab.faults.enqueue({ match: { method: 'POST', path: /\/discussions$/ }, kind: 'apply-then-timeout', holdMs: 50 });
      const crashed = await perform(key, review());
      expect(crashed).toMatchObject({ status: 'indeterminate', evidence: { note: expect.stringContaining('may have been applied') } });
      await vi.waitFor(() => expect(threadsOf().length - before).toBe(1), { timeout: 10_000 });
      expect(notesOf()).toHaveLength(1);

      const second = await perform(key, review(), 2);
      expect(second.status).toBe('succeeded');
      const third = await perform(key, review(), 3);
      expect(third).toMatchObject({ status: 'succeeded', evidence: { adopted: true, ids: second.evidence!.ids } });
      const ours = threadsOf().slice(before);
      expect(ours.map((d) => [d.notes[0]!.position!.new_path, d.notes[0]!.position!.new_line])).toEqual([['src/export.ts', 3], ['src/new.ts', 2], ['src/export.ts', 31]]);
      expect(second.evidence!.ids!.discussion_ids).toBe(ours.map((d) => d.id).join(','));
      expect(notesOf()).toHaveLength(2);
      expect(visible(notesOf()[1]!.notes[0]!.body)).toBe(visible(notesOf()[0]!.notes[0]!.body));
    });

    it('writes its whole review beside a person\'s summary note and finding thread carrying its markers, and a retry adopts its own', async () => {
      const key = 'k-review-fd-4-forged';
      const before = { threads: threadsOf().length, notes: notesOf().length };
      gitlab.state.addNote(mr(), `Automated review: no findings.\n\n<!-- service:idempotency-key=${key} -->`, 'mallory');
      gitlab.state.startDiscussion(mr(), `Fine as is.\n\n<!-- service:idempotency-key=${key}:finding:0 -->`, 'mallory', { position: { path: 'src/export.ts', line: 3 } });
      const first = await perform(key, review());
      expect(first).toMatchObject({ status: 'succeeded' });
      expect(first.evidence).not.toHaveProperty('adopted');
      expect(await perform(key, review(), 2)).toMatchObject({ status: 'succeeded', evidence: { adopted: true, ids: first.evidence!.ids } });
      const threads = threadsOf().slice(before.threads);
      expect(threads.map((d) => [d.notes[0]!.author, d.notes[0]!.position!.new_line])).toEqual([['mallory', 3], ['service-bot', 3], ['service-bot', 2], ['service-bot', 31]]);
      expect(first.evidence!.ids!.discussion_ids).toBe(threads.slice(1).map((d) => d.id).join(','));
      const notes = notesOf().slice(before.notes);
      expect(notes.map((d) => [d.notes[0]!.author, visible(d.notes[0]!.body).split('\n')[0]])).toEqual([['mallory', 'Automated review: no findings.'], ['service-bot', 'Automated review by the service']]);
      expect(first.evidence!.ids!.note_id).toBe(String(notes[1]!.notes[0]!.id));
    });

    it('a reviewer\'s reply in a finding\'s thread reaches the service with the thread, and the service replies and resolves there', async () => {
      const [thread] = threadsOf();
      received.length = 0;
      gitlab.state.replyInDiscussion(mr(), thread!.id, 'Fixed, please look again.', 'octo-reviewer', project());
      await gitlab.webhooks.flush();
      const observed = received.map((r) => normaliseGitLabEvent(gitlabHookSchema.parse(r.body)));
      expect(observed).toHaveLength(1);
      const reply = observed[0]!;
      expect(reply.kind === 'observation' && reply.observation.facts).toMatchObject({ comment: { author: 'octo-reviewer', discussion: { id: thread!.id, thread: true, path: 'src/export.ts', line: 3 } } });
      expect(reply.kind === 'observation' && reply.routing.pull_request_ref).toBe(`platform/reviewed!${iid}`);
      // implement_review reads it as an open thread on the finding's line; the findings nobody answered are not feedback.
      const client = createGitLabClient({ apiBaseUrl: gitlab.apiUrl, token: TOKEN });
      const pull = { pull_request: `platform/reviewed!${iid}`, repository: 'platform/reviewed', number: iid };
      const feedback = openMergeRequestFeedback(pull, await client.listMergeRequestDiscussions('platform/reviewed', iid), { bot: 'service-bot', answered: new Set() });
      // mallory's notes, which copied the service's markers (above), are a person's: read as feedback like any other.
      expect(feedback).toEqual([
        expect.objectContaining({
          kind: 'thread', comment_id: thread!.id, path: 'src/export.ts', line: 3, conversation: ['service-bot: an off-by-one; token [REDACTED]', 'octo-reviewer: Fixed, please look again.'],
        }),
        expect.objectContaining({ kind: 'review', conversation: ['mallory: Automated review: no findings.'] }),
        expect.objectContaining({ kind: 'thread', path: 'src/export.ts', line: 3, conversation: ['mallory: Fine as is.'] }),
      ]);

      const answered = await perform('k-reply-fd-4', { kind: 'scmhost.review_reply', repository: 'platform/reviewed', number: iid, comment_id: thread!.id, body: 'Thanks, resolved.', resolve: true });
      expect(answered).toMatchObject({ status: 'succeeded', evidence: { ids: { discussion_id: thread!.id, resolution: 'resolved' } } });
      expect(gitlab.state.discussion(mr(), thread!.id).notes.map((n) => [n.author, n.resolvedBy])).toEqual([
        ['service-bot', 'service-bot'], ['octo-reviewer', 'service-bot'], ['service-bot', 'service-bot'],
      ]);
    });
  });

  it('opens a fork-mode merge request once, from the service account\'s fork into the project', async () => {
    const upstream = gitlab.state.project('platform/forked');
    // What the fork-mode push leaves: the service account's fork, with the ticket branch on it.
    const fork = gitlab.state.fork(upstream, 'service-bot');
    gitlab.state.push(fork, 'service/fd-2');
    const operation = { kind: 'scmhost.open_pr', repository: 'platform/forked', head: 'service/fd-2', base: null, title: 't', body: 'b', mode: 'fork' };
    expect(await perform('k-fork', operation)).toMatchObject({ status: 'succeeded', evidence: { ids: { pull_request: 'platform/forked!1' } } });
    expect(upstream.mergeRequests.map((mr) => [mr.iid, mr.sourceProject?.path, mr.sourceBranch, mr.targetBranch])).toEqual([[1, 'service-bot/forked', 'service/fd-2', 'main']]);
    expect(fork.mergeRequests).toHaveLength(0);
    expect(await perform('k-fork', operation, 2)).toMatchObject({ status: 'succeeded', evidence: { ids: { pull_request: 'platform/forked!1' }, adopted: true } });
    expect(upstream.mergeRequests).toHaveLength(1);
  });
});

describe('resolutionStep', () => {
  it('resolves an open resolvable thread when asked, and nothing else', () => {
    expect(resolutionStep({ resolvable: true, resolved: false }, true)).toBe('resolve');
    expect(resolutionStep({ resolvable: true, resolved: true }, true)).toBe('already_resolved');
    expect(resolutionStep({ resolvable: false, resolved: false }, true)).toBe('not_resolvable');
    expect(resolutionStep({ resolvable: true, resolved: false }, false)).toBe('not_asked');
  });
});
