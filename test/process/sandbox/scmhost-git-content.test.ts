/**
 * Reading a pull request on the simulated source host as a person does on GitHub: its files, its commits, the
 * pull request as a diff or a patch, a single commit, and its web page (the html_url posted on the ticket), each
 * computed with git from the bare repository and compared here with what git itself says; and the merge button's
 * methods and refusals.
 */
import type { Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../../../src/sandbox/scmhost-simulator/git-smart-http';
import { webReadRefusal } from '../../../src/sandbox/scmhost-simulator/pull-request-page';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { pushCommit, remoteHeads, remoteUrl } from './git-over-http';

type Json = Record<string, any>;
const TOKEN = 'ghp_gitcontenttoken0123456789abcdefABCD';
const REVIEWER = 'ghp_gitcontentreviewer0123456789abcdefAB';
const REPO = 'acme/app';

describe('the source-host simulator shows pull requests from git', () => {
  let sim: ScmhostSimulator;
  let remote: string;
  let bare: string;
  let base: string;
  const heads: string[] = [];

  const call = async (path: string, init: { token?: string; accept?: string; method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${sim.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        accept: init.accept ?? 'application/vnd.github+json',
        'content-type': 'application/json',
        ...(init.token === '' ? {} : { authorization: `Bearer ${init.token ?? TOKEN}` }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, type, text, json: type.includes('json') && text ? JSON.parse(text) as any : undefined };
  };
  const openPull = async (head: string, title: string) => {
    const opened = await call(`/repos/${REPO}/pulls`, { method: 'POST', body: { title, head, base: 'main', body: 'Body with <em>markup</em>' } });
    expect(opened.status, opened.text).toBe(201);
    return opened.json.number as number;
  };

  beforeAll(async () => {
    sim = await startScmhostSimulator({ repositories: [REPO], tokens: { [TOKEN]: 'service-bot', [REVIEWER]: 'octo-reviewer' } });
    remote = remoteUrl(sim.url, REPO, TOKEN);
    bare = sim.git.repositoryPath(REPO);
    base = await pushCommit(remote, 'main', { 'old.txt': 'a file that moves\nwith two lines\n', 'gone.txt': 'soon removed\n' }, 'seed');
    heads.push(await pushCommit(remote, 'service/acme-1', { 'src/a.ts': 'export const tag = "<script>alert(1)</script>";\n', 'README.md': '# acme/app\nMore.\n' }, '[ACME-1] implement', { from: 'main' }));
    heads.push(await pushCommit(remote, 'service/acme-1', { 'old.txt': null, 'new.txt': 'a file that moves\nwith two lines\n', 'gone.txt': null }, '[ACME-1] tidy up'));
    expect(await openPull('service/acme-1', '[ACME-1] <b>Bold</b> export')).toBe(1);
  }, 60_000); // several git clones and pushes: slow on a loaded machine
  afterAll(async () => {
    await sim?.close();
  });

  it('lists the files with their status, counts and hunks, as git counts them', async () => {
    const files = await call(`/repos/${REPO}/pulls/1/files`);
    expect(files.status).toBe(200);
    const byName = Object.fromEntries((files.json as Json[]).map((f) => [f.filename, f]));
    expect(Object.keys(byName).sort()).toEqual(['README.md', 'gone.txt', 'new.txt', 'src/a.ts']);
    expect(byName['src/a.ts']).toMatchObject({ status: 'added', additions: 1, deletions: 0, changes: 1 });
    expect(byName['src/a.ts'].patch).toMatch(/^@@ -0,0 \+1 @@\n\+export const tag/);
    expect(byName['README.md']).toMatchObject({ status: 'modified', additions: 1, deletions: 0 });
    expect(byName['gone.txt']).toMatchObject({ status: 'removed', additions: 0, deletions: 1 });
    expect(byName['new.txt']).toMatchObject({ status: 'renamed', previous_filename: 'old.txt', additions: 0, deletions: 0 });
    expect(byName['src/a.ts'].sha).toBe((await gitIn(bare, ['rev-parse', `${heads[1]}:src/a.ts`])).trim());
    expect(byName['src/a.ts'].raw_url).toBe(`${sim.url}/${REPO}/raw/${heads[1]}/src/a.ts`);
  });

  it('lists the commits oldest first, with their parents, and counts them in the pull request', async () => {
    const commits = await call(`/repos/${REPO}/pulls/1/commits`);
    expect((commits.json as Json[]).map((c) => [c.sha, c.commit.message, c.parents.map((p: Json) => p.sha)])).toEqual([
      [heads[0], '[ACME-1] implement', [base]],
      [heads[1], '[ACME-1] tidy up', [heads[0]]],
    ]);
    // An e-mail no account of the simulator has: GitHub shows no account, only the git author.
    expect(commits.json[0]).toMatchObject({ author: null, commit: { author: { name: 'Pat', email: 'pat@example.com' } } });
    expect((await call(`/repos/${REPO}/pulls/1`)).json).toMatchObject({ commits: 2, changed_files: 4, additions: 2, deletions: 1 });
  });

  it('answers the pull request as a diff or a patch on request, what git diff and git format-patch print', async () => {
    const expected = await gitIn(bare, ['diff', '-M', `${base}...${heads[1]}`]);
    for (const accept of ['application/vnd.github.diff', 'application/vnd.github.v3.diff']) {
      const diff = await call(`/repos/${REPO}/pulls/1`, { accept });
      expect(diff.status).toBe(200);
      expect(diff.type).toContain(accept);
      expect(diff.text).toBe(expected);
    }
    const patch = await call(`/repos/${REPO}/pulls/1`, { accept: 'application/vnd.github.patch' });
    expect(patch.type).toContain('application/vnd.github.patch');
    expect(patch.text).toBe(await gitIn(bare, ['format-patch', '--stdout', '--no-signature', `${base}..${heads[1]}`]));
    expect(patch.text).toContain('Subject: [PATCH 1/2] [ACME-1] implement');
    // The JSON answer is unchanged without those media types.
    expect((await call(`/repos/${REPO}/pulls/1`)).json.head.sha).toBe(heads[1]);
  });

  it('answers a single commit with its files, and 422 for one git does not have', async () => {
    const commit = await call(`/repos/${REPO}/commits/${heads[0]}`);
    expect(commit.status).toBe(200);
    expect(commit.json).toMatchObject({ sha: heads[0], parents: [{ sha: base }], stats: { additions: 2, deletions: 0, total: 2 } });
    expect(commit.json.files.map((f: Json) => f.filename).sort()).toEqual(['README.md', 'src/a.ts']);
    expect((await call(`/repos/${REPO}/commits/main`)).json.sha).toBe(base);
    expect((await call(`/repos/${REPO}/commits/${heads[0]}`, { accept: 'application/vnd.github.diff' })).text).toBe(await gitIn(bare, ['diff', '-M', base, heads[0]!]));
    const missing = await call(`/repos/${REPO}/commits/${'0'.repeat(40)}`);
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe(`No commit found for SHA: ${'0'.repeat(40)}`);
    expect((await call(`/repos/${REPO}/commits/--output=x`)).status).toBe(422);
  });

  it('serves the html_url as a readable page, everything escaped, without a token from loopback', async () => {
    const pull = (await call(`/repos/${REPO}/pulls/1`)).json;
    expect(pull.html_url).toBe(`${sim.url}/${REPO}/pull/1`);
    const page = await fetch(pull.html_url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain('<title>[ACME-1] &lt;b&gt;Bold&lt;/b&gt; export · Pull Request #1 · acme/app</title>');
    expect(html).toContain('>Open</span>');
    expect(html).toContain('<code>acme:service/acme-1</code> into <code>main</code>');
    expect(html).toContain('[ACME-1] implement');
    expect(html).toContain('[ACME-1] tidy up');
    expect(html).toContain('Body with &lt;em&gt;markup&lt;/em&gt;');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>Bold');
    // The diff and patch links of the REST answer work too.
    expect(await (await fetch(pull.diff_url)).text()).toBe(await gitIn(bare, ['diff', '-M', `${base}...${heads[1]}`]));
    expect(await (await fetch(pull.patch_url)).text()).toContain('Subject: [PATCH 2/2] [ACME-1] tidy up');
    // A token that is sent must be one of the simulator's.
    expect((await fetch(pull.html_url, { headers: { authorization: 'Bearer ghp_not-a-token' } })).status).toBe(401);
    expect((await fetch(pull.html_url, { headers: { authorization: `Bearer ${REVIEWER}` } })).status).toBe(200);
    expect((await fetch(`${sim.url}/${REPO}/pull/99`)).status).toBe(404);
  });

  it('asks for a token outside loopback (a simulator listening on another interface)', () => {
    const request = (remoteAddress: string, authorization?: string) => ({ headers: authorization ? { authorization } : {}, socket: { remoteAddress } }) as unknown as Request;
    const tokens = { [TOKEN]: 'service-bot' };
    expect(webReadRefusal(request('127.0.0.1'), tokens)).toBeUndefined();
    expect(webReadRefusal(request('::ffff:127.0.0.1'), tokens)).toBeUndefined();
    expect(webReadRefusal(request('192.0.2.7'), tokens)).toMatch(/Requires authentication/);
    expect(webReadRefusal(request('192.0.2.7', `Bearer ${TOKEN}`), tokens)).toBeUndefined();
    expect(webReadRefusal(request('192.0.2.7', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`), tokens)).toBeUndefined();
    expect(webReadRefusal(request('127.0.0.1', 'Bearer wrong'), tokens)).toMatch(/Bad credentials/);
  });

  it('merges with a merge commit of two parents, and keeps showing the merged pull request\'s diff', async () => {
    const before = await call(`/repos/${REPO}/pulls/1`, { accept: 'application/vnd.github.diff' });
    expect((await call(`/repos/${REPO}/pulls/1/merge`, { method: 'PUT', token: REVIEWER, body: { sha: base } })).status).toBe(409);
    expect((await call(`/repos/${REPO}/pulls/1/merge`, { method: 'PUT', token: REVIEWER, body: { merge_method: 'rebase' } })).status).toBe(405);
    expect((await call(`/repos/${REPO}/pulls/1/merge`, { method: 'PUT', token: REVIEWER, body: { merge_method: 'fast-forward' } })).status).toBe(422);
    const merged = await call(`/repos/${REPO}/pulls/1/merge`, { method: 'PUT', token: REVIEWER, body: { sha: heads[1] } });
    expect(merged.status).toBe(200);
    const sha = merged.json.sha as string;
    expect((await remoteHeads(remote)).get('main')).toBe(sha);
    expect((await gitIn(bare, ['rev-list', '--parents', '-n', '1', sha])).trim()).toBe(`${sha} ${base} ${heads[1]}`);
    expect((await gitIn(bare, ['log', '-1', '--format=%an <%ae>', sha])).trim()).toMatch(/^octo-reviewer <\d+\+octo-reviewer@users\.noreply\.simulator>$/);
    const commit = await call(`/repos/${REPO}/commits/${sha}`);
    expect(commit.json.author.login).toBe('octo-reviewer');
    expect((await call(`/repos/${REPO}/pulls/1`, { accept: 'application/vnd.github.diff' })).text).toBe(before.text);
    expect((await call(`/repos/${REPO}/pulls/1/merge`, { method: 'PUT', token: REVIEWER, body: {} })).status).toBe(405);
    expect((await call(`/repos/${REPO}/branches/main`)).json.commit.sha).toBe(sha);
  });

  it('squashes into one commit on the base branch when asked', async () => {
    const main = (await remoteHeads(remote)).get('main')!;
    await pushCommit(remote, 'service/acme-2', { 'b.txt': 'one\n' }, 'first', { from: 'main' });
    const head = await pushCommit(remote, 'service/acme-2', { 'b.txt': 'two\n' }, 'second');
    const number = await openPull('service/acme-2', '[ACME-2] Squash me');
    const merged = await call(`/repos/${REPO}/pulls/${number}/merge`, { method: 'PUT', token: REVIEWER, body: { merge_method: 'squash' } });
    expect(merged.status).toBe(200);
    expect((await gitIn(bare, ['rev-list', '--parents', '-n', '1', merged.json.sha])).trim()).toBe(`${merged.json.sha} ${main}`);
    expect(await gitIn(bare, ['log', '-1', '--format=%B', merged.json.sha])).toBe(`[ACME-2] Squash me (#${number})\n\n* first\n* second\n\n`);
    expect(await gitIn(bare, ['show', `${merged.json.sha}:b.txt`])).toBe('two\n');
    // The squashed pull request still lists its own commits.
    expect(((await call(`/repos/${REPO}/pulls/${number}/commits`)).json as Json[]).map((c) => c.sha).at(-1)).toBe(head);
  });

  it('refuses a merge that conflicts, and leaves the base branch where it was', async () => {
    await pushCommit(remote, 'service/acme-3', { 'conflict.txt': 'theirs\n' }, 'theirs', { from: 'main' });
    const number = await openPull('service/acme-3', '[ACME-3] Conflicts');
    const main = await pushCommit(remote, 'main', { 'conflict.txt': 'ours\n' }, 'ours');
    const refused = await call(`/repos/${REPO}/pulls/${number}/merge`, { method: 'PUT', token: REVIEWER, body: {} });
    expect(refused.status).toBe(405);
    expect(refused.json.message).toBe('Pull Request is not mergeable');
    expect((await remoteHeads(remote)).get('main')).toBe(main);
  });

  it('reads a pull request from a fork through the base repository, as GitHub keeps refs/pull/<n>/head', async () => {
    expect((await call(`/repos/${REPO}/forks`, { method: 'POST', body: {} })).status).toBe(202);
    const fork = remoteUrl(sim.url, 'service-bot/app', TOKEN);
    const head = await pushCommit(fork, 'feature', { 'fork.txt': 'from the fork\n' }, 'from the fork', { from: 'main' });
    const number = await openPull('service-bot:feature', 'From a fork');
    // Kept at refs/pull/<n>/head once opened (in the background), before anyone reads it.
    const pullRef = async () => (await gitIn(bare, ['for-each-ref', '--format=%(objectname)', `refs/pull/${number}/head`])).trim();
    for (let waited = 0; (await pullRef()) !== head && waited < 5_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await pullRef()).toBe(head);
    const files = await call(`/repos/${REPO}/pulls/${number}/files`);
    expect((files.json as Json[]).map((f) => f.filename)).toEqual(['fork.txt']);
  });

  it('says why it cannot show a head that only the state knows (a test that never pushed with git)', async () => {
    const repo = sim.state.repo('acme', 'app');
    sim.state.pushBranch(repo, 'state-only');
    const number = await openPull('state-only', 'State only');
    const files = await call(`/repos/${REPO}/pulls/${number}/files`);
    expect(files.status).toBe(422);
    expect(files.json.message).toContain('does not have the pull request\'s head');
    expect((await call(`/repos/${REPO}/pulls/${number}`)).json).toMatchObject({ commits: 1, changed_files: 1 });
    const merge = await call(`/repos/${REPO}/pulls/${number}/merge`, { method: 'PUT', token: REVIEWER, body: {} });
    expect(merge.status).toBe(405);
    const page = await (await fetch(`${sim.url}/${REPO}/pull/${number}`)).text();
    expect(page).toContain('does not have the pull request&#39;s head');
  });
});
