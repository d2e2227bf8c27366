/**
 * The source-host simulator tells the truth about merges, from git: two pull requests that change different files
 * can both be merged; one whose head conflicts with the base branch (another pull request merged first, or a person
 * pushed to main) reads `mergeable: false`, `mergeable_state: dirty` once GitHub's background check has run (null and
 * `unknown` on the first read after the move), and its merge is refused with 405 and GitHub's message; the
 * service's client reads the same through getMergeState.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { gitIn } from '../../../src/sandbox/scmhost-simulator/git-smart-http';
import { MERGE_DOCS } from '../../../src/sandbox/scmhost-simulator/scmhost-state';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, pushCommit, remoteHeads, remoteUrl } from './git-over-http';

/** Merges main into the branch as a person resolving conflicts does: the conflicting files written as given, pushed. */
async function mergeMainResolving(remote: string, branch: string, files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-resolve-'));
  try {
    await git(['clone', '--quiet', '--branch', branch, remote, dir]);
    await git(['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', 'merge', '--quiet', 'origin/main'], dir).catch(() => undefined);
    for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
    await git(['add', '--all'], dir);
    await git(['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', 'commit', '--quiet', '--no-edit'], dir);
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], dir);
    return (await git(['rev-parse', 'HEAD'], dir)).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Json = Record<string, any>;
const TOKEN = 'ghp_mergeabilitytoken0123456789abcdefABCD';
const REVIEWER = 'ghp_mergeabilityreviewer0123456789abcdef';
const REPO = 'acme/app';

