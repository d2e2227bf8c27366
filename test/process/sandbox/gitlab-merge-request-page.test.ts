/**
 * The merge request's web page on the GitLab simulator, at the `web_url` its REST API hands out (the link the service
 * posts on the ticket): a readable page of a merge request made through the REST API with real git commits, under a
 * self-managed path prefix and a namespaced project, its `.diff` (the same text as the API's raw_diffs) and `.patch`,
 * from a fork too, and GitLab's answers to a wrong token and to a page that does not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../../../src/sandbox/scmhost-simulator/git-smart-http';
import { startGitLabSimulator, type GitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { mergeRequestPageOf } from '../../../src/sandbox/gitlab-simulator/merge-request-page';
import { pushCommit, remoteUrl } from './git-over-http';

const TOKEN = 'glpat-page-service-0123456789';
const PERSON = 'glpat-page-person-9876543210';
const NS = 'sandbox/gitlab-app';
const HOSTILE_TITLE = '[GLB-1] <img src=x onerror=alert(1)> rows';

describe('the GitLab simulator serves the merge request\'s web page', () => {
  let sim: GitLabSimulator;
  let bare: string;
  let base: string;
  let head: string;
  let mr: Record<string, any>;
  const api = async (method: string, path: string, body?: unknown, token = TOKEN) => {
    const response = await fetch(`${sim.apiUrl}${path}`, { method, headers: { 'private-token': token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    expect(response.status, text).toBeLessThan(300);
    return text;
  };
  const project = encodeURIComponent(NS);

  beforeAll(async () => {
    sim = await startGitLabSimulator({ tokens: { [TOKEN]: 'service-bot', [PERSON]: 'pat' }, projects: [NS], pathPrefix: '/gitlab' });
    bare = sim.git.repositoryPath(NS);
    const remote = remoteUrl(sim.url, NS, TOKEN);
    base = await pushCommit(remote, 'main', { 'app.txt': 'one\ntwo\nthree\n' }, 'seed');
    await pushCommit(remote, 'service/glb-1', { 'app.txt': 'one\n2\nthree\n' }, '[GLB-1] number two', { from: 'main' });
    head = await pushCommit(remote, 'service/glb-1', { 'tag.ts': 'export const tag = "<script>alert(1)</script>";\n' }, '[GLB-1] a tag');
    mr = JSON.parse(await api('POST', `/projects/${project}/merge_requests`, { title: HOSTILE_TITLE, description: 'Adds <em>rows</em>.', source_branch: 'service/glb-1', target_branch: 'main' }));
    await api('POST', `/projects/${project}/merge_requests/1/notes`, { body: 'Looks <b>fine</b> to me.' }, PERSON);
    const refs = mr.diff_refs as Record<string, string>;
    await api('POST', `/projects/${project}/merge_requests/1/discussions`, { body: 'Why a digit?', position: { position_type: 'text', ...refs, old_path: 'app.txt', new_path: 'app.txt', new_line: 2 } }, PERSON);
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('answers the web_url with a page of the title, state, branches, notes, commits, files and diff, everything escaped', async () => {
    expect(mr.web_url).toBe(`${sim.url}/${NS}/-/merge_requests/1`);
    expect(sim.url).toMatch(/\/gitlab$/);
    const page = await fetch(mr.web_url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain('<title>[GLB-1] &lt;img src=x onerror=alert(1)&gt; rows (!1) · Merge requests · sandbox/gitlab-app</title>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>');
    expect(html).toContain('>Open</span>');
    expect(html).toContain('service-bot requested to merge <code>service/glb-1</code> into <code>main</code>');
    expect(html).toContain('Adds &lt;em&gt;rows&lt;/em&gt;.');
    expect(html).toContain('<strong>pat</strong> commented');
    expect(html).toContain('Looks &lt;b&gt;fine&lt;/b&gt; to me.');
    expect(html).toContain('<strong>pat</strong> started a thread on app.txt:2');
    expect(html).toContain('[GLB-1] number two');
    expect(html).toContain('<code>tag.ts</code> added');
    expect(html).toContain('<span class="del">-two</span>');
    expect(html).toContain('<span class="add">+2</span>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('answers .diff with the text of the API\'s raw_diffs, git\'s diff from where the branch left main, and .patch with the commits', async () => {
    const diff = await (await fetch(`${mr.web_url}.diff`)).text();
    expect(diff).toBe(await gitIn(bare, ['diff', '-M', `${base}...${head}`]));
    expect(await api('GET', `/projects/${project}/merge_requests/1/raw_diffs`)).toBe(diff);
    const rawDiffs = await fetch(`${sim.apiUrl}/projects/${project}/merge_requests/1/raw_diffs`, { headers: { 'private-token': TOKEN } });
    expect(rawDiffs.headers.get('content-type')).toContain('text/plain');
    const patch = await (await fetch(`${mr.web_url}.patch`)).text();
    expect(patch).toContain('Subject: [PATCH 1/2] [GLB-1] number two');
    expect(patch).toContain('Subject: [PATCH 2/2] [GLB-1] a tag');
  });

  it('takes a valid token as GitLab sends one, refuses a wrong one with 401, and answers GitLab\'s 404 page for what does not exist', async () => {
    expect((await fetch(mr.web_url, { headers: { 'private-token': PERSON } })).status).toBe(200);
    expect((await fetch(mr.web_url, { headers: { authorization: `Bearer ${PERSON}` } })).status).toBe(200);
    expect((await fetch(mr.web_url, { headers: { 'private-token': 'glpat-wrong' } })).status).toBe(401);
    expect((await fetch(`${mr.web_url}.diff`, { headers: { authorization: 'Bearer glpat-wrong' } })).status).toBe(401);
    for (const missing of [`${sim.url}/${NS}/-/merge_requests/99`, `${sim.url}/sandbox/nothing/-/merge_requests/1`]) {
      const page = await fetch(missing);
      expect(page.status).toBe(404);
      expect(await page.text()).toContain('Page not found');
    }
    expect((await fetch(`${sim.apiUrl}/projects/${project}/merge_requests/99/raw_diffs`, { headers: { 'private-token': TOKEN } })).status).toBe(404);
    // Outside the path prefix the page is not there.
    expect((await fetch(`${new URL(sim.url).origin}/${NS}/-/merge_requests/1`)).status).toBe(401);
  });

  it('shows a merge request from a fork with the fork\'s commits, read through the target repository', async () => {
    const fork = JSON.parse(await api('POST', `/projects/${project}/fork`, {}, PERSON)) as { path_with_namespace: string };
    expect(fork.path_with_namespace).toBe('pat/gitlab-app');
    const forkHead = await pushCommit(remoteUrl(sim.url, fork.path_with_namespace, PERSON), 'feature', { 'fork.txt': 'from the fork\n' }, 'from the fork', { from: 'main' });
    const opened = JSON.parse(await api('POST', `/projects/${encodeURIComponent(fork.path_with_namespace)}/merge_requests`, {
      title: 'From a fork', source_branch: 'feature', target_branch: 'main', target_project_id: sim.state.project(NS).id,
    }, PERSON)) as { iid: number; web_url: string };
    const html = await (await fetch(opened.web_url)).text();
    expect(html).toContain('requested to merge <code>pat/gitlab-app:feature</code> into <code>main</code>');
    expect(html).toContain('<span class="add">+from the fork</span>');
    expect((await gitIn(bare, ['rev-parse', `refs/merge-requests/${opened.iid}/head`])).trim()).toBe(forkHead);
    expect(await (await fetch(`${opened.web_url}.diff`)).text()).toBe(await api('GET', `/projects/${project}/merge_requests/${opened.iid}/raw_diffs`));
  });

  it('keeps showing the diff once merged, and says why when git never saw the head', async () => {
    await api('PUT', `/projects/${project}/merge_requests/1/merge`, { sha: head }, PERSON);
    const html = await (await fetch(mr.web_url)).text();
    expect(html).toContain('>Merged</span>');
    expect(html).toContain('<span class="add">+2</span>');
    expect(await api('GET', `/projects/${project}/merge_requests/1/raw_diffs`)).toBe(await gitIn(bare, ['diff', '-M', base, head]));

    const state = sim.state.project(NS);
    state.branches.set('ghost', 'f'.repeat(40));
    const ghost = JSON.parse(await api('POST', `/projects/${project}/merge_requests`, { title: 'Ghost', source_branch: 'ghost', target_branch: 'main' })) as { web_url: string };
    const page = await fetch(ghost.web_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('does not have the merge request&#39;s head');
    expect((await fetch(`${ghost.web_url}.diff`)).status).toBe(404);
  });

  it('reads the project path, iid and format from a web path, under the path prefix only', () => {
    expect(mergeRequestPageOf('/gitlab/group/sub/app/-/merge_requests/12.patch', '/gitlab')).toEqual({ projectPath: 'group/sub/app', iid: 12, format: 'patch' });
    expect(mergeRequestPageOf('/group/app/-/merge_requests/3')).toEqual({ projectPath: 'group/app', iid: 3 });
    expect(mergeRequestPageOf('/group/app/-/merge_requests/3', '/gitlab')).toBeUndefined();
    expect(mergeRequestPageOf('/gitlab/api/v4/projects/1/merge_requests/3', '/gitlab')).toBeUndefined();
    expect(mergeRequestPageOf('/group/app/-/merge_requests/3.html')).toBeUndefined();
  });
});
