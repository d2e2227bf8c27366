import { describe, expect, it } from 'vitest';
import { collectTrackerObservations } from '../../../src/poller/tracker-poll';
import type { TrackerComment, TrackerIssue } from '../../../src/providers/tracker/tracker-types';

const person = { accountId: '5b10ac8d82e05b22cc7d4ef5', emailAddress: 'pat@example.com', displayName: 'Pat' };

/** A ticket created at 10:00, commented on and labelled service:retry before someone added service:managed at 10:05. */
const issue: TrackerIssue = {
  id: '10001', key: 'SBX-1', projectKey: 'SBX', summary: 'Export', description: '', labels: ['service:managed', 'service:retry'], issueType: 'Bug', status: 'To Do',
  created: '2026-11-27T10:00:00.000+0000', updated: '2026-11-27T10:05:00.000+0000', creator: person,
  changelog: [
    { id: '100', created: '2026-11-27T10:01:00.000+0000', author: person, items: [{ field: 'labels', fromString: '', toString: 'service:retry' }] },
    { id: '101', created: '2026-11-27T10:05:00.000+0000', author: person, items: [{ field: 'labels', fromString: 'service:retry', toString: 'service:retry service:managed' }] },
  ],
} as TrackerIssue;
const comments: TrackerComment[] = [
  { id: '200', body: '/service foo', author: person, created: '2026-11-27T10:02:00.000+0000', updated: '2026-11-27T10:02:00.000+0000' },
];

describe('the tracker poller', () => {
  it('delivers the change that added service:managed first, so that it starts the workflow, then the creation and the rest in order', async () => {
    const observations = await collectTrackerObservations({
      searchAllIssues: async () => [issue],
      getIssue: async () => issue,
      getComments: async () => comments,
    } as never, { lookbackSeconds: 3600, now: new Date('2026-11-27T10:30:00.000Z') });
    expect(observations.map((o) => [o.event, o.delivery_identity, o.observed_at])).toEqual([
      ['issue_updated', 'tracker:changelog:101', '2026-11-27T10:05:00.000Z'],
      ['issue_created', 'tracker:issue:10001:created', '2026-11-27T10:00:00.000Z'],
      ['issue_updated', 'tracker:changelog:100', '2026-11-27T10:01:00.000Z'],
      ['issue_commented', 'tracker:comment:200@2026-11-27T10:02:00.000Z', '2026-11-27T10:02:00.000Z'],
    ]);
    expect(observations[0]!.facts.label_change).toEqual({ added: ['service:managed'], removed: [] });
    // The creation names its creator, as the webhook does: service:yolo at the start counts only from an allowed actor.
    expect(observations[1]!.facts.actor_ids).toEqual(['tracker-email:pat@example.com', 'tracker:5b10ac8d82e05b22cc7d4ef5']);
  });

  it('keeps creation, changes and comments in their order when no change in the window added service:managed', async () => {
    const createdManaged: TrackerIssue = { ...issue, labels: ['service:managed'], changelog: [issue.changelog![0]!] };
    const observations = await collectTrackerObservations({
      searchAllIssues: async () => [createdManaged],
      getIssue: async () => createdManaged,
      getComments: async () => comments,
    } as never, { lookbackSeconds: 3600, now: new Date('2026-11-27T10:30:00.000Z') });
    expect(observations.map((o) => o.delivery_identity)).toEqual(['tracker:issue:10001:created', 'tracker:changelog:100', 'tracker:comment:200@2026-11-27T10:02:00.000Z']);
  });
});
