import { checkTicketRepositories, repoLabels, type RepoAssignmentProblem } from '../../../src/planning-context/repo-assignment';
import type { TrackerClient } from '../../../src/providers/tracker/tracker-client';
import type { ProjectRepositoriesCheck } from '../../../workflows/project-config-types';
import type { StationActivity, StationFailureDetails, StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { createContainerStations, type ContainerStationDeps, type ContainerStationSpec } from '../container-station';
import { repoAssignmentFailure, type RepositoriesReader } from '../planning/repositories';
import { stationFailure } from '../station-failure';
import { analysisTaskText, type TicketBrief } from './bug-task-text';
import type { AnalysisData } from './flow-data';
import { parseRcaReport, RCA_FILE } from './rca-report';

/**
 * analyze_bug (REFERENCE "Bug analysis"): an agent reads one repository in a container and writes the root-cause
 * analysis as `.service/rca.json`. The run is read-only (nothing it changes is kept, nothing is pushed). The host
 * validates the file; when it does not fit, the agent runs once more with the errors, then the ticket blocks.
 */

export type AnalysisTracker = Pick<TrackerClient, 'getIssue'> & Partial<Pick<TrackerClient, 'getComments'>>;

export interface AnalyzeBugDeps {
  container: ContainerStationDeps;
  /** The ticket's text and `repo:` labels (and people's comments, when the tracker offers them). */
  tracker: AnalysisTracker;
  /** The project's repository configuration (activities/project-config-activities.ts). */
  repositories: RepositoriesReader;
  /** The container family; createContainerStations(container) by default (tests pass a fake). */
  family?: (spec: ContainerStationSpec) => StationActivity;
}

/** The runs of one attempt: the first, and one more with the validation errors. */
const RUNS = 2;

/**
 * Where the analysis runs: the first of the ticket's `repo:` labels that the project configures, else the project's
 * default repository, else its first; the others are named to the agent. Pure.
 */
export function analysisRepository(projectKey: string, labels: readonly string[], check: ProjectRepositoriesCheck): { ok: true; repository: string; others: string[] } | { ok: false; problem: RepoAssignmentProblem } {
  if (check.status !== 'configured') {
    const assignment = checkTicketRepositories({ projectKey, labels: [], check });
    if (!assignment.ok) return { ok: false, problem: assignment };
    throw new Error(`an unconfigured project ${projectKey} passed the repository check`);
  }
  if (check.repositories.length === 0) {
    return { ok: false, problem: { code: 'missing_project_config', message: `project ${projectKey} configures no repository`, comment: `🚫 **Setup needed**: project \`${projectKey}\` configures no repository to analyze the bug in. Set \`service.repos\`, then add the label \`service:retry\` to resume.` } };
  }
  const configured = check.repositories;
  const byLower = new Map(configured.map((name) => [name.toLowerCase(), name]));
  const labelled = repoLabels(labels).map((repo) => byLower.get(repo.toLowerCase())).find((name): name is string => name !== undefined);
  const fallback = check.default_repo ? byLower.get(check.default_repo.toLowerCase()) : undefined;
  const repository = labelled ?? fallback ?? configured[0]!;
  return { ok: true, repository, others: configured.filter((name) => name !== repository) };
}

type Usage = NonNullable<StationResult['usage']>;

function addUsage(total: Usage, result: StationResult): Usage {
  if (!result.usage) return total;
  return { input_tokens: total.input_tokens + result.usage.input_tokens, output_tokens: total.output_tokens + result.usage.output_tokens, model: result.usage.model ?? total.model };
}

/** A station failure that still counts what both runs spent against the budgets. */
function failureWithUsage(details: { code: string; message: string; recovery: string }, usage: Usage) {
  const failure = stationFailure(details);
  const payload = failure.details?.[0] as StationFailureDetails | undefined;
  if (payload && (usage.input_tokens || usage.output_tokens)) payload.usage = { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens };
  return failure;
}

export function createAnalyzeBugStation(deps: AnalyzeBugDeps): { analyze_bug: StationActivity } {
  const family = deps.family ?? createContainerStations(deps.container);

  return {
    analyze_bug: async (input: StationInput) => {
      const [issue, comments, check] = await Promise.all([
        deps.tracker.getIssue(input.ticket_key),
        deps.tracker.getComments ? deps.tracker.getComments(input.ticket_key) : Promise.resolve([]),
        deps.repositories({ project_key: input.project_key }),
      ]);
      const where = analysisRepository(input.project_key, issue.labels, check);
      if (!where.ok) throw repoAssignmentFailure(input, { ok: false, ...where.problem });
      const ticket: TicketBrief = {
        summary: issue.summary, description: issue.description,
        // People's comments only: the service's own carry an idempotency key and are its artifacts.
        comments: comments.filter((c) => !c.idempotencyKey).map((c) => ({ author: c.author?.displayName, body: c.body })),
      };

      let usage: Usage = { input_tokens: 0, output_tokens: 0 };
      let errors: string[] | undefined;
      for (let run = 1; run <= RUNS; run += 1) {
        const previousErrors = errors;
        const station = family({
          skill: 'analyze_bug',
          readOnly: true,
          task: () => analysisTaskText(input, { ticket, repository: where.repository, otherRepositories: where.others, errors: previousErrors }),
          outputs: () => [RCA_FILE],
          commitMessage: () => `[${input.ticket_key}] analysis (never committed)`,
        });
        const result = await station({ ...input, params: { ...input.params, repository: where.repository } });
        usage = addUsage(usage, result);
        if (result.outcome === 'agent_failed') {
          const message = (result.data as { agent?: { message?: string } } | undefined)?.agent?.message ?? 'no reason given';
          throw failureWithUsage({ code: 'agent_failed', message: `the analysis agent in ${where.repository} gave up: ${message}`, recovery: 'add the missing details to the ticket if needed, then add service:retry' }, usage);
        }
        const outputs = (result.data as { outputs?: Record<string, string> } | undefined)?.outputs ?? {};
        const parsed = parseRcaReport(outputs[RCA_FILE]);
        if (parsed.ok) {
          const data: AnalysisData = { rca: parsed.rca, repository: where.repository, other_repositories: where.others, attempts: run };
          return {
            outcome: 'analyzed',
            data: data as unknown as Record<string, unknown>,
            usage,
            summary: `analyze_bug in ${where.repository}: ${parsed.rca.options.length} fix option${parsed.rca.options.length === 1 ? '' : 's'}, confidence ${parsed.rca.confidence.level}${run > 1 ? ' (second run)' : ''}`,
          };
        }
        errors = parsed.errors;
      }
      throw failureWithUsage({
        code: 'agent_output_invalid',
        message: `the analysis agent in ${where.repository} wrote no valid ${RCA_FILE} in ${RUNS} runs: ${errors!.join('; ')}`.slice(0, 2_000),
        recovery: 'add service:retry to analyze again (or add details to the ticket first)',
      }, usage);
    },
  };
}
