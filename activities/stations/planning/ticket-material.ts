import type { TicketMaterial } from '../../../src/planning-context/planning-prompt';
import type { TrackerClient } from '../../../src/providers/tracker/tracker-client';

export type PlanningTracker = Pick<TrackerClient, 'getIssue' | 'getComments' | 'getProjectProperty' | 'searchAllIssues'>;

export const REFERENCES_PROPERTY = 'service.references';

/**
 * What a planning station reads from the tracker: the ticket with the people's comments (the service's own, which
 * carry an idempotency key, are the artifacts it posted and are passed separately), and the project's references.
 */
export async function readTicketMaterial(tracker: PlanningTracker, ticketKey: string, projectKey: string): Promise<{ ticket: TicketMaterial; references: unknown }> {
  const [issue, comments, references] = await Promise.all([
    tracker.getIssue(ticketKey),
    tracker.getComments(ticketKey),
    tracker.getProjectProperty(projectKey, REFERENCES_PROPERTY),
  ]);
  return {
    ticket: {
      key: issue.key,
      summary: issue.summary,
      issueType: issue.issueType,
      description: issue.description,
      labels: issue.labels,
      comments: comments.filter((c) => !c.idempotencyKey).map((c) => ({ author: c.author?.displayName, created: c.created, body: c.body })),
    },
    references,
  };
}
