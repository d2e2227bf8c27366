import { z } from 'zod';
import type { StationActivity, StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { createAnalyzeBugStation, type AnalysisTracker } from '../bug/analyze-bug-station';
import { bugDocumentationText, bugLocalReviewText, chosenOption, implementBugFixText } from '../bug/bug-task-text';
import { AGENT_OUTPUT_BOUNDS, clip, droppedCount, issuesText, keepFirst } from '../agent-output-bounds';
import { createContainerStations, type ContainerStationDeps, type ContainerStationSpec } from '../container-station';
import { boundStationResult } from '../station-result-bound';
import type { RepositoriesReader } from '../planning/repositories';
import { stationFailure } from '../station-failure';
import {
  executeTaskChangesText, qualitativeReviewText, QUALITATIVE_REVIEW_FILE, takeoverDocumentationText, takeoverLocalReviewText,
} from '../takeover/takeover-task-text';
import { currentRepository } from './code-change-context';
import { implementTaskText, localReviewFindings, localReviewText, updateDocumentationText, type LocalReviewFinding } from './implementation-task-text';

/**
 * implement_task, local_review and update_documentation (REFERENCE "Feature"), implement_bug_fix (Bug),
 * execute_task_changes and run_qualitative_review (Task takeover): container stations of the family in
 * container-station.ts, each on the repository the task router chose. The family answers with what happened in
 * the container (changed, no_changes, agent_failed, ...); here that becomes the outcome the definition maps, or a
 * failure that blocks with a code an operator can act on. local_review and update_documentation serve every graph
 * and tell the agent what to check against by the workflow kind. analyze_bug (read-only) comes with them when the
 * tracker and the repository configuration are given.
 */

export interface ImplementationStationDeps extends ContainerStationDeps {
  /**
   * The ticket's text for the bug and takeover texts (put into `params.ticket` before the container runs), and for
   * analyze_bug its `repo:` labels and comments. Without it those texts name the ticket by key only.
   */
  tracker?: AnalysisTracker;
  /** The project's repository configuration; analyze_bug is registered only with it and the tracker. */
  repositories?: RepositoriesReader;
}

const IMPLEMENTATION_NOTES = '.service/implementation.md';
const LOCAL_REVIEW_FILE = '.service/local_review.json';
const DOCUMENTATION_NOTES = '.service/documentation.md';

/** What each graph's local review and documentation check against: the tasks, the fix plan, or the plan. */
function byWorkflow(texts: { feature: (input: StationInput, repository: string) => string; bug: (input: StationInput, repository: string) => string; task_takeover: (input: StationInput, repository: string) => string }) {
  return (input: StationInput) => (texts[input.workflow_kind] ?? texts.feature)(input, currentRepository(input)!);
}

const localReviewSchema = z.object({
  verdict: z.enum(['passed', 'changes_needed']),
  findings: z.array(z.object({ file: z.string().optional(), problem: z.string(), suggestion: z.string().optional() })).default([]),
});

interface FamilyData {
  repository: string;
  resumed: boolean;
  commit_sha: string | null;
  outputs: Record<string, string>;
  agent: { status: string; message?: string };
}

function familyData(result: StationResult): FamilyData {
  return result.data as unknown as FamilyData;
}

function agentFailure(input: StationInput, result: StationResult): never {
  const data = familyData(result);
  if (result.outcome === 'agent_failed') {
    throw stationFailure({ code: 'agent_failed', message: `the agent of ${input.station} in ${data.repository} gave up: ${data.agent.message ?? 'no reason given'}`, recovery: 'look at the station attempt in the execution view, clarify the tasks if needed, then add service:retry' });
  }
  throw stationFailure({ code: 'agent_output_missing', message: `the agent of ${input.station} in ${data.repository} did not write what it was asked to`, recovery: 'add service:retry to run it again' });
}

/**
 * A review verdict, read from the file the agent wrote (local_review, run_qualitative_review: the same shape).
 * Pure; exported for tests.
 */
export function parseLocalReview(text: string | undefined, file = LOCAL_REVIEW_FILE): { verdict: 'passed' | 'changes_needed'; findings: LocalReviewFinding[] } | { error: string } {
  if (text === undefined) return { error: `${file} was not written` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `${file} is not JSON` };
  }
  const parsed = localReviewSchema.safeParse(json);
  if (!parsed.success) return { error: `${file}: ${issuesText(parsed.error.issues)}` };
  return parsed.data;
}

