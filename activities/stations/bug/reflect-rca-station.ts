import { z } from 'zod';
import { composePrompt, ticketSections } from '../../../src/planning-context/planning-prompt';
import { artifactPostIntents } from '../../../workflows/effects/artifact-posting';
import { clip } from '../../../workflows/person-commands/drafts';
import type { StationActivity } from '../../../workflows/runtime/station-types';
import { sha256, toolsFor, type PlanningDeps } from '../planning/document-stations';
import { runModelStep } from '../planning/model-step';
import { readTicketMaterial } from '../planning/ticket-material';
import { stationFailure } from '../station-failure';
import { parseStationInput } from '../station-input';
import { analysisOf, RCA_ARTIFACT, reflectionOf, type ReflectionData } from './flow-data';
import { rcaCommentMarkdown } from './rca-comment';

/** Critique rounds before the analysis goes on as it stands (REFERENCE "Bug analysis": up to 3). */
export const REFLECTION_ROUNDS = 3;
/** Station outputs keep strings up to 2,000 characters; the critique stays under that whole. */
const CRITIQUE_LIMIT = 1_800;

const reflectionSchema = z.object({
  verdict: z.enum(['VALID', 'CRITIQUE']),
  critique: z.string().describe('empty when VALID; otherwise what is wrong or unproven and what to check'),
});

/**
 * The round logic of ReflectionData: a critique sends the analysis back in rounds 1 and 2; in round 3 it goes on,
 * marked as not converged. Pure.
 */
export function reflectionStep(previous: ReflectionData | undefined, verdict: 'valid' | 'critique', critique: string | null, optionCount: number): { outcome: 'done' | 'critique'; data: ReflectionData } {
  const round = previous?.sent_back ? previous.round + 1 : 1;
  if (verdict === 'critique' && round < REFLECTION_ROUNDS) {
    return { outcome: 'critique', data: { verdict, critique, round, sent_back: true, converged: false, option_count: 0 } };
  }
  return { outcome: 'done', data: { verdict, critique, round, sent_back: false, converged: verdict === 'valid', option_count: optionCount } };
}

/**
 * reflect_rca: a second look at the analysis analyze_bug wrote. A critique goes back to the analysis (no comment);
 * a valid analysis, or the last round's, is posted with its fix options for rca_option_gate.
 */
export function createReflectRcaStation(deps: PlanningDeps): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const analysis = analysisOf(input);
    if (!analysis?.rca) {
      throw stationFailure({
        code: 'analysis_missing',
        message: 'reflect_rca found no root-cause analysis from analyze_bug in the workflow\'s outputs',
        recovery: 'add service:retry to run the analysis again',
      });
    }
    const previous = reflectionOf(input);
    const { ticket } = await readTicketMaterial(deps.tracker, input.ticket_key, input.project_key);
    const earlier = previous?.sent_back && previous.critique ? previous.critique : undefined;
    const prompt = composePrompt([
      ...ticketSections(ticket),
      { title: `Root-cause analysis (made in ${analysis.repository})`, body: JSON.stringify(analysis.rca, null, 2) },
      ...(earlier ? [{ title: 'Your critique of the previous analysis (check whether it was answered)', body: earlier }] : []),
    ]);
    const repositories = [analysis.repository, ...(analysis.other_repositories ?? [])].filter(Boolean);
    const { object, usage, target } = await runModelStep(deps, input, { key: 'reflect_rca', skill: 'reflect_rca', schema: reflectionSchema, prompt, tools: toolsFor(deps, repositories) });

    const verdict = object.verdict === 'VALID' ? 'valid' : 'critique';
    const critique = verdict === 'critique' ? clip(object.critique.trim() || '(the reviewer gave no details)', CRITIQUE_LIMIT) : null;
    const step = reflectionStep(previous, verdict, critique, analysis.rca.options.length);
    const round = `round ${step.data.round} of ${REFLECTION_ROUNDS}`;
    if (step.outcome === 'critique') {
      return { outcome: 'critique', data: { ...step.data }, summary: `RCA sent back for another look (${round}) by ${target}`, usage };
    }

    const revision = (input.artifacts[RCA_ARTIFACT]?.version ?? 0) + 1;
    const text = rcaCommentMarkdown(analysis.rca, { ticketKey: input.ticket_key, converged: step.data.converged, critique, revision });
    return {
      outcome: 'done',
      data: { ...step.data },
      artifacts: { [RCA_ARTIFACT]: { text, digest: sha256(text) } },
      effects: artifactPostIntents({ issueKey: input.ticket_key, artifact: RCA_ARTIFACT, markdown: text, partLimit: deps.partLimit }),
      summary: `RCA ${step.data.converged ? 'found valid' : 'still critiqued, posted as it stands'} (${round}) with ${analysis.rca.options.length} fix option${analysis.rca.options.length === 1 ? '' : 's'} by ${target}`,
      usage,
    };
  };
}
