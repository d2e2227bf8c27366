/**
 * Merging a merge request on the GitLab simulator as a person does with GitLab's "Merge" button (REST
 * `PUT /projects/:id/merge_requests/:iid/merge`): what git then holds is what GitLab would have written, a merge
 * commit on the target branch (or a squash commit merged in), from the project or from a fork, and refusals that
 * leave the target branch where it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../../../src/sandbox/scmhost-simulator/git-smart-http';
import { startGitLabSimulator, type GitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { pushCommit, remoteUrl } from './git-over-http';

const TOKEN = 'glpat-merge-git-service-0123456789';
const PERSON = 'glpat-merge-git-person-9876543210';
const NS = 'group/web';

describe('the GitLab simulator merges merge requests in git', () => {
  let sim: GitLabSimulator;
  let bare: string;
  const api = async (method: string, path: string, body?: unknown, token = TOKEN) => {
    const response = await fetch(`${sim.apiUrl}${path}`, { method, headers: { 'private-token': token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, json: await response.json() as Record<string, any> };
  };
  const project = encodeURIComponent(NS);
  const open = async (sourceBranch: string, title: string, from?: { namespace: string; token: string }) => {
    const created = await api('POST', `/projects/${encodeURIComponent(from?.namespace ?? NS)}/merge_requests`, {
      title, source_branch: sourceBranch, target_branch: 'main', ...(from ? { target_project_id: sim.state.project(NS).id } : {}),
    }, from?.token ?? TOKEN);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    return created.json.iid as number;
  };
  const main = async () => (await gitIn(bare, ['rev-parse', 'refs/heads/main'])).trim();
  const status = (merge: string, detailed: string, conflicts: boolean) => ({ merge_status: merge, detailed_merge_status: detailed, has_conflicts: conflicts });
  /** Reads the merge request until GitLab's check has answered; returns each read's statuses. */
  const statusReads = async (iid: number) => {
    const reads: Array<ReturnType<typeof status>> = [];
    for (let i = 0; i < 3; i++) {
      const { json } = await api('GET', `/projects/${project}/merge_requests/${iid}`);
      reads.push(status(json.merge_status, json.detailed_merge_status, json.has_conflicts));
      if (json.merge_status !== 'checking') break;
    }
    return reads;
  };

  beforeAll(async () => {
    sim = await startGitLabSimulator({ tokens: { [TOKEN]: 'service-bot', [PERSON]: 'pat' }, projects: [NS] });
    bare = sim.git.repositoryPath(NS);
    await pushCommit(remoteUrl(sim.url, NS, TOKEN), 'main', { 'app.txt': 'one\ntwo\nthree\n' }, 'seed');
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('writes a merge commit with GitLab\'s default message on the target branch, and refuses a head the person did not see', async () => {
    const remote = remoteUrl(sim.url, NS, TOKEN);
    const head = await pushCommit(remote, 'service/web-1', { 'feature.txt': 'new\n' }, '[WEB-1] add a feature', { from: 'main' });
    const iid = await open('service/web-1', '[WEB-1] A feature');
    const before = await main();

    const stale = await api('PUT', `/projects/${project}/merge_requests/${iid}/merge`, { sha: before }, PERSON);
    expect(stale.status).toBe(409);
    expect(stale.json.message).toContain(`SHA does not match HEAD of source branch: ${head}`);
    expect(await main()).toBe(before);

    const merged = await api('PUT', `/projects/${project}/merge_requests/${iid}/merge`, { sha: head }, PERSON);
    expect(merged.status).toBe(200);
    expect(merged.json).toMatchObject({ state: 'merged', squash: false, squash_commit_sha: null });
    const commit = await main();
    expect(merged.json.merge_commit_sha).toBe(commit);
    expect((await gitIn(bare, ['log', '-1', '--format=%P', commit])).trim().split(' ')).toEqual([before, head]);
    expect(await gitIn(bare, ['log', '-1', '--format=%B', commit])).toBe(`Merge branch 'service/web-1' into 'main'\n\n[WEB-1] A feature\n\nSee merge request ${NS}!${iid}\n\n`);
    expect((await gitIn(bare, ['log', '-1', '--format=%an', commit])).trim()).toBe('pat');
    expect(await gitIn(bare, ['show', 'main:feature.txt'])).toBe('new\n');
    expect((await gitIn(bare, ['rev-parse', `refs/merge-requests/${iid}/head`])).trim()).toBe(head);
    expect(sim.state.project(NS).branches.get('main')).toBe(commit);

    // Merged already: GitLab answers 405, and git does not change.
    expect((await api('PUT', `/projects/${project}/merge_requests/${iid}/merge`, {}, PERSON)).status).toBe(405);
    expect(await main()).toBe(commit);
  });

  it('squashes on request: one commit of the whole change on the merge base, merged into the target', async () => {
    const remote = remoteUrl(sim.url, NS, TOKEN);
    await pushCommit(remote, 'service/web-2', { 'a.txt': 'a\n' }, 'first', { from: 'main' });
    const head = await pushCommit(remote, 'service/web-2', { 'b.txt': 'b\n' }, 'second');
    const base = await main();
    const iid = await open('service/web-2', '[WEB-2] Two files');
    const merged = await api('PUT', `/projects/${project}/merge_requests/${iid}/merge`, { squash: true, squash_commit_message: '[WEB-2] Two files, squashed' }, PERSON);
    expect(merged.status).toBe(200);
    const squash = merged.json.squash_commit_sha as string;
    expect(merged.json.squash).toBe(true);
    expect((await gitIn(bare, ['log', '-1', '--format=%P', squash])).trim()).toBe(base);
    expect((await gitIn(bare, ['log', '-1', '--format=%B', squash])).trim()).toBe('[WEB-2] Two files, squashed');
    expect((await gitIn(bare, ['rev-parse', `${squash}^{tree}`])).trim()).toBe((await gitIn(bare, ['rev-parse', `${head}^{tree}`])).trim());
    expect((await gitIn(bare, ['log', '-1', '--format=%P', 'main'])).trim().split(' ')).toEqual([base, squash]);
    expect(merged.json.merge_commit_sha).toBe(await main());
    expect(await gitIn(bare, ['show', 'main:b.txt'])).toBe('b\n');
  });

  it('merges a merge request from a fork into the upstream\'s target branch', async () => {
    const fork = await api('POST', `/projects/${project}/fork`, {}, PERSON);
    expect(fork.status).toBe(201);
    const head = await pushCommit(remoteUrl(sim.url, 'pat/web', PERSON), 'patch-1', { 'from-fork.txt': 'fork\n' }, 'a fork\'s change', { from: 'main' });
    const iid = await open('patch-1', 'From a fork', { namespace: 'pat/web', token: PERSON });
    const before = await main();
    const merged = await api('PUT', `/projects/${project}/merge_requests/${iid}/merge`, { sha: head });
    expect(merged.status).toBe(200);
    expect((await gitIn(bare, ['log', '-1', '--format=%P', 'main'])).trim().split(' ')).toEqual([before, head]);
    expect(await gitIn(bare, ['show', 'main:from-fork.txt'])).toBe('fork\n');
    expect(sim.state.project('pat/web').branches.get('main')).not.toBe(await main());
  });

  it('shows a conflict once its check ran, refuses the merge (405) and leaves the target branch and the merge request as they were', async () => {
    const remote = remoteUrl(sim.url, NS, TOKEN);
    await pushCommit(remote, 'service/web-3', { 'app.txt': 'one\nTWO (branch)\nthree\n' }, 'branch edits line two', { from: 'main' });
    const iid = await open('service/web-3', '[WEB-3] Conflicting');
    expect(await statusReads(iid)).toEqual([status('checking', 'checking', false), status('can_be_merged', 'mergeable', false)]);
    // A person edits the same line on main: checked again on the next read, and a conflict.
    await pushCommit(remote, 'main', { 'app.txt': 'one\nTWO (main)\nthree\n' }, 'main edits line two');
    expect(await statusReads(iid)).toEqual([status('checking', 'checking', false), status('cannot_be_merged', 'conflict', true)]);
    const list = await api('GET', `/projects/${project}/merge_requests?source_branch=service/web-3`);
    expect(list.json[0]).toMatchObject(status('cannot_be_merged', 'conflict', true));
    const before = await main();
    const refused = await api('PUT', `/projects/${project}/merge_requests/${iid}/merge`, {}, PERSON);
    expect(refused).toEqual({ status: 405, json: { message: '405 Method Not Allowed' } });
    expect(await main()).toBe(before);
    expect((await api('GET', `/projects/${project}/merge_requests/${iid}`)).json).toMatchObject({ state: 'opened', ...status('cannot_be_merged', 'conflict', true) });
  });

  it('merges two merge requests that change files of their own, the second checked again after the first moved main', async () => {
    const remote = remoteUrl(sim.url, NS, TOKEN);
    await pushCommit(remote, 'service/web-4', { 'SANDBOX_CHANGES/WEB-4.md': 'four\n' }, '[WEB-4] change', { from: 'main' });
    await pushCommit(remote, 'service/web-5', { 'SANDBOX_CHANGES/WEB-5.md': 'five\n' }, '[WEB-5] change', { from: 'main' });
    const first = await open('service/web-4', '[WEB-4] Four');
    const second = await open('service/web-5', '[WEB-5] Five');
    expect((await api('PUT', `/projects/${project}/merge_requests/${first}/merge`, {}, PERSON)).status).toBe(200);
    expect(await statusReads(second)).toEqual([status('checking', 'checking', false), status('can_be_merged', 'mergeable', false)]);
    expect((await api('PUT', `/projects/${project}/merge_requests/${second}/merge`, {}, PERSON)).status).toBe(200);
  });
});
