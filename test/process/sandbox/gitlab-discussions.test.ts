import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitlabHookSchema } from '../../../src/ingress/gitlab/gitlab-webhook-schema';
import { normaliseGitLabEvent } from '../../../src/ingress/gitlab/normalise-gitlab-event';
import { discussionsOf, replyShape, resolveRefusal, type SimNote } from '../../../src/sandbox/gitlab-simulator/gitlab-discussions';
import { startGitLabSimulator, type GitLabSimulator, type SimMergeRequest, type SimProject } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { startWebhookReceiver } from './webhook-receiver';

const NS = 'platform/billing';
const TOKEN = 'glpat-discussions-token-0123';
type Json = Record<string, any>;

describe('GitLab simulator: merge request discussions', () => {
  let sim: GitLabSimulator;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let project: SimProject;
  let mr: SimMergeRequest;

  beforeEach(async () => {
    hooks = await startWebhookReceiver();
    sim = await startGitLabSimulator({ projects: [NS], tokens: { [TOKEN]: 'service-bot', 'glpat-reviewer-token-0123': 'octo-reviewer' }, webhook: { url: hooks.url, secret: 's' } });
    project = sim.state.project(NS);
    sim.state.push(project, 'service/gl-1');
    const opened = await call('POST', '/merge_requests', { title: '[GL-1] Export', source_branch: 'service/gl-1', target_branch: 'main' });
    mr = project.mergeRequests.find((m) => m.iid === opened.body.iid)!;
  });
  afterEach(async () => {
    await sim.close();
    await hooks.close();
  });

  async function call(method: string, path: string, body?: unknown, token = TOKEN): Promise<{ status: number; body: Json; headers: Headers }> {
    const response = await fetch(`${sim.apiUrl}/projects/${encodeURIComponent(NS)}${path}`, {
      method, headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json() as Json, headers: response.headers };
  }
  const noteHooks = async () => {
    await sim.webhooks.flush();
    return hooks.received.map((r) => r.json as Json).filter((j) => j.object_kind === 'note');
  };

  it('starts a thread and a diff thread, each a discussion of resolvable notes, announced with their discussion', async () => {
    const head = project.branches.get('service/gl-1')!;
    const base = project.branches.get('main')!;
    const started = await call('POST', `/merge_requests/${mr.iid}/discussions`, { body: 'Why CSV?' }, 'glpat-reviewer-token-0123');
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{40}$/), individual_note: false, notes: [{ type: 'DiscussionNote', body: 'Why CSV?', resolvable: true, resolved: false, resolved_by: null, author: { username: 'octo-reviewer' } }] });
    expect(started.body.notes[0]).not.toHaveProperty('position');
    const position = { base_sha: base, start_sha: base, head_sha: head, position_type: 'text', new_path: 'src/export.ts', old_path: 'src/export.ts', new_line: 12 };
    const diff = await call('POST', `/merge_requests/${mr.iid}/discussions`, { body: 'Say which invoices.', position }, 'glpat-reviewer-token-0123');
    expect(diff.body.notes[0]).toMatchObject({ type: 'DiffNote', commit_id: head, position: { ...position, old_line: null, line_range: null }, resolvable: true });

    const [thread, onDiff] = await noteHooks();
    expect(thread!.object_attributes).toMatchObject({ discussion_id: started.body.id, type: 'DiscussionNote', position: null, noteable_type: 'MergeRequest', note: 'Why CSV?' });
    expect(onDiff!.object_attributes).toMatchObject({ discussion_id: diff.body.id, type: 'DiffNote', position: { new_path: 'src/export.ts', new_line: 12 }, line_code: expect.stringMatching(/^[0-9a-f]{40}_0_12$/) });
    // What the ingress makes of it: the discussion and the place travel with the comment.
    const observed = normaliseGitLabEvent(gitlabHookSchema.parse(onDiff));
    expect(observed.kind === 'observation' && observed.observation.facts.comment).toMatchObject({ author: 'octo-reviewer', discussion: { id: diff.body.id, thread: true, path: 'src/export.ts', line: 12 } });
  });

  it('refuses a diff thread without the SHAs of its position, or without a line', async () => {
    const missing = await call('POST', `/merge_requests/${mr.iid}/discussions`, { body: 'x', position: { position_type: 'text', new_path: 'a', new_line: 1 } });
    expect(missing).toMatchObject({ status: 400, body: { error: 'position[base_sha] is missing' } });
    const sha = project.branches.get('main')!;
    const lineless = await call('POST', `/merge_requests/${mr.iid}/discussions`, { body: 'x', position: { base_sha: sha, start_sha: sha, head_sha: sha, position_type: 'text', new_path: 'a' } });
    expect(lineless.status).toBe(400);
    expect(mr.notes).toEqual([]);
  });

  it('adds replies to a thread, with its type and place; a reply to a plain comment makes it a thread; unknown discussions are 404', async () => {
    const diff = sim.state.startDiscussion(mr, 'Say which invoices.', 'octo-reviewer', { position: { path: 'src/export.ts', line: 12 } });
    const reply = await call('POST', `/merge_requests/${mr.iid}/discussions/${diff.discussionId}/notes`, { body: 'Done.' });
    expect(reply).toMatchObject({ status: 201, body: { type: 'DiffNote', body: 'Done.', position: { new_path: 'src/export.ts', new_line: 12 }, resolvable: true, author: { username: 'service-bot' } } });

    const comment = sim.state.addNote(mr, 'Nice.', 'octo-reviewer');
    expect((await call('GET', `/merge_requests/${mr.iid}/discussions/${comment.discussionId}`)).body).toMatchObject({ individual_note: true, notes: [{ type: null, resolvable: false }] });
    expect((await call('POST', `/merge_requests/${mr.iid}/discussions/${comment.discussionId}/notes`, { body: 'Thanks.' })).status).toBe(201);
    expect((await call('GET', `/merge_requests/${mr.iid}/discussions/${comment.discussionId}`)).body).toMatchObject({
      individual_note: false, notes: [{ type: 'DiscussionNote', body: 'Nice.', resolvable: true }, { type: 'DiscussionNote', body: 'Thanks.' }],
    });

    expect((await call('POST', `/merge_requests/${mr.iid}/discussions/${'f'.repeat(40)}/notes`, { body: 'x' })).status).toBe(404);
    expect((await call('POST', `/merge_requests/${mr.iid}/discussions/${diff.discussionId}/notes`, { body: ' ' })).status).toBe(400);
    const hooked = (await noteHooks()).map((h) => [h.object_attributes.discussion_id, h.object_attributes.type]);
    expect(hooked).toEqual([[diff.discussionId, 'DiffNote'], [diff.discussionId, 'DiffNote'], [comment.discussionId, null], [comment.discussionId, 'DiscussionNote']]);
  });

  it('lists plain comments and threads in order, with GitLab paging, and the notes list shows the thread notes too', async () => {
    sim.state.addNote(mr, 'First.', 'octo-reviewer');
    const thread = sim.state.startDiscussion(mr, 'Second.', 'octo-reviewer');
    sim.state.replyInDiscussion(mr, thread.discussionId, 'Third.', 'service-bot');
    const all = await call('GET', `/merge_requests/${mr.iid}/discussions?per_page=1`);
    expect(all.headers.get('x-next-page')).toBe('2');
    expect(all.body).toEqual([expect.objectContaining({ individual_note: true, notes: [expect.objectContaining({ body: 'First.' })] })]);
    const second = await call('GET', `/merge_requests/${mr.iid}/discussions?per_page=1&page=2`);
    expect(second.body[0].notes.map((n: Json) => n.body)).toEqual(['Second.', 'Third.']);
    expect(second.headers.get('x-next-page')).toBe('');
    expect((await call('GET', `/merge_requests/${mr.iid}/notes`)).body.map((n: Json) => [n.body, n.type])).toEqual([['First.', null], ['Second.', 'DiscussionNote'], ['Third.', 'DiscussionNote']]);
  });

  it('resolves and reopens a thread; a reply to a resolved thread stays resolved; plain comments and forbidden projects are 403', async () => {
    const thread = sim.state.startDiscussion(mr, 'Rename it.', 'octo-reviewer');
    const path = `/merge_requests/${mr.iid}/discussions/${thread.discussionId}`;
    expect((await call('PUT', path)).body).toEqual({ error: 'resolved is missing' });
    const resolved = await call('PUT', `${path}?resolved=true`);
    expect(resolved).toMatchObject({ status: 200, body: { notes: [{ resolved: true, resolved_by: { username: 'service-bot' }, resolved_at: expect.any(String) }] } });
    sim.state.replyInDiscussion(mr, thread.discussionId, 'Thanks!', 'octo-reviewer');
    expect((await call('GET', path)).body.notes.map((n: Json) => n.resolved)).toEqual([true, true]);
    expect((await call('PUT', `${path}?resolved=false`)).body.notes.map((n: Json) => [n.resolved, n.resolved_by])).toEqual([[false, null], [false, null]]);

    const comment = sim.state.addNote(mr, 'Plain.', 'octo-reviewer');
    expect((await call('PUT', `/merge_requests/${mr.iid}/discussions/${comment.discussionId}?resolved=true`)).status).toBe(403);
    project.resolveForbidden = true;
    expect(await call('PUT', `${path}?resolved=true`)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await call('PUT', `/merge_requests/${mr.iid}/discussions/${'f'.repeat(40)}?resolved=true`)).status).toBe(404);
  });
});

