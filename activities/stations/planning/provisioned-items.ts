import { epicItemLabel, parentLabel } from '../../../src/planning-context/provisioning-labels';
import type { Draft } from '../../../workflows/person-commands/drafts';
import type { StationInput } from '../../../workflows/runtime/station-types';
import type { PlanningTracker } from './ticket-material';

export interface ProvisionedEpic {
  id: number;
  key: string;
  summary: string;
  description: string;
  repo: string;
}

/**
 * The epics provision_epics created for the plan's included items, found by their identity labels. A missing one
 * is thrown as a plain error so Temporal retries: the tracker's search index may lag a write by a few seconds.
 */
export async function provisionedEpics(tracker: PlanningTracker, input: StationInput, plan: Draft): Promise<ProvisionedEpic[]> {
  const issues = await tracker.searchAllIssues(`project = "${input.project_key}" AND labels = "${parentLabel(input.ticket_key)}" AND issuetype = Epic ORDER BY created ASC`, { limit: 200 });
  const included = plan.items.filter((item) => !item.excluded);
  const missing: number[] = [];
  const epics = included.flatMap((item) => {
    const issue = issues.find((candidate) => candidate.labels.includes(epicItemLabel(input.ticket_key, item.id)));
    if (!issue) {
      missing.push(item.id);
      return [];
    }
    return [{ id: item.id, key: issue.key, summary: item.summary, description: item.description, repo: item.repo ?? '' }];
  });
  if (missing.length) throw new Error(`epic plan item${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${input.ticket_key} not found in the tracker (label ${epicItemLabel(input.ticket_key, missing[0]!)}); provision_epics must run first`);
  if (!epics.length) throw new Error(`the epic plan of ${input.ticket_key} has no included epics`);
  return epics;
}
