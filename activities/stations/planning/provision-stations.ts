import { checkItemRepositories } from '../../../src/planning-context/repo-assignment';
import { epicItemLabel, parentLabel, taskItemLabel } from '../../../src/planning-context/provisioning-labels';
import type { Draft, DraftItem } from '../../../workflows/person-commands/drafts';
import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { parseStationInput } from '../station-input';
import { currentDraft } from './draft-schema';
import { repoAssignmentFailure, ticketRepositories, type RepositoriesReader } from './repositories';
import type { PlanningTracker } from './ticket-material';
import { MANAGED_LABEL, REPO_LABEL_PREFIX } from '../../../workflows/vocabulary/labels';

export interface ProvisionDeps {
  tracker: PlanningTracker;
  repositories: RepositoriesReader;
}

/** The description of a created epic or task: the draft's text, its acceptance criteria and where it comes from. */
function description(item: DraftItem, featureKey: string): string {
  return [
    item.description.trim(),
    ...(item.acceptance_criteria.length ? ['', '**Acceptance criteria**', '', ...item.acceptance_criteria.map((c) => `- ${c}`)] : []),
    '',
    `_Part of ${featureKey}; created by the service from the approved draft (item ${item.id})._`,
  ].join('\n').trim();
}

interface ProvisionSpec {
  /** Where the approved draft is: outputs[station].draft. */
  draftStation: string;
  kind: Draft['kind'];
  noun: 'epic' | 'task';
  issueType: string;
  identity(featureKey: string, id: number): string;
  parent(item: DraftItem, featureKey: string): string;
}

/**
 * provision_epics and provision_tasks: one `tracker.create_issue` intent per included draft item (`create_epic_<id>`,
 * `create_task_<id>`), each with an identity label the effect searches for first, so a repeat adopts what exists.
 * Excluded items are skipped. Every item's repository is checked again against the configuration (it may have
 * changed since the gate); a missing or invalid one blocks with `invalid_repo_assignment`.
 */
function provisionStation(deps: ProvisionDeps, spec: ProvisionSpec): StationActivity {
  return async (raw) => {
    const input: StationInput = parseStationInput(raw);
    const draft = currentDraft(input, spec.draftStation, spec.kind);
    if (!draft) throw new Error(`${input.station} needs the approved draft in outputs.${spec.draftStation}.draft`);
    const issue = await deps.tracker.getIssue(input.ticket_key);
    const allowed = await ticketRepositories(deps.repositories, input, issue.labels);
    const problem = checkItemRepositories({ allowed, items: draft.items, noun: spec.noun });
    if (problem && !problem.ok) throw repoAssignmentFailure(input, problem);

    const included = draft.items.filter((item) => !item.excluded);
    const effects: EffectIntent[] = included.map((item) => {
      const identity = spec.identity(input.ticket_key, item.id);
      return {
        name: `create_${spec.noun}_${item.id}`,
        required: true,
        operation: {
          kind: 'tracker.create_issue',
          project_key: input.project_key,
          issue_type: spec.issueType,
          summary: item.summary,
          description: description(item, input.ticket_key),
          parent_key: spec.parent(item, input.ticket_key),
          labels: [MANAGED_LABEL, parentLabel(input.ticket_key), identity, `${REPO_LABEL_PREFIX}${item.repo}`],
          identity_label: identity,
        },
      };
    });
    const skipped = draft.items.filter((item) => item.excluded).map((item) => item.id);
    return {
      outcome: 'provisioned',
      data: {
        created: included.map((item) => ({ id: item.id, identity_label: spec.identity(input.ticket_key, item.id), repo: item.repo })),
        skipped,
        // The task router (next_repository) walks these, in the order of the draft.
        repositories: [...new Set(included.map((item) => item.repo!))],
      },
      effects,
      summary: `${included.length} ${spec.noun}${included.length === 1 ? '' : 's'} to provision${skipped.length ? `, ${skipped.length} excluded` : ''}`,
    };
  };
}

export function createProvisionStations(deps: ProvisionDeps) {
  return {
    provision_epics: provisionStation(deps, {
      draftStation: 'decompose_epics', kind: 'epics', noun: 'epic', issueType: 'Epic', identity: epicItemLabel,
      parent: (_item, featureKey) => featureKey,
    }),
    provision_tasks: provisionStation(deps, {
      draftStation: 'generate_tasks', kind: 'tasks', noun: 'task', issueType: 'Task', identity: taskItemLabel,
      parent: (item) => {
        if (!item.epic_key) throw new Error(`task draft item ${item.id} has no epic`);
        return item.epic_key;
      },
    }),
  };
}
