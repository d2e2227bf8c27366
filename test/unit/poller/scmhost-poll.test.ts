import { describe, expect, it } from 'vitest';
import { collectScmhostDeliveries } from '../../../src/poller/scmhost-poll';
import type { PullRequest } from '../../../src/providers/scmhost/scmhost-types';

const pr: PullRequest = {
  number: 61, title: '[DLV-9] Export', body: '', state: 'open', draft: false, merged: false, headRef: 'service/dlv-9', headSha: 'abc',
  baseRef: 'main', htmlUrl: 'https://github.com/acme/api/pull/61', createdAt: '2026-11-23T07:00:00Z', updatedAt: '2026-11-23T07:10:00Z',
};

describe('the source-host poller', () => {
  it('re-delivers an edited comment as an edit, with the identity its webhook had, and an unedited one as a creation', async () => {
    const deliveries = await collectScmhostDeliveries({
      listRecentlyClosedPullRequestsByBranchPrefix: async () => [],
      listOpenPullRequestsByBranchPrefix: async () => [pr],
      listReviews: async () => [],
      listCheckRuns: async () => [],
      listIssueComments: async () => [
        { id: 1, htmlUrl: 'https://github.com/acme/api/pull/61#issuecomment-1', body: '/service skip-gate lint', author: 'ada', createdAt: '2026-11-23T07:01:00Z', updatedAt: '2026-11-23T07:01:00Z' },
        { id: 2, htmlUrl: 'https://github.com/acme/api/pull/61#issuecomment-2', body: 'edited later', author: 'ada', createdAt: '2026-11-23T07:02:00Z', updatedAt: '2026-11-23T07:05:00Z' },
      ],
    } as never, ['acme/api'], { now: new Date('2026-11-23T08:00:00Z'), lookbackSeconds: 3600 });
    const comments = deliveries.filter((d) => d.observation.event === 'issue_comment').map((d) => [d.observation.delivery_identity, d.observation.facts.action]);
    expect(comments).toEqual([
      ['scmhost:comment:1@2026-11-23T07:01:00.000Z', 'created'],
      ['scmhost:comment:2@2026-11-23T07:05:00.000Z', 'edited'],
    ]);
  });

  it('carries the numeric user ids of a polled review\'s and comment\'s authors, as their webhooks do (allowed actors by id)', async () => {
    const deliveries = await collectScmhostDeliveries({
      listRecentlyClosedPullRequestsByBranchPrefix: async () => [],
      listOpenPullRequestsByBranchPrefix: async () => [pr],
      listReviews: async () => [{ id: 7, state: 'APPROVED', body: '', commitId: 'abc', submittedAt: '2026-11-23T07:20:00Z', author: 'ada', authorId: 1001 }],
      listCheckRuns: async () => [],
      listIssueComments: async () => [{ id: 1, htmlUrl: 'u', body: '/service rebase', author: 'bo', authorId: 1002, createdAt: '2026-11-23T07:01:00Z', updatedAt: '2026-11-23T07:01:00Z' }],
    } as never, ['acme/api'], { now: new Date('2026-11-23T08:00:00Z'), lookbackSeconds: 3600 });
    const ids = Object.fromEntries(deliveries.map((d) => [d.observation.event, d.observation.facts.actor_ids]));
    expect(ids).toEqual({ pull_request: undefined, pull_request_review: ['github-id:1001'], issue_comment: ['github-id:1002'] });
  });

  it('delivers only what was made or changed in the window: an open pull request where nothing happened gives nothing', async () => {
    const reader = (updatedAt: string) => ({
      listRecentlyClosedPullRequestsByBranchPrefix: async () => [],
      listOpenPullRequestsByBranchPrefix: async () => [{ ...pr, updatedAt }],
      listReviews: async () => [{ id: 7, state: 'APPROVED', body: '', commitId: 'abc', submittedAt: '2026-11-23T07:20:00Z', author: 'ada' }],
      listCheckRuns: async () => [
        { id: 8, name: 'unit', status: 'completed', conclusion: 'success', headSha: 'abc', startedAt: '2026-11-23T07:21:00Z', completedAt: '2026-11-23T07:22:00Z' },
        { id: 9, name: 'lint', status: 'completed', conclusion: 'failure', headSha: 'abc', startedAt: '2026-11-23T07:58:00Z', completedAt: '2026-11-23T07:59:00Z' },
      ],
      listIssueComments: async () => [
        { id: 1, htmlUrl: 'u', body: 'old', author: 'ada', createdAt: '2026-11-23T07:01:00Z', updatedAt: '2026-11-23T07:01:00Z' },
      ],
    }) as never;
    const now = new Date('2026-11-23T08:00:00Z');
    const idle = await collectScmhostDeliveries(reader('2026-11-23T07:22:00Z'), ['acme/api'], { now, lookbackSeconds: 30 });
    expect(idle).toEqual([]);
    const recent = await collectScmhostDeliveries(reader('2026-11-23T07:59:00Z'), ['acme/api'], { now, lookbackSeconds: 120 });
    expect(recent.map((d) => d.observation.event)).toEqual(['pull_request', 'check_run']);
    const all = await collectScmhostDeliveries(reader('2026-11-23T07:59:00Z'), ['acme/api'], { now, lookbackSeconds: 3600 });
    expect(all.map((d) => d.observation.event)).toEqual(['pull_request', 'pull_request_review', 'check_run', 'check_run', 'issue_comment']);
  });

  it('delivers the last facts of a pull request merged in the window before its merge: a CI result whose webhook was lost just before the merge still reaches the ticket', async () => {
    // Fault campaign seed 66: the person reported CI success, its webhook was dropped, and the merge came before the
    // next poll; the poller read check runs of open pull requests only, so the result never reached the ticket.
    const merged: PullRequest = { ...pr, state: 'closed', merged: true, updatedAt: '2026-11-23T07:59:30Z', closedAt: '2026-11-23T07:59:30Z' };
    const deliveries = await collectScmhostDeliveries({
      listRecentlyClosedPullRequestsByBranchPrefix: async () => [merged],
      listOpenPullRequestsByBranchPrefix: async () => [],
      listReviews: async () => [],
      listCheckRuns: async () => [
        { id: 8, name: 'build', status: 'completed', conclusion: 'success', headSha: 'abc', startedAt: '2026-11-23T07:59:00Z', completedAt: '2026-11-23T07:59:10Z' },
        { id: 9, name: 'old', status: 'completed', conclusion: 'failure', headSha: 'abc', startedAt: '2026-11-23T06:00:00Z', completedAt: '2026-11-23T06:01:00Z' },
      ],
      listIssueComments: async () => [],
    } as never, ['acme/api'], { now: new Date('2026-11-23T08:00:00Z'), lookbackSeconds: 120 });
    expect(deliveries.map((d) => [d.observation.event, d.observation.facts.check_run?.conclusion ?? d.observation.facts.pull_request?.merged])).toEqual([
      ['check_run', 'success'],
      ['pull_request', true],
    ]);
  });
});
