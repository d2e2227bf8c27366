/**
 * The GitHub-shaped simulator's pull_request webhooks carry the pull request's counters (commits, additions,
 * deletions, changed_files) as git has them at the event, the way GitHub computes them: commits on the head and not
 * on the base, lines and files of the diff from where the head left the base. Each body is compared with what git
 * itself says about the same commits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../../../src/sandbox/scmhost-simulator/git-smart-http';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { pushCommit, remoteUrl } from './git-over-http';
import { startWebhookReceiver } from './webhook-receiver';

type Json = Record<string, any>;
const TOKEN = 'ghp_countertoken0123456789abcdefABCDEFGH';
const REPO = 'acme/app';

/** git's own counts for base..head: commits, and the numstat of the diff from the merge base. */
async function gitCounts(bare: string, base: string, head: string) {
  const commits = Number((await gitIn(bare, ['rev-list', '--count', `${base}..${head}`])).trim());
  const from = (await gitIn(bare, ['merge-base', base, head])).trim();
  const lines = (await gitIn(bare, ['diff', '--numstat', '-M', from, head])).split('\n').filter(Boolean);
  const sum = (column: number) => lines.reduce((total, line) => total + (Number(line.split('\t')[column]) || 0), 0);
  return { commits, additions: sum(0), deletions: sum(1), changed_files: lines.length };
}

const countersOf = (body: Json) => ({
  commits: body.pull_request.commits, additions: body.pull_request.additions, deletions: body.pull_request.deletions, changed_files: body.pull_request.changed_files,
});

describe('pull_request webhooks count commits, lines and files with git', () => {
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let sim: ScmhostSimulator;
  let remote: string;
  let bare: string;
  const pullRequestEvents = () => receiver.received.filter((r) => r.headers['x-github-event'] === 'pull_request').map((r) => r.json as Json);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    sim = await startScmhostSimulator({ repositories: [REPO], tokens: { [TOKEN]: 'service-bot' }, webhook: { url: `${receiver.url}/scmhost`, secret: 'counter-secret' } });
    remote = remoteUrl(sim.url, REPO, TOKEN);
    bare = sim.git.repositoryPath(REPO);
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    await receiver?.close();
  });

  it('opened, synchronize and the merge each carry the counts of their own moment', async () => {
    const base = await pushCommit(remote, 'main', { 'keep.txt': 'one\ntwo\nthree\n', 'old.txt': 'goes away\nsoon\n' }, 'seed');
    await pushCommit(remote, 'service/acme-2', { 'src/a.ts': 'export const a = 1;\nexport const b = 2;\n' }, '[ACME-2] add a', { from: 'main' });
    const second = await pushCommit(remote, 'service/acme-2', { 'keep.txt': 'one\n2\nthree\nfour\n', 'old.txt': null }, '[ACME-2] edit');
    const opened = await fetch(`${sim.url}/repos/${REPO}/pulls`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: '[ACME-2] counters', head: 'service/acme-2', base: 'main', body: 'b' }),
    });
    expect(opened.status).toBe(201);
    // main moves on after the pull request was opened: the counts stay those of the pull request's own commits.
    await pushCommit(remote, 'main', { 'other.txt': 'elsewhere\n' }, 'unrelated');
    const third = await pushCommit(remote, 'service/acme-2', { 'src/b.ts': 'export const c = 3;\n' }, '[ACME-2] add b');
    const merged = await fetch(`${sim.url}/repos/${REPO}/pulls/1/merge`, {
      method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ merge_method: 'merge' }),
    });
    expect(merged.status).toBe(200);
    await sim.webhooks.flush();

    const events = pullRequestEvents();
    expect(events.map((e) => e.action)).toEqual(['opened', 'synchronize', 'closed']);
    const [atOpen, atPush, atMerge] = events as [Json, Json, Json];
    expect(atOpen.pull_request.head.sha).toBe(second);
    expect(countersOf(atOpen)).toEqual(await gitCounts(bare, base, second));
    // Two commits: one file added (2 lines), one edited (2 added, 1 deleted), one removed (2 deleted).
    expect(countersOf(atOpen)).toEqual({ commits: 2, additions: 4, deletions: 3, changed_files: 3 });

    expect(atPush.after).toBe(third);
    expect(countersOf(atPush)).toEqual({ commits: 3, additions: 5, deletions: 3, changed_files: 4 });
    const mainBeforeMerge = (await gitIn(bare, ['rev-parse', `${atMerge.pull_request.merge_commit_sha}^1`])).trim();
    expect(countersOf(atPush)).toEqual(await gitCounts(bare, mainBeforeMerge, third));

    // The merge moved main onto the head; the closed event still counts what the pull request brought.
    expect(atMerge.pull_request).toMatchObject({ merged: true, state: 'closed' });
    expect(countersOf(atMerge)).toEqual(countersOf(atPush));
    // The REST answer of the pull request agrees with its webhook.
    const rest = await (await fetch(`${sim.url}/repos/${REPO}/pulls/1`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as Json;
    expect(countersOf({ pull_request: rest })).toEqual(countersOf(atMerge));
  }, 60_000);
});
