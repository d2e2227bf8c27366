import { z } from 'zod';
import type { EffectIntent, StationActivity, StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { issuesText } from '../agent-output-bounds';
import { createContainerStations, type ContainerStationDeps } from '../container-station';
import { stationFailure } from '../station-failure';
import { parsePullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';
import { tasksOfRepository } from './implementation-task-text';
import { issueEffectName } from './pull-request-stations';

/**
 * code_review (policy key code_review): before a person is asked, an agent reviews each of the ticket's GitHub pull
 * requests in a read-only pass over the branch and the service posts what it found as one review (event COMMENT:
 * the service does not approve its own work). Findings go in the review's text, each with its place, rather than
 * as line comments: GitHub refuses a line comment outside the diff, and a refused review would block the ticket.
 */

const CODE_REVIEW_FILE = '.service/code_review.json';
const FINDINGS_LIMIT = 30;

const reviewSchema = z.object({
  summary: z.string().default(''),
  findings: z.array(z.object({
    file: z.string().optional(),
    line: z.number().int().positive().optional(),
    severity: z.enum(['high', 'medium', 'low']).default('medium'),
    comment: z.string().min(1),
  })).default([]),
});
export type CodeReview = z.infer<typeof reviewSchema>;

/** The review the agent wrote, or what is wrong with it. Pure; exported for tests. */
export function parseCodeReview(text: string | undefined): CodeReview | { error: string } {
  if (text === undefined) return { error: `${CODE_REVIEW_FILE} was not written` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `${CODE_REVIEW_FILE} is not JSON` };
  }
  const parsed = reviewSchema.safeParse(json);
  if (!parsed.success) return { error: `${CODE_REVIEW_FILE}: ${issuesText(parsed.error.issues)}` };
  return parsed.data;
}

const ORDER = { high: 0, medium: 1, low: 2 } as const;

/** The review's text: the summary, then the findings, most severe first. Pure; exported for tests. */
export function codeReviewBody(review: CodeReview): string {
  const findings = [...review.findings].sort((a, b) => ORDER[a.severity] - ORDER[b.severity]).slice(0, FINDINGS_LIMIT);
  return [
    '**Automated review by the service** (a person still decides).',
    '',
    review.summary.trim() || (findings.length ? 'Findings below.' : 'Nothing to flag.'),
    ...(findings.length ? ['', ...findings.map((f) => `- **${f.severity}**${f.file ? ` \`${f.file}${f.line ? `:${f.line}` : ''}\`` : ''}: ${f.comment.trim()}`)] : []),
    ...(review.findings.length > FINDINGS_LIMIT ? ['', `(${review.findings.length - FINDINGS_LIMIT} more not shown)`] : []),
  ].join('\n');
}

export function codeReviewText(input: StationInput, repository: string): string {
  const tasks = tasksOfRepository(input, repository);
  return [
    `Ticket ${input.ticket_key}: review the changes of this branch of ${repository} against its base, before a person reviews the pull request.`,
    'Do not change any file except the output file.',
    '',
    '## The tasks it implements',
    ...(tasks.length ? tasks.map((t) => `- ${t.summary}: ${t.description}${t.acceptance_criteria?.length ? ` (criteria: ${t.acceptance_criteria.join('; ')})` : ''}`) : ['(no task of the plan names this repository)']),
    '',
    `Write \`${CODE_REVIEW_FILE}\` as JSON: {"summary": "...", "findings": [{"file": "...", "line": 1, "severity": "high" | "medium" | "low", "comment": "..."}]}.`,
  ].join('\n');
}

export function createCodeReviewStation(container: ContainerStationDeps): Record<string, StationActivity> {
  const reviewInContainer = createContainerStations(container)({
    skill: 'code_review',
    task: (input) => codeReviewText(input, String(input.params?.repository)),
    outputs: () => [CODE_REVIEW_FILE],
    commitMessage: (input) => `[${input.ticket_key}] code review notes`,
  });

  return {
    code_review: async (input) => {
      const effects: EffectIntent[] = [];
      const reviewed: Array<{ pull_request: string; findings: number }> = [];
      let usage: NonNullable<StationResult['usage']> | undefined;
      for (const ref of input.pull_requests ?? []) {
        const parsed = parsePullRequestRef(ref);
        if (!parsed) continue;
        const result = await reviewInContainer({ ...input, params: { ...input.params, repository: parsed.repository } });
        const data = result.data as { commit_sha: string | null; outputs: Record<string, string>; agent: { message?: string } };
        if (result.outcome === 'agent_failed') {
          throw stationFailure({ code: 'agent_failed', message: `the code review agent in ${parsed.repository} gave up: ${data.agent.message ?? 'no reason given'}`, recovery: 'add service:retry to review again' });
        }
        // A review is read-only: anything it changed is not pushed (its own push effect is dropped).
        const review = parseCodeReview(data.outputs[CODE_REVIEW_FILE]);
        if ('error' in review) {
          throw stationFailure({ code: 'agent_output_invalid', message: `code review of ${ref}: ${review.error}`, recovery: 'add service:retry to review again' });
        }
        effects.push({ name: issueEffectName('review', ref), operation: { kind: 'scmhost.pr_review', repository: parsed.repository, number: parsed.number, event: 'COMMENT', body: codeReviewBody(review) } });
        reviewed.push({ pull_request: ref, findings: review.findings.length });
        if (result.usage) usage = { ...result.usage, input_tokens: (usage?.input_tokens ?? 0) + result.usage.input_tokens, output_tokens: (usage?.output_tokens ?? 0) + result.usage.output_tokens };
      }
      return {
        outcome: 'reviewed', effects, data: { reviewed }, ...(usage ? { usage } : {}),
        summary: reviewed.length ? `reviewed ${reviewed.map((r) => `${r.pull_request} (${r.findings} finding${r.findings === 1 ? '' : 's'})`).join(', ')}` : 'no GitHub pull request to review',
      };
    },
  };
}
