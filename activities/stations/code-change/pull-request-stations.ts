import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitRemotes } from '../../../src/providers/git-remote-types';
import { parentLabel } from '../../../src/planning-context/provisioning-labels';
import type { TrackerClient } from '../../../src/providers/tracker/tracker-client';
import type { TrackerIssue } from '../../../src/providers/tracker/tracker-types';
import type { WorkflowKind } from '../../../workflows/ledger/observation';
import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { runModelStep, type ModelStepDeps } from '../planning/model-step';
import { parseStationInput } from '../station-input';
import { stationFailure } from '../station-failure';
import { currentRepository, ticketBranch } from './code-change-context';
import { descriptionPartsSchema, pullRequestBody, pullRequestTaskLines, type DescriptionParts } from './pull-request-body';
import { REPO_LABEL_PREFIX } from '../../../workflows/vocabulary/labels';

export type CodeChangeTracker = Pick<TrackerClient, 'getIssue' | 'searchAllIssues'>;

export interface PullRequestStationDeps extends ModelStepDeps {
  tracker: CodeChangeTracker;
  remotes: GitRemotes;
  /** Repositories (`owner/name`, or `*`) whose pull requests open as drafts (SCMHOST_DRAFT_REPOS). */
  draftRepos: string[];
  /** Where the container stations keep their workspaces (CONTAINER_WORK_DIR). */
  workDir: string;
}

const IN_PROGRESS = 'In Progress';

