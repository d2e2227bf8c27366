import { z } from 'zod';
import { composePrompt, referencesSection, ticketSections, type PromptSection } from '../../../src/planning-context/planning-prompt';
import { artifactPostIntents } from '../../../workflows/effects/artifact-posting';
import { clip } from '../../../workflows/person-commands/drafts';
import type { StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { plannedRepositories } from '../plan-repositories';
import { requestSections, sha256, toolsFor, type PlanningDeps } from '../planning/document-stations';
import { runModelStep } from '../planning/model-step';
import { readableRepositories } from '../planning/repositories';
import { readTicketMaterial } from '../planning/ticket-material';
import { stationFailure } from '../station-failure';
import { parseStationInput, trustedArtifactText } from '../station-input';
import { analysisOf, FIX_PLAN_ARTIFACT, fixPlanOf, RCA_ARTIFACT, reflectionOf, type FixPlanData } from './flow-data';
import { fixOptionMarkdown, rootCauseMarkdown } from './rca-comment';

/**
 * plan_bug_fix: the fix plan for the option a person chose at rca_option_gate, one step per change, each tagged with
 * the repository it is made in (`repo: owner/name`): decompose_plan creates one Task per tagged repository.
 */

const STEP_LIMIT = 4_000;
const NOTE_LIMIT = 1_000;
const SUMMARY_LIMIT = 200;

/** Model answers are bounded on the host (clip), not in the schema: an answer a little too long is not worth a retry. */
const text = () => z.string().trim().min(1);

/** A step's repository: one of the known ones when the project has any (the model cannot invent one). */
export function repositoryField(repositories: readonly string[]) {
  return repositories.length ? z.enum(repositories as [string, ...string[]]) : z.string().trim().min(1);
}

export function planStepSchema(repositories: readonly string[]) {
  return z.object({ repo: repositoryField(repositories), summary: text(), description: text() });
}

export type PlanStep = { repo: string; summary: string; description: string };

/**
 * `repo:` in the model's prose would read as one more tag to whoever counts the plan's repositories; only the step
 * lines the host writes carry tags.
 */
export function untagged(prose: string): string {
  return prose.replace(/\brepo:/gi, 'repository:');
}

/**
 * The model's headings become bold lines: a step is one section under its tagged heading, and a heading inside its
 * description would end that section for whoever splits the plan by repository (bug-task-text, plan-steps).
 */
export function withoutHeadings(markdown: string): string {
  let fence = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? null : /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    return heading ? `**${heading[1]}**` : line;
  }).join('\n');
}

/**
 * The steps, each a section under a heading that carries its summary and its repository tag: the tagged line is what
 * plan-steps quotes as the step, the section is what a repository's task gets. Pure.
 */
export function planStepsMarkdown(steps: readonly PlanStep[]): string {
  return steps.map((step, i) => [
    `#### Step ${i + 1}: ${untagged(clip(step.summary.replace(/\s+/g, ' '), SUMMARY_LIMIT))} (repo: \`${step.repo}\`)`,
    '',
    untagged(withoutHeadings(clip(step.description.trim(), STEP_LIMIT))),
  ].join('\n')).join('\n\n');
}

/** The end of a posted plan: how to answer at the plan approval gate. */
export function planGateHelp(): string {
  return [
    '---',
    'Approve with the label `service:plan-approved` or a comment `/service approve`. Reply `! <feedback>` to have it revised,',
    '`? <question>` to ask about it, or add `service:retry` to have it written again.',
  ].join('\n');
}

export function repositoryMissing(input: StationInput) {
  return stationFailure({
    code: 'repository_missing',
    message: `${input.station} found no configured repository of project ${input.project_key} to plan the changes in`,
    recovery: `configure the project's repositories (the project property service.repos, e.g. with \`service project-setup\`), then add service:retry`,
  });
}

/** `>option N` chose; a `!` or retry at the plan gate keeps the option planned before; yolo approved option 1. */
export function chosenOption(input: Pick<StationInput, 'request' | 'outputs'>): number {
  if (input.request?.kind === 'option_selected' && input.request.option) return input.request.option;
  return fixPlanOf(input)?.option ?? 1;
}

const releaseNoteSchema = z.object({ component: text(), fix: text(), root_cause: text(), impact: text() });

function fixPlanSchema(repositories: readonly string[]) {
  return z.object({
    steps: z.array(planStepSchema(repositories)).min(1).max(20),
    release_note: releaseNoteSchema,
    testing: z.string().trim().min(1).describe('how the fix is tested: the regression test and what else to check'),
  });
}

export type FixPlanAnswer = z.infer<ReturnType<typeof fixPlanSchema>>;

/** The release note kept in the outputs for post_merge_summary: one line each, bounded. */
export function boundedReleaseNote(note: FixPlanAnswer['release_note']): FixPlanData['release_note'] {
  const line = (value: string, limit: number) => clip(untagged(value.replace(/\s+/g, ' ').trim()), limit);
  return { component: line(note.component, 300), fix: line(note.fix, NOTE_LIMIT), root_cause: line(note.root_cause, NOTE_LIMIT), impact: line(note.impact, NOTE_LIMIT) };
}

