import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { qualitativeReviewOf, TAKEOVER_PLAN_ARTIFACT } from '../bug/flow-data';
import { isDone } from '../code-change/completion-stations';
import { issueEffectName, type CodeChangeTracker } from '../code-change/pull-request-stations';
import { planSteps } from '../plan-steps';
import { parseStationInput, trustedArtifactText } from '../station-input';

const CLOSED = 'Closed';
/** How much of the plan the summary repeats: a reminder, the plan itself is on the ticket. */
const PLAN_LINES = 5;

/** What was planned: the first steps and how many there were, or the plan's first lines when it tags no step. Pure. */
export function plannedLines(planText: string | undefined): string[] {
  if (!planText?.trim()) return [];
  const steps = planSteps(planText);
  if (steps.length) {
    return [
      `The plan had ${steps.length} step${steps.length === 1 ? '' : 's'}:`,
      ...steps.slice(0, PLAN_LINES).map((step) => `- ${step}`),
      ...(steps.length > PLAN_LINES ? [`- … and ${steps.length - PLAN_LINES} more`] : []),
    ];
  }
  const lines = planText.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  return ['The plan began:', ...lines.slice(0, PLAN_LINES).map((line) => `> ${line}`)];
}

/** The takeover's closing comment. Pure. */
export function takeoverSummaryText(input: Pick<StationInput, 'ticket_key' | 'artifacts' | 'outputs' | 'pull_requests'>): string {
  const artifact = input.artifacts[TAKEOVER_PLAN_ARTIFACT];
  const planned = plannedLines(artifact ? trustedArtifactText(artifact).text : undefined);
  const prs = input.pull_requests ?? [];
  const review = qualitativeReviewOf(input);
  return [
    `✅ ${input.ticket_key} is done${prs.length ? `: the pull request${prs.length === 1 ? ' was' : 's were'} approved or merged` : ''}.`,
    ...(planned.length ? ['', '### What was planned', '', ...planned] : []),
    ...(prs.length ? ['', '### Pull requests', '', ...prs.map((ref) => `- ${ref}`)] : []),
    ...(review?.verdict === 'changes_needed'
      ? ['', `⚠️ The qualitative review${review.repository ? ` of ${review.repository}` : ''} still asked for changes after two rounds; the pull request was opened with that warning.`]
      : []),
  ].join('\n');
}

/**
 * complete_task_takeover: after the merge, a summary comment (the plan, the pull requests, and a warning when the
 * qualitative review was still unsatisfied at its cap) and the ticket moves to "Closed" unless it is done already.
 */
export function createCompleteTakeoverStation(deps: { tracker: Pick<CodeChangeTracker, 'getIssue'> }): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const ticket = await deps.tracker.getIssue(input.ticket_key);
    const effects: EffectIntent[] = [{ name: 'takeover_summary', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: takeoverSummaryText(input) } }];
    if (!isDone(ticket)) effects.push({ name: issueEffectName('close', input.ticket_key), operation: { kind: 'tracker.transition', issue_key: input.ticket_key, target: CLOSED } });
    return { outcome: 'done', effects, data: { closed: !isDone(ticket) }, summary: `${input.ticket_key} ${isDone(ticket) ? 'was done already' : `to ${CLOSED}`}, summary posted` };
  };
}