/** An effect name for one issue key (`start_fd_12`): lower_snake_case, as the contract requires. */
export function issueEffectName(verb: string, key: string): string {
  return `${verb}_${key.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 64);
}

/** The provisioned children of a feature (epics and tasks), found by the parent label provisioning set. */
export async function childrenOf(tracker: CodeChangeTracker, input: Pick<StationInput, 'project_key' | 'ticket_key'>): Promise<TrackerIssue[]> {
  return tracker.searchAllIssues(`project = "${input.project_key}" AND labels = "${parentLabel(input.ticket_key)}" ORDER BY created ASC`, { limit: 500 });
}

/** Tasks of one repository (label `repo:<r>`) and the epics above them. Pure; exported for tests. */
export function workOfRepository(children: readonly TrackerIssue[], repository: string): { tasks: TrackerIssue[]; epics: TrackerIssue[] } {
  const repoLabel = `${REPO_LABEL_PREFIX}${repository}`.toLowerCase();
  const tasks = children.filter((issue) => issue.issueType === 'Task' && issue.labels.some((label) => label.toLowerCase() === repoLabel));
  const epicKeys = new Set(tasks.map((task) => task.parentKey).filter((key): key is string => Boolean(key)));
  const epics = children.filter((issue) => issue.issueType === 'Epic' && epicKeys.has(issue.key));
  return { tasks, epics };
}

function routedRepository(input: StationInput): string {
  const repository = currentRepository(input);
  if (!repository) {
    throw stationFailure({ code: 'repository_missing', message: `${input.station} runs per repository, but no repository was routed to it`, recovery: 'check the definition: a task_router must come before this node' });
  }
  return repository;
}

/** The station whose agent did the work of each graph: its `.service/implementation.md` is the report. */
const IMPLEMENTATION_STATION: Record<WorkflowKind, string> = {
  feature: 'implement_task',
  bug: 'implement_bug_fix',
  task_takeover: 'execute_task_changes',
};

/**
 * The pull-request description (policy key generate_pr_description, tool-free): from the ticket, the tasks of the
 * repository, what the implementation and documentation steps wrote about their work, and the files they changed.
 */
export async function describePullRequest(deps: ModelStepDeps, input: StationInput, repository: string, summary: string): Promise<{ parts: DescriptionParts; usage: NonNullable<Awaited<ReturnType<typeof runModelStep>>['usage']> }> {
  const implementation = input.outputs[IMPLEMENTATION_STATION[input.workflow_kind] ?? 'implement_task'] as { outputs?: Record<string, string>; files?: string[] } | undefined;
  const documentation = input.outputs.update_documentation as { outputs?: Record<string, string>; files?: string[] } | undefined;
  const tasks = pullRequestTaskLines(input, repository);
  const prompt = [
    `Ticket ${input.ticket_key}: ${summary}`,
    `Repository: ${repository}, branch ${ticketBranch(input)}.`,
    // The body gets these sections from the tasks and the analysis themselves; a model's retelling would only repeat them.
    `The service adds the list of tasks${input.workflow_kind === 'bug' ? ', the root cause and the release note' : ''} below your parts: do not repeat them.`,
    '',
    '## Tasks',
    ...(tasks.length ? tasks : ['(none listed for this repository)']),
    '',
    '## What the implementation step reported',
    implementation?.outputs?.['.service/implementation.md'] ?? '(no report)',
    '',
    '## Documentation',
    documentation?.outputs?.['.service/documentation.md'] ?? '(no report)',
    '',
    '## Files changed',
    ...[...new Set([...(implementation?.files ?? []), ...(documentation?.files ?? [])])].map((file) => `- ${file}`),
  ].join('\n');
  const step = await runModelStep(deps, input, { key: 'generate_pr_description', skill: 'generate_pr_description', schema: descriptionPartsSchema, prompt });
  return { parts: step.object, usage: step.usage };
}

export function createPullRequestStations(deps: PullRequestStationDeps): Record<'setup_workspace' | 'create_pr' | 'teardown_workspace', StationActivity> {
  return {
    /** The tasks of this repository, their epics and the feature move to "In Progress" (REFERENCE "Tracker conventions"). */
    setup_workspace: async (raw) => {
      const input = parseStationInput(raw);
      const repository = routedRepository(input);
      const { tasks, epics } = workOfRepository(await childrenOf(deps.tracker, input), repository);
      const keys = [...tasks, ...epics].map((issue) => issue.key);
      const effects: EffectIntent[] = [...keys, input.ticket_key].map((key) => ({
        name: issueEffectName('start', key), operation: { kind: 'tracker.transition', issue_key: key, target: IN_PROGRESS },
      }));
      return {
        outcome: 'ready', effects,
        data: { repository, tasks: tasks.map((t) => t.key), epics: epics.map((e) => e.key) },
        summary: `${repository}: ${tasks.length} task${tasks.length === 1 ? '' : 's'} and ${epics.length} epic${epics.length === 1 ? '' : 's'} to ${IN_PROGRESS}`,
      };
    },

    /**
     * Opens the pull request of this repository (title `[KEY] <summary>`, a generated description), or adopts the
     * open one of the ticket branch; then links it on the ticket once. Both are effects with stable names, so a
     * repeat after a crash finds what the first attempt did.
     */
    create_pr: async (raw) => {
      const input = parseStationInput(raw);
      const repository = routedRepository(input);
      const ticket = await deps.tracker.getIssue(input.ticket_key);
      const branch = ticketBranch(input);
      const remote = deps.remotes.remoteFor(repository);
      const draft = deps.draftRepos.some((r) => r === '*' || r.toLowerCase() === repository.toLowerCase());
      const description = await describePullRequest(deps, input, repository, ticket.summary);
      const body = pullRequestBody(input, repository, description.parts);
      const effect = issueEffectName('pr', repository);
      return {
        outcome: 'opened',
        effects: [
          { name: `open_${effect}`.slice(0, 64), required: true, operation: { kind: 'scmhost.open_pr', repository, head: branch, base: remote.defaultBranch ?? null, title: `[${input.ticket_key}] ${ticket.summary}`.slice(0, 256), body, draft, mode: remote.changeRequestMode } },
          { name: `link_${effect}`.slice(0, 64), operation: { kind: 'tracker.pull_request_link', issue_key: input.ticket_key, repository, head: branch, text: `Pull request for ${repository}: {url}${draft ? ' (draft)' : ''}`, mode: remote.changeRequestMode } },
        ],
        data: { repository, branch, draft },
        usage: description.usage,
        summary: `pull request for ${repository} (${branch})${draft ? ', draft' : ''}`,
      };
    },

    /** Removes the container workspaces of this ticket run: the clones are not needed once the PR is open. */
    teardown_workspace: async (raw) => {
      const input = parseStationInput(raw);
      const repository = currentRepository(input);
      const prefix = `${input.ticket_key.toLowerCase()}-`;
      const suffix = `-${input.run_id.slice(0, 12)}`;
      const names = (await readdir(deps.workDir).catch(() => [] as string[])).filter((name) => name.startsWith(prefix) && name.endsWith(suffix));
      for (const name of names) await rm(join(deps.workDir, name), { recursive: true, force: true });
      return { outcome: 'done', data: { repository: repository ?? null, removed: names.length }, summary: `removed ${names.length} workspace${names.length === 1 ? '' : 's'}${repository ? ` after ${repository}` : ''}` };
    },
  };
}

