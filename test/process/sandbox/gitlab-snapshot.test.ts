import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitLabClient, type GitLabClient } from '../../../src/providers/gitlab/gitlab-client';
import { startGitLabSimulator, type GitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { GitLabSnapshotError, snapshotGitLab, type GitLabSnapshot } from '../../../src/sandbox/gitlab-simulator/gitlab-snapshot';

const UPSTREAM = 'fin/payments';
const TOKEN = 'glpat-snapshot-token-1234';

/** What the service and a person read over REST: merge requests of every state, their threads, pipelines and approvals. */
async function restView(client: GitLabClient, namespace: string, origin: string) {
  const list = await client.listMergeRequestsUpdatedSince(namespace, '', new Date(0));
  // The simulator listens on another port after the restart; everything else must be as it was.
  const view = await Promise.all(list.map(async (mr) => ({
    mr: { ...mr, mergeStatus: undefined },
    discussions: await client.listMergeRequestDiscussions(namespace, mr.iid),
    pipelines: await client.listMergeRequestPipelines(namespace, mr.iid),
    approvers: await client.listMergeRequestApprovers(namespace, mr.iid),
  })));
  return JSON.parse(JSON.stringify(view).replaceAll(origin, 'http://gitlab.invalid')) as unknown;
}

describe('the GitLab simulator\'s snapshot', () => {
  let gitRoot: string;
  let sim: GitLabSimulator | undefined;
  const start = async (restore?: GitLabSnapshot) => {
    sim = await startGitLabSimulator({ pathPrefix: '/gitlab', projects: [UPSTREAM], tokens: { [TOKEN]: 'service-bot' }, gitRoot, ...(restore ? { restore } : {}) });
    return { sim, client: createGitLabClient({ apiBaseUrl: sim.apiUrl, token: TOKEN, retry: { maxAttempts: 1 } }) };
  };

  beforeEach(() => { gitRoot = mkdtempSync(join(tmpdir(), 'gitlab-snapshot-')); });
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
    rmSync(gitRoot, { recursive: true, force: true });
  });

  it('continues after a restart where it stopped: merge requests (a fork\'s too) with their threads, labels, pipelines, approvals, merges and closes, and the git repositories', async () => {
    const first = await start();
    const { state } = first.sim;
    state.createGroup('fin', ['ada']);
    const upstream = state.project(UPSTREAM);
    const fork = state.fork(upstream, 'service-bot');
    state.push(fork, 'service/pay-1');
    state.push(upstream, 'service/pay-2');
    state.push(upstream, 'service/pay-3');
    const fromFork = await first.client.createMergeRequest(fork.path, { title: '[PAY-1] From a fork', description: 'd', sourceBranch: 'service/pay-1', targetBranch: 'main', targetProjectId: upstream.id });
    const merged = await first.client.createMergeRequest(UPSTREAM, { title: '[PAY-2] Merged', description: 'd', sourceBranch: 'service/pay-2', targetBranch: 'main' });
    const closed = await first.client.createMergeRequest(UPSTREAM, { title: '[PAY-3] Closed', description: 'd', sourceBranch: 'service/pay-3', targetBranch: 'main' });
    const mr = upstream.mergeRequests.find((m) => m.iid === fromFork.iid)!;
    state.setLabels(upstream, mr, ['backend']);
    state.addNote(mr, 'A plain note.', 'ada', upstream);
    const thread = state.startDiscussion(mr, 'Name this constant.', 'ada', { project: upstream, position: { path: 'src/pay.ts', line: 2 } });
    state.replyInDiscussion(mr, thread.discussionId, 'Done.', 'service-bot', upstream);
    state.resolveDiscussion(upstream, mr, thread.discussionId, true, 'service-bot');
    state.reportPipeline(fork, 'service/pay-1', fork.branches.get('service/pay-1')!, 'failed', [{ name: 'unit', stage: 'test', status: 'failed' }]);
    state.approve(upstream, mr, 'ada');
    state.merge(upstream, upstream.mergeRequests.find((m) => m.iid === merged.iid)!, 'ada');
    await first.client.updateMergeRequest(UPSTREAM, closed.iid, { stateEvent: 'close' });
    const repository = first.sim.git.repositoryPath(UPSTREAM);
    const head = execFileSync('git', ['rev-parse', 'main'], { cwd: repository, encoding: 'utf8' }).trim();

    const before = await restView(first.client, UPSTREAM, new URL(first.sim.url).origin);
    const snapshot = JSON.parse(JSON.stringify(snapshotGitLab(state))) as GitLabSnapshot;
    const highest = Math.max(...upstream.mergeRequests.flatMap((m) => [m.id, ...m.notes.map((n) => n.id)]), ...fork.pipelines.map((p) => p.id));
    await first.sim.close();
    sim = undefined;

    const second = await start(snapshot);
    expect(await restView(second.client, UPSTREAM, new URL(second.sim.url).origin)).toEqual(before);
    expect(second.sim.state.groups.get('fin')?.owners).toEqual(new Set(['ada']));
    expect(second.sim.state.project(fork.path).forkedFrom).toBe(second.sim.state.project(UPSTREAM));
    expect(second.sim.git.existingRepositoryPath(UPSTREAM)).toBe(repository);
    expect(execFileSync('git', ['rev-parse', 'main'], { cwd: repository, encoding: 'utf8' }).trim()).toBe(head);
    // Ids go on counting: nothing new is named like something old, and the next merge request is !4.
    const note = await second.client.createMergeRequestNote(UPSTREAM, fromFork.iid, 'After the restart.');
    expect(note.id).toBeGreaterThan(highest);
    second.sim.state.push(second.sim.state.project(UPSTREAM), 'service/pay-4');
    expect((await second.client.createMergeRequest(UPSTREAM, { title: '[PAY-4] Next', description: 'd', sourceBranch: 'service/pay-4', targetBranch: 'main' })).iid).toBe(4);
  });

  it('refuses a snapshot of another version, or one whose fork comes before its parent, naming what is wrong', async () => {
    await expect(start({ version: 2 } as unknown as GitLabSnapshot)).rejects.toThrow(new GitLabSnapshotError('GitLab simulator state version 2 is not supported'));
    const orphan: GitLabSnapshot = { version: 1, nextId: 10, groups: [], projects: [{ id: 1, path: 'bot/payments', defaultBranch: 'main', nextIid: 1, forkedFrom: UPSTREAM, branches: [], labels: [], mergeRequests: [], pipelines: [] }] };
    await expect(start(orphan)).rejects.toThrow(/bot\/payments is a fork of fin\/payments, which the snapshot does not hold before it/);
  });
});
