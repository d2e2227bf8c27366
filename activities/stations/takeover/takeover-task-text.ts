import type { StationInput } from '../../../workflows/runtime/station-types';
import { planSection, ticketBriefOf, ticketSection } from '../bug/bug-task-text';
import { qualitativeReviewOf, takeoverPlanOf, TAKEOVER_PLAN_ARTIFACT } from '../bug/flow-data';
import { trustedArtifactText } from '../station-input';

/**
 * What the agent is told in the task-takeover graph: the changes of the approved plan (execute_task_changes), the
 * qualitative review of the branch (run_qualitative_review), and the plan-based local review and documentation texts
 * when a takeover definition uses those stations. Pure, so the wording is unit-tested.
 */

export const QUALITATIVE_REVIEW_FILE = '.service/qualitative_review.json';

function planText(input: StationInput): string | undefined {
  const record = input.artifacts[TAKEOVER_PLAN_ARTIFACT];
  return record ? trustedArtifactText(record).text : undefined;
}

/** The approved plan as it concerns this repository (other repositories' steps left out). */
function planSections(input: StationInput, repository: string): string[] {
  const plan = planText(input);
  if (!plan) return ['## The approved plan', '(the plan is not available: work from the ticket)'];
  return planSection(plan, repository, 'The approved plan');
}

function otherRepositoriesLine(input: StationInput, repository: string): string[] {
  const others = (takeoverPlanOf(input)?.repositories ?? []).filter((r) => r.toLowerCase() !== repository.toLowerCase());
  return others.length ? [`The plan also changes ${others.map((r) => `\`${r}\``).join(', ')}: that is done separately; change only ${repository} here.`] : [];
}

/**
 * The findings of the last qualitative review when it asked for changes in this repository. The output outlives the
 * repository it was written for: the next repository's first run must not be told to fix another's findings.
 */
export function qualitativeReviewFindings(input: StationInput, repository: string): string | undefined {
  const review = qualitativeReviewOf(input);
  if (!review || review.verdict !== 'changes_needed' || review.repository?.toLowerCase() !== repository.toLowerCase()) return undefined;
  const findings = review.findings ?? [];
  if (findings.length === 0) return undefined;
  return findings.map((f, i) => `${i + 1}. ${f.file ? `\`${f.file}\`: ` : ''}${f.problem ?? ''}${f.suggestion ? ` (suggestion: ${f.suggestion})` : ''}`).join('\n');
}

/** execute_task_changes: the ticket, this repository's steps of the approved plan, the review's findings first. */
export function executeTaskChangesText(input: StationInput, repository: string): string {
  const findings = qualitativeReviewFindings(input, repository);
  return [
    `Ticket ${input.ticket_key}: make the changes the approved plan below asks of the repository ${repository}.`,
    ...otherRepositoriesLine(input, repository),
    ...(findings ? ['', '## The qualitative review asked for these changes (do them first)', findings] : []),
    '',
    ...ticketSection(input.ticket_key, ticketBriefOf(input)),
    '',
    ...planSections(input, repository),
    '',
    'Write `.service/implementation.md`: what you changed, file by file, and how you checked it.',
  ].join('\n');
}

/** run_qualitative_review: the branch against the ticket and the plan; a verdict as JSON, nothing else changed. */
export function qualitativeReviewText(input: StationInput, repository: string): string {
  return [
    `Ticket ${input.ticket_key}: review the changes on this branch of ${repository} against the ticket and the approved plan, before a pull request is opened.`,
    'Look at `git diff` against the base and at the files it touches. Do not change any file except the output file.',
    '',
    ...ticketSection(input.ticket_key, ticketBriefOf(input)),
    '',
    ...planSections(input, repository),
    '',
    `Write \`${QUALITATIVE_REVIEW_FILE}\` as JSON: {"verdict": "passed" | "changes_needed", "findings": [{"file": "...", "problem": "...", "suggestion": "..."}]}.`,
    'Say changes_needed only for real defects (a step of the plan not done, what the ticket asks not met, a bug, a broken or missing test), never for style.',
  ].join('\n');
}

/** local_review when a takeover definition uses it: the branch against this repository's steps of the plan. */
export function takeoverLocalReviewText(input: StationInput, repository: string): string {
  return [
    `Ticket ${input.ticket_key}: review the changes on this branch of ${repository} against the approved plan below, before a pull request is opened.`,
    'Look at `git diff` against the base and at the files it touches. Do not change any file except the output file.',
    '',
    ...planSections(input, repository),
    '',
    'Write `.service/local_review.json` as JSON: {"verdict": "passed" | "changes_needed", "findings": [{"file": "...", "problem": "...", "suggestion": "..."}]}.',
    'Say changes_needed only for real defects (a step not done, a bug, a broken test), never for style.',
  ].join('\n');
}

/** update_documentation when a takeover definition uses it. */
export function takeoverDocumentationText(input: StationInput, repository: string): string {
  return [
    `Ticket ${input.ticket_key}: the approved plan below was carried out on this branch of ${repository}.`,
    'Update the documentation the change affects (README, docs/, comments of public functions), and nothing else. If no documentation needs a change, change nothing.',
    '',
    ...planSections(input, repository),
    '',
    'Write `.service/documentation.md`: what you updated, or why nothing needed it.',
  ].join('\n');
}
