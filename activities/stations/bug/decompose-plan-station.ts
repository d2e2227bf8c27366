import { parentLabel } from '../../../src/planning-context/provisioning-labels';
import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { issueEffectName, type CodeChangeTracker } from '../code-change/pull-request-stations';
import type { RepositoriesReader } from '../planning/repositories';
import { plannedRepositories } from '../plan-repositories';
import { planStepsOfRepository } from '../plan-steps';
import { stationFailure } from '../station-failure';
import { parseStationInput, trustedArtifactText } from '../station-input';
import { FIX_PLAN_ARTIFACT, fixTaskIdentityLabel, type DecompositionData } from './flow-data';
import { REPO_LABEL_PREFIX } from '../../../workflows/vocabulary/labels';

export interface DecomposePlanDeps {
  tracker: Pick<CodeChangeTracker, 'getIssue'>;
  repositories: RepositoriesReader;
}

const SUMMARY_LIMIT = 255;

/** `Fix: <bug summary> (<repo>)` within the tracker's summary limit: the bug's summary gives way, never the repository. */
export function fixTaskSummary(bugSummary: string, repository: string): string {
  const suffix = ` (${repository})`;
  const room = SUMMARY_LIMIT - 'Fix: '.length - suffix.length;
  const flat = bugSummary.trim().replace(/\s+/g, ' ');
  const summary = flat.length > room ? `${flat.slice(0, Math.max(0, room - 1)).trimEnd()}…` : flat;
  return `Fix: ${summary}${suffix}`.slice(0, SUMMARY_LIMIT);
}

export function fixTaskDescription(bugKey: string, repository: string, steps: readonly string[]): string {
  return [
    `The part of the fix for ${bugKey} in \`${repository}\`, from the approved fix plan.`,
    '',
    '**Steps**',
    '',
    ...(steps.length ? steps.map((step) => `- ${step}`) : ['- (see the fix plan on the bug)']),
    '',
    `_Created by the service for ${bugKey}; the work is tracked there._`,
  ].join('\n');
}

/**
 * Effect names, one per repository: `create_fix_<repo>`. Two repositories whose names differ only in punctuation
 * (or past 64 characters) would share one, and the journal would then keep only the first write: the later get a
 * number. The plan's order decides which, so a rerun asks under the same names.
 */
export function fixTaskEffectNames(repositories: readonly string[]): string[] {
  const used = new Set<string>();
  return repositories.map((repository) => {
    const base = issueEffectName('create_fix', repository);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base.slice(0, 64 - `_${n}`.length)}_${n}`;
    used.add(name);
    return name;
  });
}

/** One `tracker.create_issue` per repository: a Task without parent, linked "Relates" to the bug. Pure. */
export function fixTaskIntents(input: Pick<StationInput, 'ticket_key' | 'project_key'>, bugSummary: string, planText: string, repositories: readonly string[]): EffectIntent[] {
  const names = fixTaskEffectNames(repositories);
  return repositories.map((repository, i) => {
    const identity = fixTaskIdentityLabel(input.ticket_key, repository);
    return {
      name: names[i]!,
      required: true,
      operation: {
        kind: 'tracker.create_issue',
        project_key: input.project_key,
        issue_type: 'Task',
        summary: fixTaskSummary(bugSummary, repository),
        description: fixTaskDescription(input.ticket_key, repository, planStepsOfRepository(planText, repository)),
        // Not service:managed: a managed Task without a parent would start a takeover of its own.
        labels: [parentLabel(input.ticket_key), `${REPO_LABEL_PREFIX}${repository}`, identity],
        identity_label: identity,
        relates_to: input.ticket_key,
      },
    };
  });
}

/**
 * decompose_plan (no model): one Task per repository the approved fix plan tags with `repo:` and the project
 * configures (REFERENCE "Bug"). setup_workspace and complete_tasks find them again by the parent label and the `repo:`
 * label, as they find a feature's tasks; the task router walks `repositories`. Tags naming no configured repository
 * are left out (and reported); none known blocks, since nothing could be implemented.
 */
export function createDecomposePlanStation(deps: DecomposePlanDeps): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const artifact = input.artifacts[FIX_PLAN_ARTIFACT];
    if (!artifact) {
      throw stationFailure({ code: 'invalid_station_input', message: `decompose_plan found no ${FIX_PLAN_ARTIFACT} artifact to decompose`, recovery: 'add service:retry once plan_bug_fix has written the fix plan' });
    }
    const planText = trustedArtifactText(artifact).text;
    const check = await deps.repositories({ project_key: input.project_key });
    const known = check.status === 'configured' ? check.repositories : [];
    const { repositories, unknown } = plannedRepositories(planText, known);
    if (repositories.length === 0) {
      const tags = unknown.length ? `it tags ${unknown.map((r) => `\`${r}\``).join(', ')}` : 'it tags no repository (`repo: owner/name`)';
      const configured = check.status === 'configured'
        ? `the project configures ${known.map((r) => `\`${r}\``).join(', ') || 'none'}`
        : `the project's repositories are not configured (${check.status === 'missing' ? check.problems.join('; ') || check.missing.join(', ') : check.reason})`;
      throw stationFailure({
        code: 'repository_missing',
        message: `the fix plan names no configured repository: ${tags}, ${configured}`,
        recovery: 'configure the repositories the fix plan names in service.repos, then add service:retry',
      });
    }
    const bug = await deps.tracker.getIssue(input.ticket_key);
    const data: DecompositionData & { unknown_repositories: string[] } = { repositories, unknown_repositories: unknown };
    return {
      outcome: 'decomposed',
      data: { ...data },
      effects: fixTaskIntents(input, bug.summary, planText, repositories),
      summary: `${repositories.length} fix task${repositories.length === 1 ? '' : 's'}: ${repositories.join(', ')}${unknown.length ? `; not configured, left out: ${unknown.join(', ')}` : ''}`,
    };
  };
}
