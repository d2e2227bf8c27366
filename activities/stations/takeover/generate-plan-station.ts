import { z } from 'zod';
import { composePrompt, referencesSection, ticketSections } from '../../../src/planning-context/planning-prompt';
import { artifactPostIntents } from '../../../workflows/effects/artifact-posting';
import { clip } from '../../../workflows/person-commands/drafts';
import type { StationActivity } from '../../../workflows/runtime/station-types';
import { planGateHelp, planStepSchema, planStepsMarkdown, repositoryMissing, untagged, withoutHeadings } from '../bug/plan-bug-fix-station';
import { TAKEOVER_PLAN_ARTIFACT, type TakeoverPlanData } from '../bug/flow-data';
import { plannedRepositories } from '../plan-repositories';
import { requestSections, sha256, toolsFor, type PlanningDeps } from '../planning/document-stations';
import { runModelStep } from '../planning/model-step';
import { readableRepositories } from '../planning/repositories';
import { readTicketMaterial } from '../planning/ticket-material';
import { parseStationInput } from '../station-input';

/**
 * generate_plan (task takeover): the plan for a standalone Task or Epic the service takes over, steps tagged with
 * their repository like a bug's fix plan (the task router walks the tagged repositories), and the checks that say
 * the work is done.
 */
const CHECK_LIMIT = 300;
const OVERVIEW_LIMIT = 2_000;

function takeoverPlanSchema(repositories: readonly string[]) {
  return z.object({
    overview: z.string().trim().min(1).describe('the approach in a few sentences'),
    steps: z.array(planStepSchema(repositories)).min(1).max(20),
    acceptance_checks: z.array(z.string().trim().min(1)).min(1).max(10).describe('testable statements that say the work is done'),
  });
}

export type TakeoverPlanAnswer = z.infer<ReturnType<typeof takeoverPlanSchema>>;

/** The plan as the artifact keeps it and the ticket shows it. Pure. */
export function takeoverPlanMarkdown(plan: TakeoverPlanAnswer, opts: { ticketKey: string; revision: number }): string {
  return [
    `## Plan for ${opts.ticketKey}${opts.revision > 1 ? ` (revision ${opts.revision})` : ''}`,
    untagged(withoutHeadings(clip(plan.overview.trim(), OVERVIEW_LIMIT))),
    '### Steps',
    planStepsMarkdown(plan.steps),
    '### Acceptance checks',
    plan.acceptance_checks.map((check) => `- ${untagged(clip(check.replace(/\s+/g, ' '), CHECK_LIMIT))}`).join('\n'),
  ].join('\n\n');
}

export function createGeneratePlanStation(deps: PlanningDeps): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const { ticket, references } = await readTicketMaterial(deps.tracker, input.ticket_key, input.project_key);
    const repositories = await readableRepositories(deps.repositories, input, ticket.labels);
    if (!repositories.length) throw repositoryMissing(input);

    const current = input.artifacts[TAKEOVER_PLAN_ARTIFACT];
    const revising = input.request?.kind === 'feedback' || input.request?.kind === 'draft_item_feedback';
    const prompt = composePrompt([
      ...ticketSections(ticket),
      { title: 'Repositories (tag every step with one of them)', body: repositories.map((r) => `- ${r}`).join('\n') },
      referencesSection(references),
      ...requestSections(input, revising && current ? { title: 'plan', text: current.text } : undefined),
    ]);
    const { object, usage, target } = await runModelStep(deps, input, {
      key: 'task_takeover_planning', skill: 'task_takeover_planning', schema: takeoverPlanSchema(repositories), prompt, tools: toolsFor(deps, repositories),
    });

    const revision = (current?.version ?? 0) + 1;
    const text = takeoverPlanMarkdown(object, { ticketKey: input.ticket_key, revision });
    const planned = plannedRepositories(text, repositories);
    const data: TakeoverPlanData = { repositories: planned.repositories, unknown_repositories: planned.unknown };
    return {
      outcome: 'generated',
      data: { ...data },
      artifacts: { [TAKEOVER_PLAN_ARTIFACT]: { text, digest: sha256(text) } },
      effects: artifactPostIntents({ issueKey: input.ticket_key, artifact: TAKEOVER_PLAN_ARTIFACT, markdown: `${text}\n\n${planGateHelp()}`, partLimit: deps.partLimit }),
      summary: `plan ${revising ? 'revised' : 'written'} (revision ${revision}): ${object.steps.length} step${object.steps.length === 1 ? '' : 's'} in ${planned.repositories.join(', ')} by ${target}`,
      usage,
    };
  };
}
