import { z } from 'zod';
import type { StationActivity, StationInput, StationResult } from '../../../workflows/station-types';
import { createContainerStations, type ContainerStationDeps, type ContainerStationSpec } from '../container-station';
import { stationFailure } from '../station-failure';
import { currentRepository } from './delivery-context';
import { implementTaskText, localReviewFindings, localReviewText, updateDocumentationText, type LocalReviewFinding } from './implementation-task-text';

/**
 * implement_task, local_review and update_documentation (REFERENCE "Feature"): container stations of the family in
 * container-station.ts, each on the repository the task router chose. The family answers with what happened in
 * the container (changed, no_changes, agent_failed, ...); here that becomes the outcome the definition maps, or a
 * failure that blocks with a code an operator can act on.
 */

const IMPLEMENTATION_NOTES = '.service/implementation.md';
const LOCAL_REVIEW_FILE = '.service/local_review.json';
const DOCUMENTATION_NOTES = '.service/documentation.md';

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

/** The local review's verdict, read from the file the agent wrote. Pure; exported for tests. */
export function parseLocalReview(text: string | undefined): { verdict: 'passed' | 'changes_needed'; findings: LocalReviewFinding[] } | { error: string } {
  if (text === undefined) return { error: `${LOCAL_REVIEW_FILE} was not written` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `${LOCAL_REVIEW_FILE} is not JSON` };
  }
  const parsed = localReviewSchema.safeParse(json);
  if (!parsed.success) return { error: `${LOCAL_REVIEW_FILE}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'} ${i.message}`).join('; ')}` };
  return parsed.data;
}

export function createImplementationStations(deps: ContainerStationDeps): Record<string, StationActivity> {
  const family = createContainerStations(deps);
  /** Runs a family station on the routed repository; a ticket with no routed repository is a definition error. */
  const onRoutedRepository = (spec: ContainerStationSpec) => {
    const station = family(spec);
    return async (input: StationInput) => {
      const repository = currentRepository(input);
      if (!repository) {
        throw stationFailure({ code: 'repository_missing', message: `${input.station} runs per repository, but no repository was routed to it (outputs.next_repository is empty)`, recovery: 'check the definition: a task_router must come before this node' });
      }
      return { repository, result: await station({ ...input, params: { ...input.params, repository } }) };
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
    task: (input) => localReviewText(input, currentRepository(input)!),
    outputs: () => [LOCAL_REVIEW_FILE],
    commitMessage: (input) => `[${input.ticket_key}] local review fixes`,
  });
  const documentation = onRoutedRepository({
    skill: 'update_documentation',
    task: (input) => updateDocumentationText(input, currentRepository(input)!),
    outputs: () => [DOCUMENTATION_NOTES],
    commitMessage: (input) => `[${input.ticket_key}] docs: update documentation`,
  });

  return {
    implement_task: async (input) => {
      const { repository, result } = await implement(input);
      if (result.outcome === 'agent_failed' || result.outcome === 'outputs_missing') agentFailure(input, result);
      const data = familyData(result);
      // Nothing on the branch at all: there is nothing to review or open a pull request for.
      if (!data.commit_sha && !data.resumed) {
        throw stationFailure({ code: 'nothing_implemented', message: `the agent changed nothing in ${repository} for ${input.ticket_key}`, recovery: 'make the tasks more precise (or implement them by hand on the ticket branch), then add service:retry' });
      }
      return { ...result, outcome: 'implemented', summary: `implement_task in ${repository}: ${result.summary ?? ''}`.slice(0, 500) };
    },
    local_review: async (input) => {
      const { repository, result } = await review(input);
      if (result.outcome === 'agent_failed') agentFailure(input, result);
      const verdict = parseLocalReview(familyData(result).outputs[LOCAL_REVIEW_FILE]);
      if ('error' in verdict) {
        throw stationFailure({ code: 'agent_output_invalid', message: `local review of ${repository}: ${verdict.error}`, recovery: 'add service:retry to review again' });
      }
      return {
        ...result,
        outcome: verdict.verdict,
        data: { ...result.data, verdict: verdict.verdict, findings: verdict.findings.slice(0, 30) },
        summary: `local review of ${repository}: ${verdict.verdict}${verdict.findings.length ? ` (${verdict.findings.length} findings)` : ''}`,
      };
    },
    update_documentation: async (input) => {
      const { repository, result } = await documentation(input);
      if (result.outcome === 'agent_failed') agentFailure(input, result);
      return { ...result, outcome: 'updated', summary: `update_documentation in ${repository}: ${familyData(result).commit_sha ? 'documentation updated' : 'nothing to update'}` };
    },
  };
}
