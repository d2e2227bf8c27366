import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createPollActivities, type PollActivityDeps } from '../../../activities/poll-activities';
import { createLogger } from '../../../src/logging/logger';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function activities(overrides: Partial<PollActivityDeps>) {
  return createPollActivities({
    scmhostRepositories: [],
    workflows: {} as PollActivityDeps['workflows'],
    guard: {} as PollActivityDeps['guard'],
    logger: createLogger({ level: 'error' }),
    heartbeatEveryMs: 50,
    ...overrides,
  });
}

// Found by the fault campaign (seed 96): a poll that ran on a worker killed mid-poll counted as running for its whole
// five-minute start-to-close timeout, and the poller schedule (overlap SKIP) started no poll meanwhile, so webhooks
// lost in that time reached no ticket. A poll now heartbeats while it runs, so the workflow's heartbeat timeout
// hands it to a live worker within seconds.
describe('poll activities', () => {
  it('heartbeat all the while a slow tracker search runs', async () => {
    const tracker = {
      searchAllIssues: async () => { await sleep(400); return []; },
      getIssue: async () => { throw new Error('not read'); },
      getComments: async () => [],
    } as unknown as NonNullable<PollActivityDeps['tracker']>;
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => { heartbeats += 1; });
    const summary = await env.run(activities({ tracker }).pollTracker, { lookbackSeconds: 60, overlapSeconds: 0, watermark: null });
    expect(summary).toMatchObject({ source: 'tracker', observed: 0, skipped: null });
    expect(heartbeats).toBeGreaterThanOrEqual(4);
  });

  it('heartbeat while the source host is read, and stop when the poll is done', async () => {
    const scmhost = async () => ({
      listRecentlyClosedPullRequestsByBranchPrefix: async () => { await sleep(300); return []; },
      listOpenPullRequestsByBranchPrefix: async () => [],
      listReviews: async () => [],
      listCheckRuns: async () => [],
      listIssueComments: async () => [],
    });
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => { heartbeats += 1; });
    const summary = await env.run(activities({ scmhost, scmhostRepositories: ['acme/app'] }).pollScmhost, { lookbackSeconds: 60, overlapSeconds: 0, watermark: null });
    expect(summary).toMatchObject({ source: 'scmhost', observed: 0 });
    expect(heartbeats).toBeGreaterThanOrEqual(3);
    const after = heartbeats;
    await sleep(200);
    expect(heartbeats).toBe(after);
  });
});
