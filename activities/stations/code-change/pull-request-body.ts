import { z } from 'zod';
import type { StationInput } from '../../../workflows/runtime/station-types';
import type { WorkflowKind } from '../../../workflows/ledger/observation';
import { FIX_PLAN_ARTIFACT, TAKEOVER_PLAN_ARTIFACT, analysisOf, qualitativeReviewOf } from '../bug/flow-data';
import { releaseNoteLines, releaseNoteOf, rootCauseLines } from '../bug/release-note';
import { planStepsOfRepository } from '../plan-steps';
import { trustedArtifactText } from '../station-input';
import { tasksOfRepository } from './implementation-task-text';

/**
 * A pull request's body is the service's: it owns the structure (the review warning, the tasks, a bug's root cause and
 * release note, the footer) and the model fills only its parts (summary, changes, how it was checked). Every sync after
 * a CI fix or a review change renders the whole body again from the same inputs, so no section the README promises can
 * be lost by a model that rewrote the text (issue 43). Pure.
 */
export interface DescriptionParts {
  /** One or two sentences: what the change does and why. */
  summary: string;
  /** The notable changes, in Markdown. */
  changes: string;
  /** The tests and checks that were run, or that none were. */
  checks: string;
}

export const descriptionPartsSchema = z.object({
  summary: z.string().min(1).describe('One or two sentences: what the change does and why (the ticket\'s goal)'),
  changes: z.string().describe('The notable changes as Markdown bullets, grouped by area in plain words'),
  checks: z.string().describe('How it was checked: the tests and checks that were run; say plainly when nothing was run'),
});

/** Invisible on GitHub and GitLab; they mark the model's part, so a sync hands the model its own text back. */
const PARTS_START = '<!-- service:description -->';
const PARTS_END = '<!-- /service:description -->';
const CHANGES_HEADING = '## Changes';
const CHECKS_HEADING = '## How it was checked';
const FOOTER = /\n*---\n_Opened by the service for [^_]+\._\s*$/;

/** The plan artifact a bug or takeover works from; a feature works from its task draft instead. */
const PLAN_ARTIFACT: Partial<Record<WorkflowKind, string>> = { bug: FIX_PLAN_ARTIFACT, task_takeover: TAKEOVER_PLAN_ARTIFACT };

/**
 * What the pull request of `repository` is for, one Markdown bullet each: the feature's draft tasks of that
 * repository, or the steps of the bug's fix plan or the takeover's plan tagged with it.
 */
export function pullRequestTaskLines(input: StationInput, repository: string): string[] {
  const artifactName = PLAN_ARTIFACT[input.workflow_kind];
  if (!artifactName) return tasksOfRepository(input, repository).map((task) => `- ${task.summary}: ${task.description}`);
  const artifact = input.artifacts[artifactName];
  return artifact ? planStepsOfRepository(trustedArtifactText(artifact).text, repository).map((step) => `- ${step}`) : [];
}

/**
 * A takeover's qualitative review runs at most two rounds; when it still asked for changes, the graph opens the pull
 * request all the same, and the reviewer must see that first. Undefined when the last review of this repository passed.
 */
export function qualitativeReviewWarning(input: StationInput, repository: string): string | undefined {
  if (input.workflow_kind !== 'task_takeover') return undefined;
  const review = qualitativeReviewOf(input);
  if (review?.verdict !== 'changes_needed' || review.repository?.toLowerCase() !== repository.toLowerCase()) return undefined;
  // One line per finding: a line break in the model's text would end the quote and hide the rest of the warning.
  const flat = (text: string) => text.trim().replace(/\s*\n\s*/g, ' ');
  const findings = (review.findings ?? []).map((f, i) => `> ${i + 1}. ${f.file ? `\`${flat(f.file)}\`: ` : ''}${flat(f.problem ?? '')}${f.suggestion ? ` (suggestion: ${flat(f.suggestion)})` : ''}`);
  return [
    '> ⚠️ **The qualitative review still asked for changes after two rounds.** The service opened this pull request anyway: check these findings before you approve it.',
    ...(findings.length ? ['>', ...findings] : []),
  ].join('\n');
}

/** A model's text with the markers taken out: a part that carried one would split the next sync's reading. */
function cleanPart(text: string): string {
  return text.split(PARTS_START).join('').split(PARTS_END).join('').trim();
}

function partsSection(parts: DescriptionParts): string {
  const lines = [cleanPart(parts.summary)];
  if (cleanPart(parts.changes)) lines.push(`${CHANGES_HEADING}\n\n${cleanPart(parts.changes)}`);
  if (cleanPart(parts.checks)) lines.push(`${CHECKS_HEADING}\n\n${cleanPart(parts.checks)}`);
  return `${PARTS_START}\n${lines.filter(Boolean).join('\n\n')}\n${PARTS_END}`;
}

/**
 * The whole body: the takeover's review warning when there is one, the model's parts, the tasks, a bug's root cause
 * and release note (from the analysis and the fix plan, never from the model), and the footer.
 */
export function pullRequestBody(input: StationInput, repository: string, parts: DescriptionParts): string {
  const sections: string[] = [];
  const warning = qualitativeReviewWarning(input, repository);
  if (warning) sections.push(warning);
  sections.push(partsSection(parts));
  const tasks = pullRequestTaskLines(input, repository);
  if (tasks.length) sections.push(['## Tasks', '', ...tasks].join('\n'));
  if (input.workflow_kind === 'bug') {
    const rca = analysisOf(input)?.rca;
    if (rca) sections.push(['## Root cause', '', ...rootCauseLines(rca)].join('\n'));
    const note = releaseNoteOf(input);
    const lines = note ? releaseNoteLines(note) : [];
    if (lines.length) sections.push(['## Release note', '', ...lines].join('\n'));
  }
  return `${sections.join('\n\n')}\n\n---\n_Opened by the service for ${input.ticket_key}._`;
}

/**
 * The model's parts of a body the service wrote. A body without the markers (opened by an older build, or edited by a
 * person who removed them) gives its text without the footer as the summary: the model then rewrites it into parts.
 */
export function descriptionPartsOf(body: string): DescriptionParts {
  const start = body.indexOf(PARTS_START);
  const end = start < 0 ? -1 : body.indexOf(PARTS_END, start);
  if (start < 0 || end < 0) return { summary: body.replace(FOOTER, '').trim(), changes: '', checks: '' };
  const inner = body.slice(start + PARTS_START.length, end);
  const checksAt = inner.indexOf(`\n${CHECKS_HEADING}\n`);
  const beforeChecks = checksAt < 0 ? inner : inner.slice(0, checksAt);
  const changesAt = beforeChecks.indexOf(`\n${CHANGES_HEADING}\n`);
  return {
    summary: (changesAt < 0 ? beforeChecks : beforeChecks.slice(0, changesAt)).trim(),
    changes: changesAt < 0 ? '' : beforeChecks.slice(changesAt + CHANGES_HEADING.length + 2).trim(),
    checks: checksAt < 0 ? '' : inner.slice(checksAt + CHECKS_HEADING.length + 2).trim(),
  };
}

/** The parts as the model reads them back in a sync prompt. */
export function describeParts(parts: DescriptionParts): string {
  return [
    '### Summary', parts.summary || '(empty)',
    '', '### Changes', parts.changes || '(empty)',
    '', '### How it was checked', parts.checks || '(empty)',
  ].join('\n');
}
