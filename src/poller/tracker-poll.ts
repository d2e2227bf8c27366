import type { Observation } from '../../workflows/ledger/observation';
import { changelogObservation, commentObservation, issueCreatedObservation, trackerCommentAuthor, type TrackerIssueFacts } from '../ingress/tracker/tracker-observations';
import type { TrackerClient } from '../providers/tracker/tracker-client';
import type { TrackerIssue } from '../providers/tracker/tracker-types';
import { MANAGED_LABEL } from '../../workflows/vocabulary/labels';

export const MANAGED_TICKETS_JQL = `labels = "${MANAGED_LABEL}"`;

function issueFacts(issue: TrackerIssue): TrackerIssueFacts {
  return { id: issue.id, key: issue.key, issueType: issue.issueType, summary: issue.summary, status: issue.status, labels: issue.labels, created: issue.created, updated: issue.updated };
}

function within(time: string | undefined, since: Date): boolean {
  const at = time ? Date.parse(time) : NaN;
  return !Number.isNaN(at) && at >= since.getTime();
}

/** Jira's JQL takes relative times in whole minutes: `updated >= -15m`. */
export function trackerPollJql(lookbackSeconds: number): string {
  return `${MANAGED_TICKETS_JQL} AND updated >= -${Math.max(1, Math.ceil(lookbackSeconds / 60))}m ORDER BY updated ASC`;
}

/**
 * Reads recently updated managed tickets with their changelog and comments and produces the observations their
 * webhooks would have produced: the creation of tickets created in the window, each changelog entry and each comment
 * updated in the window, per ticket in that order except that a change adding service:managed comes first. Facts
 * already delivered by webhook come out with the same identity and are duplicates.
 */
export async function collectTrackerObservations(
  tracker: Pick<TrackerClient, 'searchAllIssues' | 'getIssue' | 'getComments'>,
  options: { lookbackSeconds: number; now: Date; limit?: number },
): Promise<Observation[]> {
  const since = new Date(options.now.getTime() - options.lookbackSeconds * 1000);
  const context = { source: 'poller' as const, receivedAt: options.now };
  const issues = await tracker.searchAllIssues(trackerPollJql(options.lookbackSeconds), { limit: options.limit ?? 500 });
  const observations: Observation[] = [];
  for (const listed of issues) {
    const issue = await tracker.getIssue(listed.key, { changelog: true });
    const facts = issueFacts(issue);
    const changes = (issue.changelog ?? []).filter((entry) => within(entry.created, since))
      .map((entry) => changelogObservation(facts, { id: entry.id, created: entry.created, items: entry.items, author: entry.author }, context));
    // The change that added service:managed goes first, so that it starts the ticket's workflow. The creation carries
    // today's labels, not those the ticket was created with: delivered first, it would start the workflow as if the
    // ticket had been managed since its creation, and the changes made before the label could command it
    // (workflows/runtime/management-moment.ts). The ledger orders changes per label, so none of them becomes stale by this.
    const starts = changes.filter((observation) => observation.facts.label_change?.added.includes(MANAGED_LABEL));
    observations.push(...starts);
    if (within(issue.created, since)) observations.push(issueCreatedObservation(facts, context, undefined, issue.creator));
    observations.push(...changes.filter((observation) => !starts.includes(observation)));
    for (const comment of await tracker.getComments(issue.key)) {
      if (!within(comment.updated, since)) continue;
      observations.push(commentObservation(facts, {
        id: comment.id,
        body: comment.body,
        ...trackerCommentAuthor(comment.author),
        created: comment.created,
        updated: comment.updated,
      }, context));
    }
  }
  return observations;
}