/**
 * The findings a review keeps for the next run (and the pull request's warning): the first
 * AGENT_OUTPUT_BOUNDS.findings, each text bounded, and how many were left out. Pure; exported for tests.
 */
export function keptFindings(findings: readonly LocalReviewFinding[], bounds = AGENT_OUTPUT_BOUNDS): { findings: LocalReviewFinding[]; findings_dropped?: number } {
  const first = keepFirst(findings, bounds.findings);
  return {
    findings: first.kept.map((f) => ({
      ...(f.file === undefined ? {} : { file: clip(f.file, bounds.pathChars) }),
      problem: clip(f.problem, bounds.findingChars),
      ...(f.suggestion === undefined ? {} : { suggestion: clip(f.suggestion, bounds.findingChars) }),
    })),
    ...droppedCount('findings', first),
  };
}

export function createImplementationStations(deps: ImplementationStationDeps): Record<string, StationActivity> {
  const family = createContainerStations(deps);
  /**
   * Runs a family station on the routed repository; a ticket with no routed repository is a definition error. The
   * bug and takeover texts quote the ticket, which the task text cannot read itself: it goes into params.ticket.
   */
  const onRoutedRepository = (spec: ContainerStationSpec, options: { ticket?: boolean } = {}) => {
    const station = family(spec);
    return async (input: StationInput) => {
      const repository = currentRepository(input);
      if (!repository) {
        throw stationFailure({ code: 'repository_missing', message: `${input.station} runs per repository, but no repository was routed to it (outputs.next_repository is empty)`, recovery: 'check the definition: a task_router must come before this node' });
      }
      const ticket = options.ticket && deps.tracker ? await deps.tracker.getIssue(input.ticket_key) : undefined;
      const params = { ...input.params, repository, ...(ticket ? { ticket: { summary: ticket.summary, description: ticket.description } } : {}) };
      return { repository, result: await station({ ...input, params }) };
    };
  };

  const implement = onRoutedRepository({
    skill: 'implement_task',
    task: (input) => implementTaskText(input, currentRepository(input)!),
    outputs: () => [IMPLEMENTATION_NOTES],
    commitMessage: (input) => `[${input.ticket_key}] ${localReviewFindings(input, currentRepository(input)!) ? 'address the local review' : 'implement the tasks'}`,
  });
  const review = onRoutedRepository({
    skill: 'local_review',
    task: byWorkflow({ feature: localReviewText, bug: bugLocalReviewText, task_takeover: takeoverLocalReviewText }),
    outputs: () => [LOCAL_REVIEW_FILE],
    commitMessage: (input) => `[${input.ticket_key}] local review fixes`,
  });
  const documentation = onRoutedRepository({
    skill: 'update_documentation',
    task: byWorkflow({ feature: updateDocumentationText, bug: bugDocumentationText, task_takeover: takeoverDocumentationText }),
    outputs: () => [DOCUMENTATION_NOTES],
    commitMessage: (input) => `[${input.ticket_key}] docs: update documentation`,
  });

  const fixBug = onRoutedRepository({
    skill: 'implement_task',
    task: (input) => implementBugFixText(input, currentRepository(input)!),
    outputs: () => [IMPLEMENTATION_NOTES],
    commitMessage: (input) => {
      if (localReviewFindings(input, currentRepository(input)!)) return `[${input.ticket_key}] address the local review`;
      const option = chosenOption(input);
      // The title is the agent's text: one line, bounded.
      const title = option?.option?.title.replace(/\s+/g, ' ').trim() || (option ? `option ${option.number}` : 'the bug');
      return `[${input.ticket_key}] fix: ${title}`.slice(0, 200);
    },
  }, { ticket: true });
  const executeChanges = onRoutedRepository({
    skill: 'implement_task',
    task: (input) => executeTaskChangesText(input, currentRepository(input)!),
    outputs: () => [IMPLEMENTATION_NOTES],
    commitMessage: (input) => `[${input.ticket_key}] implement the plan`,
  }, { ticket: true });
  const qualitativeReview = onRoutedRepository({
    skill: 'qualitative_review',
    task: (input) => qualitativeReviewText(input, currentRepository(input)!),
    outputs: () => [QUALITATIVE_REVIEW_FILE],
    commitMessage: (input) => `[${input.ticket_key}] qualitative review fixes`,
  }, { ticket: true });

  /** The implementing stations of the three graphs: the same failures, the same `implemented`. */
  const implementing = (run: typeof implement, what: string) => async (input: StationInput): Promise<StationResult> => {
    const { repository, result } = await run(input);
    if (result.outcome === 'agent_failed' || result.outcome === 'outputs_missing') agentFailure(input, result);
    const data = familyData(result);
    // Nothing on the branch at all: there is nothing to review or open a pull request for.
    if (!data.commit_sha && !data.resumed) {
      throw stationFailure({ code: 'nothing_implemented', message: `the agent changed nothing in ${repository} for ${input.ticket_key}`, recovery: `make the ${what} more precise (or implement it by hand on the ticket branch), then add service:retry` });
    }
    return { ...result, outcome: 'implemented', summary: `${input.station} in ${repository}: ${result.summary ?? ''}`.slice(0, 500) };
  };

  /** The reviewing stations: a verdict file, `passed` or `changes_needed`, the findings kept for the next run. */
  const reviewing = (run: typeof review, file: string, title: string) => async (input: StationInput): Promise<StationResult> => {
    const { repository, result } = await run(input);
    if (result.outcome === 'agent_failed') agentFailure(input, result);
    const verdict = parseLocalReview(familyData(result).outputs[file], file);
    if ('error' in verdict) {
      throw stationFailure({ code: 'agent_output_invalid', message: `${title} of ${repository}: ${verdict.error}`, recovery: 'add service:retry to review again' });
    }
    return boundStationResult({
      ...result,
      outcome: verdict.verdict,
      data: { ...result.data, verdict: verdict.verdict, ...keptFindings(verdict.findings) },
      summary: `${title} of ${repository}: ${verdict.verdict}${verdict.findings.length ? ` (${verdict.findings.length} findings)` : ''}`,
    }).result;
  };

  const analysis = deps.tracker && deps.repositories
    ? createAnalyzeBugStation({ container: deps, tracker: deps.tracker, repositories: deps.repositories })
    : {};

  return {
    ...analysis,
    implement_task: implementing(implement, 'tasks'),
    implement_bug_fix: implementing(fixBug, 'fix plan'),
    execute_task_changes: implementing(executeChanges, 'plan'),
    local_review: reviewing(review, LOCAL_REVIEW_FILE, 'local review'),
    // Its data carries repository, verdict and findings: QualitativeReviewData (bug/flow-data.ts).
    run_qualitative_review: reviewing(qualitativeReview, QUALITATIVE_REVIEW_FILE, 'qualitative review'),
    update_documentation: async (input) => {
      const { repository, result } = await documentation(input);
      if (result.outcome === 'agent_failed') agentFailure(input, result);
      return { ...result, outcome: 'updated', summary: `update_documentation in ${repository}: ${familyData(result).commit_sha ? 'documentation updated' : 'nothing to update'}` };
    },
  };
}
