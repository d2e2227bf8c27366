import type { DraftItem } from '../../../workflows/person-commands/drafts';
import { trustedArtifactText } from '../station-input';
import type { StationInput } from '../../../workflows/runtime/station-types';
import { currentDraft } from '../planning/draft-schema';

/**
 * What the agent is told at implement_task, local_review and update_documentation: the approved spec, the tasks of
 * the repository it works in, and what the last local review found. Pure, so the wording is unit-tested.
 */

const SPEC_CHARS = 12_000;

export function tasksOfRepository(input: StationInput, repository: string): DraftItem[] {
  const draft = currentDraft(input, 'generate_tasks', 'tasks');
  return (draft?.items ?? []).filter((item) => !item.excluded && item.repo?.toLowerCase() === repository.toLowerCase());
}

function approvedText(input: StationInput, name: string): string | undefined {
  const artifact = input.artifacts[name];
  if (!artifact) return undefined;
  const { text } = trustedArtifactText(artifact);
  return text.length > SPEC_CHARS ? `${text.slice(0, SPEC_CHARS)}\n\n(truncated)` : text;
}

function taskList(tasks: DraftItem[]): string {
  if (tasks.length === 0) return '(no task of the plan names this repository: implement what the specification asks of it)';
  return tasks.map((task) => [
    `### Task ${task.id}: ${task.summary}`,
    task.description.trim(),
    ...(task.acceptance_criteria.length ? ['Acceptance criteria:', ...task.acceptance_criteria.map((c) => `- ${c}`)] : []),
  ].join('\n')).join('\n\n');
}

export interface LocalReviewFinding { file?: string; problem: string; suggestion?: string }

/**
 * The findings of the last local review that sent the work back (`outputs.local_review`), as a list for the agent.
 * Only a review of this repository counts: the output outlives the repository it was written for, and the next
 * repository's first implementation must not be told to fix another repository's findings.
 */
export function localReviewFindings(input: StationInput, repository: string): string | undefined {
  const review = input.outputs.local_review as { verdict?: string; repository?: string; findings?: LocalReviewFinding[] } | undefined;
  const ours = review?.repository?.toLowerCase() === repository.toLowerCase();
  const findings = ours && review?.verdict === 'changes_needed' ? review.findings ?? [] : [];
  if (findings.length === 0) return undefined;
  return findings.map((f, i) => `${i + 1}. ${f.file ? `\`${f.file}\`: ` : ''}${f.problem ?? ''}${f.suggestion ? ` (suggestion: ${f.suggestion})` : ''}`).join('\n');
}

export function implementTaskText(input: StationInput, repository: string): string {
  const findings = localReviewFindings(input, repository);
  return [
    `Ticket ${input.ticket_key}: implement the tasks below in the repository ${repository}.`,
    '',
    '## Tasks',
    taskList(tasksOfRepository(input, repository)),
    ...(findings ? ['', '## The local review asked for these changes (do them first)', findings] : []),
    ...(approvedText(input, 'spec') ? ['', '## The approved specification', approvedText(input, 'spec')!] : []),
    '',
    'Write `.service/implementation.md`: what you changed, file by file, and how you checked it.',
  ].join('\n');
}

export function localReviewText(input: StationInput, repository: string): string {
  return [
    `Ticket ${input.ticket_key}: review the changes on this branch of ${repository} against the tasks below, before a pull request is opened.`,
    'Look at `git diff` against the base and at the files it touches. Do not change any file except the output file.',
    '',
    '## Tasks',
    taskList(tasksOfRepository(input, repository)),
    '',
    'Write `.service/local_review.json` as JSON: {"verdict": "passed" | "changes_needed", "findings": [{"file": "...", "problem": "...", "suggestion": "..."}]}.',
    'Say changes_needed only for real defects (a task not done, a bug, a broken test), never for style.',
  ].join('\n');
}

export function updateDocumentationText(input: StationInput, repository: string): string {
  return [
    `Ticket ${input.ticket_key}: the tasks below were implemented on this branch of ${repository}.`,
    'Update the documentation the change affects (README, docs/, comments of public functions), and nothing else. If no documentation needs a change, change nothing.',
    '',
    '## Tasks',
    taskList(tasksOfRepository(input, repository)),
    '',
    'Write `.service/documentation.md`: what you updated, or why nothing needed it.',
  ].join('\n');
}