/** The fix plan as the artifact keeps it and the ticket shows it. Pure. */
export function fixPlanMarkdown(plan: FixPlanAnswer, opts: { ticketKey: string; option: number; optionTitle?: string; revision: number }): string {
  const note = boundedReleaseNote(plan.release_note);
  return [
    `## Fix plan for ${opts.ticketKey}${opts.revision > 1 ? ` (revision ${opts.revision})` : ''}`,
    opts.optionTitle ? `**Fix option ${opts.option}:** ${untagged(opts.optionTitle)}` : `**Fix option:** ${opts.option}`,
    '### Steps',
    planStepsMarkdown(plan.steps),
    '### Testing',
    untagged(withoutHeadings(clip(plan.testing.trim(), STEP_LIMIT))),
    '### Release note',
    [
      `- **Component:** ${note.component}`,
      `- **Fix:** ${note.fix}`,
      `- **Root cause:** ${note.root_cause}`,
      `- **Impact:** ${note.impact}`,
    ].join('\n'),
  ].join('\n\n');
}

/** The analysis the option was chosen from: the structured RCA when the outputs still hold it, else the RCA comment. */
function rcaSections(input: StationInput, option: number): { sections: PromptSection[]; optionCount: number | undefined; optionTitle?: string } {
  const rca = analysisOf(input)?.rca;
  if (rca) {
    const chosen = rca.options[option - 1];
    return {
      sections: [
        { title: 'Root-cause analysis', body: rootCauseMarkdown(rca) },
        ...(chosen ? [{ title: 'The chosen fix option (plan this one)', body: fixOptionMarkdown(chosen, option) }] : []),
        { title: 'The other fix options (not chosen)', body: rca.options.map((o, i) => (i + 1 === option ? '' : fixOptionMarkdown(o, i + 1))).filter(Boolean).join('\n\n') },
      ],
      optionCount: rca.options.length,
      optionTitle: chosen?.title,
    };
  }
  const record = input.artifacts[RCA_ARTIFACT];
  if (!record) return { sections: [], optionCount: undefined };
  const { text, approved } = trustedArtifactText(record);
  const count = reflectionOf(input)?.option_count;
  return {
    sections: [
      { title: `Root-cause analysis${approved ? ' (approved)' : ''}`, body: text },
      { title: 'The chosen fix option', body: `Option ${option} of the analysis above: plan that one.` },
    ],
    optionCount: count && count > 0 ? count : undefined,
  };
}

export function createPlanBugFixStation(deps: PlanningDeps): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const option = chosenOption(input);
    const rca = rcaSections(input, option);
    if (!rca.sections.length) {
      throw stationFailure({ code: 'analysis_missing', message: 'plan_bug_fix found no root-cause analysis to plan from', recovery: 'add service:retry to run the analysis again' });
    }
    if (rca.optionCount !== undefined && (option < 1 || option > rca.optionCount)) {
      throw stationFailure({
        code: 'option_out_of_range',
        message: `option ${option} was chosen but the root-cause analysis offers ${rca.optionCount} option${rca.optionCount === 1 ? '' : 's'}`,
        recovery: `comment \`>option N\` with N from 1 to ${rca.optionCount} on the ticket's analysis, or add service:retry to redo it`,
      });
    }
    const { ticket, references } = await readTicketMaterial(deps.tracker, input.ticket_key, input.project_key);
    const repositories = await readableRepositories(deps.repositories, input, ticket.labels);
    if (!repositories.length) throw repositoryMissing(input);

    const analysis = analysisOf(input);
    const current = input.artifacts[FIX_PLAN_ARTIFACT];
    const request = input.request;
    const prompt = composePrompt([
      ...ticketSections(ticket),
      ...rca.sections,
      {
        title: 'Repositories (tag every step with one of them)',
        body: [...repositories.map((r) => `- ${r}`), ...(analysis?.repository ? ['', `The analysis was made in ${analysis.repository}.`] : [])].join('\n'),
      },
      referencesSection(references),
      ...(request?.kind === 'option_selected' && request.text.trim() ? [{ title: `Comment of ${request.author ?? 'the person'} choosing the option`, body: request.text }] : []),
      ...(request?.kind === 'option_selected' ? [] : requestSections(input, request?.kind === 'feedback' && current ? { title: 'fix plan', text: current.text } : undefined)),
    ]);
    const { object, usage, target } = await runModelStep(deps, input, { key: 'plan_bug_fix', skill: 'plan_bug_fix', schema: fixPlanSchema(repositories), prompt, tools: toolsFor(deps, repositories) });

    const revision = (current?.version ?? 0) + 1;
    const text = fixPlanMarkdown(object, { ticketKey: input.ticket_key, option, optionTitle: rca.optionTitle, revision });
    const planned = plannedRepositories(text, repositories);
    const data: FixPlanData = { option, repositories: planned.repositories, unknown_repositories: planned.unknown, release_note: boundedReleaseNote(object.release_note) };
    return {
      outcome: 'planned',
      data: { ...data },
      artifacts: { [FIX_PLAN_ARTIFACT]: { text, digest: sha256(text) } },
      effects: artifactPostIntents({ issueKey: input.ticket_key, artifact: FIX_PLAN_ARTIFACT, markdown: `${text}\n\n${planGateHelp()}`, partLimit: deps.partLimit }),
      summary: `fix plan for option ${option} (revision ${revision}): ${object.steps.length} step${object.steps.length === 1 ? '' : 's'} in ${planned.repositories.join(', ')} by ${target}`,
      usage,
    };
  };
}