describe('the source-host simulator computes mergeability from git', () => {
  let sim: ScmhostSimulator;
  let remote: string;

  const call = async (path: string, init: { token?: string; method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${sim.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/vnd.github+json', 'content-type': 'application/json', authorization: `Bearer ${init.token ?? TOKEN}` },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, json: await response.json() as Json };
  };
  const openPull = async (head: string, title: string) => {
    const opened = await call(`/repos/${REPO}/pulls`, { method: 'POST', body: { title, head, base: 'main' } });
    expect(opened.status, JSON.stringify(opened.json)).toBe(201);
    // GitHub has not computed it when it answers the creation.
    expect(opened.json).toMatchObject({ mergeable: null, mergeable_state: 'unknown' });
    return opened.json.number as number;
  };
  /** Reads until GitHub's background job has answered, as its documentation tells clients to; returns every read. */
  const readsUntilKnown = async (number: number) => {
    const reads: Array<{ mergeable: boolean | null; mergeable_state: string }> = [];
    for (let i = 0; i < 3; i++) {
      const { json } = await call(`/repos/${REPO}/pulls/${number}`);
      reads.push({ mergeable: json.mergeable, mergeable_state: json.mergeable_state });
      if (json.mergeable !== null) break;
    }
    return reads;
  };
  const merge = (number: number) => call(`/repos/${REPO}/pulls/${number}/merge`, { method: 'PUT', token: REVIEWER, body: {} });

  beforeAll(async () => {
    sim = await startScmhostSimulator({ repositories: [REPO], tokens: { [TOKEN]: 'service-bot', [REVIEWER]: 'octo-reviewer' } });
    remote = remoteUrl(sim.url, REPO, TOKEN);
    await pushCommit(remote, 'main', { 'app.txt': 'one\ntwo\nthree\n' }, 'seed');
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('merges two pull requests that change files of their own, one after the other', async () => {
    await pushCommit(remote, 'service/acme-1', { 'SANDBOX_CHANGES/ACME-1.md': 'one\n' }, '[ACME-1] change', { from: 'main' });
    await pushCommit(remote, 'service/acme-2', { 'SANDBOX_CHANGES/ACME-2.md': 'two\n' }, '[ACME-2] change', { from: 'main' });
    const first = await openPull('service/acme-1', '[ACME-1] One');
    const second = await openPull('service/acme-2', '[ACME-2] Two');
    expect(await readsUntilKnown(first)).toEqual([{ mergeable: null, mergeable_state: 'unknown' }, { mergeable: true, mergeable_state: 'clean' }]);
    expect((await merge(first)).status).toBe(200);
    // main moved: the second is computed again, and is still clean.
    expect(await readsUntilKnown(second)).toEqual([{ mergeable: null, mergeable_state: 'unknown' }, { mergeable: true, mergeable_state: 'clean' }]);
    expect((await merge(second)).status).toBe(200);
    const main = (await remoteHeads(remote)).get('main')!;
    expect((await gitIn(sim.git.repositoryPath(REPO), ['ls-tree', '-r', '--name-only', main])).split('\n')).toEqual(expect.arrayContaining(['SANDBOX_CHANGES/ACME-1.md', 'SANDBOX_CHANGES/ACME-2.md']));
  });

  it('says dirty, and refuses the merge with GitHub\'s 405, when another pull request merged first changed the same file', async () => {
    await pushCommit(remote, 'service/acme-3', { 'SANDBOX_CHANGES.md': 'three\n' }, '[ACME-3] change', { from: 'main' });
    await pushCommit(remote, 'service/acme-4', { 'SANDBOX_CHANGES.md': 'four\n' }, '[ACME-4] change', { from: 'main' });
    const third = await openPull('service/acme-3', '[ACME-3] Three');
    const fourth = await openPull('service/acme-4', '[ACME-4] Four');
    expect((await readsUntilKnown(fourth)).at(-1)).toEqual({ mergeable: true, mergeable_state: 'clean' });
    expect((await merge(third)).status).toBe(200);
    // What the newcomer saw: clean after the first merge. Now the first read after main moved is null, then dirty.
    expect(await readsUntilKnown(fourth)).toEqual([{ mergeable: null, mergeable_state: 'unknown' }, { mergeable: false, mergeable_state: 'dirty' }]);
    const main = (await remoteHeads(remote)).get('main');
    const refused = await merge(fourth);
    expect(refused).toEqual({ status: 405, json: { message: 'Pull Request is not mergeable', documentation_url: MERGE_DOCS, status: '405' } });
    expect((await remoteHeads(remote)).get('main')).toBe(main);
    expect((await call(`/repos/${REPO}/pulls/${fourth}`)).json).toMatchObject({ state: 'open', merged: false, mergeable: false, mergeable_state: 'dirty' });
  });

  it('says dirty after a person pushed a conflicting commit to main, and clean again once the head resolves it', async () => {
    const head = await pushCommit(remote, 'service/acme-5', { 'app.txt': 'one\nTWO (branch)\nthree\n' }, '[ACME-5] edit line two', { from: 'main' });
    const number = await openPull('service/acme-5', '[ACME-5] Five');
    expect((await readsUntilKnown(number)).at(-1)).toEqual({ mergeable: true, mergeable_state: 'clean' });
    await pushCommit(remote, 'main', { 'app.txt': 'one\nTWO (main)\nthree\n' }, 'a person edits line two on main');
    // The service reads it through its client: null (GitHub still computing), then false.
    const client = await createScmhostClient({ token: TOKEN, baseUrl: sim.url, writeSpacingMs: 0, retryBaseMs: 10, timeoutMs: 5_000 });
    expect(await client.getMergeState({ owner: 'acme', repo: 'app' }, number)).toMatchObject({ merged: false, mergeable: null, mergeableState: 'unknown' });
    expect(await client.getMergeState({ owner: 'acme', repo: 'app' }, number)).toMatchObject({ merged: false, mergeable: false, mergeableState: 'dirty' });
    expect((await merge(number)).status).toBe(405);
    // A sha the person did not see is still GitHub's 409, not a 405.
    expect((await call(`/repos/${REPO}/pulls/${number}/merge`, { method: 'PUT', token: REVIEWER, body: { sha: '0'.repeat(40) } })).status).toBe(409);

    // The branch takes main in and resolves the line (what /service rebase does): mergeable again, and merged.
    const resolved = await mergeMainResolving(remote, 'service/acme-5', { 'app.txt': 'one\nTWO (both)\nthree\n' });
    expect(resolved).not.toBe(head);
    expect(await readsUntilKnown(number)).toEqual([{ mergeable: null, mergeable_state: 'unknown' }, { mergeable: true, mergeable_state: 'clean' }]);
    expect((await merge(number)).status).toBe(200);
  });
});
