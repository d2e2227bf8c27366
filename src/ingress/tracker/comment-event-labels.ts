import type { Observation } from '../../../workflows/ledger/observation';
import { ownCommentReason, type LoopGuardOptions } from '../loop-guard';

/**
 * Jira's comment events carry six fields of their issue, and not its labels. The labels decide where a comment goes:
 * a comment on an epic or task the service provisioned (label `service:parent:<F>`) belongs to the feature's
 * workflow, not to one of its own (plan-tracker-delivery.ts). So the gateway asks the tracker for the labels of a
 * comment's issue when the delivery did not say; the poller reads them with the issue anyway.
 */

export interface IssueLabelReader {
  labelsOf(issueKey: string): Promise<string[]>;
}

/**
 * The observations with the labels of each comment's issue filled in where the delivery left them out. The service's
 * own comments are dropped at the gateway whatever their issue's labels, so they cost no lookup: every comment the
 * service writes comes back as a webhook.
 */
export async function withCommentIssueLabels(observations: Observation[], reader: IssueLabelReader | undefined, guard: LoopGuardOptions = {}): Promise<Observation[]> {
  if (!reader) return observations;
  const out: Observation[] = [];
  for (const observation of observations) {
    const comment = observation.facts.comment;
    if (observation.event !== 'issue_commented' || observation.facts.labels !== undefined || !comment || ownCommentReason(comment, guard, observation.facts.actor_ids)) {
      out.push(observation);
      continue;
    }
    out.push({ ...observation, facts: { ...observation.facts, labels: await reader.labelsOf(observation.ticket_key) } });
  }
  return out;
}
