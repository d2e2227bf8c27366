import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPullRequestOnce, replyInReviewThreadOnce, submitReviewOnce, updatePullRequestOnce } from '../../../activities/pull-request-effect-activities';
import { createScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';

const TOKEN = 'ghp_pullRequestEffectToken0123456789abcd';

/** scmhost.open_pr and scmhost.update_pr over real HTTP against the GitHub simulator. */
describe('pull request effects', () => {
  let github: ScmhostSimulator;
  beforeAll(async () => {
    github = await startScmhostSimulator({ repositories: ['acme/api', 'acme/forked'], tokens: { [TOKEN]: 'service-bot' } });
  });
  afterAll(async () => github?.close());
  const client = () => createScmhostClient({ token: TOKEN, baseUrl: github.url, timeoutMs: 5_000 });

  it('opens a pull request against the default branch once, then adopts the open one of the same branch', async () => {
    const repo = github.state.repo('acme', 'api');
    github.state.pushBranch(repo, 'service/fd-1');
    const operation = { kind: 'scmhost.open_pr' as const, repository: 'acme/api', head: 'service/fd-1', base: null, title: '[FD-1] Export', body: 'What and why', draft: true };
    const first = await openPullRequestOnce(await client(), operation);
    expect(first).toMatchObject({ ids: { pull_request: 'acme/api#1', number: '1' }, url: expect.stringContaining('/acme/api/pull/1') });
    expect(first).not.toHaveProperty('adopted');
    const again = await openPullRequestOnce(await client(), { ...operation, title: 'a retry with another title' });
    expect(again).toMatchObject({ ids: { pull_request: 'acme/api#1' }, adopted: true });
    expect(github.state.pullsOf(repo).map((p) => [p.number, p.baseRef, p.title, p.draft])).toEqual([[1, 'main', '[FD-1] Export', true]]);
  });

  it('opens a pull request from the service account\'s fork in fork mode, once', async () => {
    const upstream = github.state.repo('acme', 'forked');
    const fork = github.state.fork(upstream, github.state.user('service-bot'));
    github.state.pushBranch(fork, 'service/fd-2');
    const operation = { kind: 'scmhost.open_pr' as const, repository: 'acme/forked', head: 'service/fd-2', base: 'main', title: '[FD-2] Fork', body: 'b', mode: 'fork' as const };
    expect(await openPullRequestOnce(await client(), operation)).toMatchObject({ ids: { pull_request: 'acme/forked#1' } });
    expect(await openPullRequestOnce(await client(), operation)).toMatchObject({ ids: { pull_request: 'acme/forked#1' }, adopted: true });
    const pulls = github.state.pullsOf(upstream);
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.headRepo.owner.login).toBe('service-bot');
  });

  it('updates the description only when it differs, and never writes a credential into it', async () => {
    const operation = { kind: 'scmhost.update_pr' as const, repository: 'acme/api', number: 1, body: 'New description; token ghp_abcdefghijklmnopqrstuvwxyz0123456789' };
    expect(await updatePullRequestOnce(await client(), operation)).toMatchObject({ ids: { pull_request: 'acme/api#1' } });
    const pull = github.state.pull(github.state.repo('acme', 'api'), 1);
    expect(pull.body).toBe('New description; token [REDACTED]');
    expect(await updatePullRequestOnce(await client(), operation)).toMatchObject({ adopted: true, note: 'title and description were already as wanted' });
  });

  it('replies in a review thread once: a repeat finds the reply by its key', async () => {
    const repo = github.state.repo('acme', 'api');
    github.state.submitReview(repo, 1, { state: 'CHANGES_REQUESTED', body: 'see inline', comments: [{ path: 'APP.md', line: 1, body: 'rename this' }] }, github.state.user('octo-reviewer'));
    const root = github.state.reviewComments.find((c) => c.body === 'rename this')!;
    const operation = { kind: 'scmhost.review_reply' as const, repository: 'acme/api', number: 1, comment_id: root.id, body: 'Done in abc1234.' };
    const first = await replyInReviewThreadOnce(await client(), operation, 'FD-1:run:implement_review:1:reply_1');
    expect(first).not.toHaveProperty('adopted');
    expect(await replyInReviewThreadOnce(await client(), operation, 'FD-1:run:implement_review:1:reply_1')).toMatchObject({ ids: first.ids, adopted: true });
    const replies = github.state.reviewComments.filter((c) => c.inReplyToId === root.id);
    expect(replies.map((c) => [c.body.split('\n')[0], c.user.login])).toEqual([['Done in abc1234.', 'service-bot']]);
  });

  it('submits the service\'s own review once: a repeat finds it by its key', async () => {
    const operation = { kind: 'scmhost.pr_review' as const, repository: 'acme/api', number: 1, event: 'COMMENT' as const, body: 'Automated review: one finding.' };
    const first = await submitReviewOnce(await client(), operation, 'FD-1:run:code_review:1:review_acme_api_1');
    expect(await submitReviewOnce(await client(), operation, 'FD-1:run:code_review:1:review_acme_api_1')).toMatchObject({ ids: first.ids, adopted: true });
    const mine = github.state.reviews.filter((r) => r.repo === 'acme/api' && r.user.login === 'service-bot' && r.body);
    expect(mine.map((r) => [r.state, r.body.split('\n')[0]])).toEqual([['COMMENTED', 'Automated review: one finding.']]);
  });

  it('writes its own review and reply beside a person\'s carrying their exact markers, and a retry adopts its own', async () => {
    const repo = github.state.repo('acme', 'api');
    const mallory = github.state.user('mallory');
    const marker = (key: string) => `\n\n<!-- service:idempotency-key=${key} -->`;
    github.state.submitReview(repo, 1, { state: 'COMMENTED', body: `Automated review: nothing to fix.${marker('FD-1:run:code_review:2:review')}`, comments: [{ path: 'APP.md', line: 2, body: 'why?' }] }, mallory);
    const root = github.state.reviewComments.find((c) => c.body === 'why?')!;
    github.state.replyToReviewComment(repo, 1, root.id, `Because.${marker('FD-1:run:implement_review:2:reply_1')}`, mallory);

    const review = { kind: 'scmhost.pr_review' as const, repository: 'acme/api', number: 1, event: 'COMMENT' as const, body: 'Automated review: two findings.' };
    const reviewed = await submitReviewOnce(await client(), review, 'FD-1:run:code_review:2:review');
    expect(reviewed).not.toHaveProperty('adopted');
    expect(await submitReviewOnce(await client(), review, 'FD-1:run:code_review:2:review')).toMatchObject({ ids: reviewed.ids, adopted: true });
    const reply = { kind: 'scmhost.review_reply' as const, repository: 'acme/api', number: 1, comment_id: root.id, body: 'Explained in the README.' };
    const replied = await replyInReviewThreadOnce(await client(), reply, 'FD-1:run:implement_review:2:reply_1');
    expect(replied).not.toHaveProperty('adopted');
    expect(await replyInReviewThreadOnce(await client(), reply, 'FD-1:run:implement_review:2:reply_1')).toMatchObject({ ids: replied.ids, adopted: true });

    const marked = (body: string, key: string) => body.includes(`idempotency-key=${key} `);
    expect(github.state.reviews.filter((r) => marked(r.body, 'FD-1:run:code_review:2:review')).map((r) => [r.user.login, r.body.split('\n')[0]]))
      .toEqual([['mallory', 'Automated review: nothing to fix.'], ['service-bot', 'Automated review: two findings.']]);
    expect(github.state.reviewComments.filter((c) => c.inReplyToId === root.id).map((c) => [c.user.login, c.body.split('\n')[0]]))
      .toEqual([['mallory', 'Because.'], ['service-bot', 'Explained in the README.']]);
  });
});