describe('GitLab simulator discussion rules', () => {
  const note = (id: number, discussionId: string, extra: Partial<SimNote> = {}): SimNote => ({ id, body: `n${id}`, author: 'a', system: false, createdAt: 't', updatedAt: 't', discussionId, type: 'DiscussionNote', ...extra });

  it('groups notes by discussion in the order of their first notes', () => {
    expect(discussionsOf([note(1, 'x', { type: null }), note(2, 'y'), note(3, 'y')]).map((d) => [d.id, d.individualNote, d.notes.map((n) => n.id)])).toEqual([['x', true, [1]], ['y', false, [2, 3]]]);
  });

  it('shapes a reply after its thread: type, place, resolution; a system note cannot be replied to', () => {
    const position = { base_sha: 'b', start_sha: 'b', head_sha: 'h', old_path: 'a', new_path: 'a', position_type: 'text' as const, old_line: null, new_line: 3, line_range: null };
    const [diff] = discussionsOf([note(1, 'd', { type: 'DiffNote', position, resolvedAt: 't', resolvedBy: 'r' })]);
    expect(replyShape(diff!, 'bob', 'now')).toEqual({ type: 'DiffNote', position, resolvedBy: 'bob', resolvedAt: 'now', convert: [] });
    const [plain] = discussionsOf([note(2, 'p', { type: null })]);
    expect(replyShape(plain!, 'bob', 'now')).toMatchObject({ type: 'DiscussionNote', convert: [plain!.notes[0]] });
    expect(replyShape(discussionsOf([note(3, 's', { type: null, system: true })])[0]!, 'bob', 'now')).toEqual({ refused: 'Discussion can not be replied to.' });
  });

  it('refuses to resolve what is not resolvable, or where the user may not', () => {
    const [thread] = discussionsOf([note(1, 'y')]);
    expect(resolveRefusal(thread!, false)).toBeUndefined();
    expect(resolveRefusal(thread!, true)).toMatch(/may not/);
    expect(resolveRefusal(discussionsOf([note(2, 'x', { type: null })])[0]!, false)).toMatch(/not resolvable/);
  });
});
