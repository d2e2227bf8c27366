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
    } as never, ['acme/api'], { now: new Date('2026-11-23T08:00:00Z'), lookbackSeconds: 600 });
    const comments = deliveries.filter((d) => d.observation.event === 'issue_comment').map((d) => [d.observation.delivery_identity, d.observation.facts.action]);
    expect(comments).toEqual([
      ['scmhost:comment:1@2026-11-23T07:01:00.000Z', 'created'],
      ['scmhost:comment:2@2026-11-23T07:05:00.000Z', 'edited'],
    ]);
  });
});
