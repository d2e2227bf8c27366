import { z } from 'zod';
import { composePrompt, referencesSection, ticketSections } from '../../../src/planning-context/planning-prompt';
import type { StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { parseStationInput } from '../station-input';
import { artifactSections, toolsFor, type PlanningDeps } from './document-stations';
import { readableRepositories } from './repositories';
import { runModelStep } from './model-step';
import { readTicketMaterial } from './ticket-material';

const ARTIFACT_TITLES: Record<string, string> = { prd: 'PRD', spec: 'technical specification', plan: 'epic plan', tasks: 'tasks' };
const answerSchema = z.object({ answer: z.string().trim().min(1) });

/** The artifact the question is about: the one the definition names (`params.artifact`), else the newest. */
function artifactAsked(input: StationInput): string | undefined {
  const named = input.params?.artifact;
  if (typeof named === 'string' && input.artifacts[named]) return named;
  return Object.entries(input.artifacts).sort(([, a], [, b]) => b.updated_at.localeCompare(a.updated_at))[0]?.[0];
}

function quote(text: string): string {
  return text.trim().split(/\r?\n/).map((line) => `> ${line}`).join('\n');
}

/**
 * answer_question (`?` or `@service ask` at a gate): answers from the artifact shown at the gate and the ticket, as
 * one comment. It never regenerates the artifact and changes no label; the workflow returns to the gate.
 */
export function createAnswerQuestionStation(deps: PlanningDeps): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const question = input.request?.kind === 'question' ? input.request : undefined;
    if (!question?.text.trim()) throw new Error('answer_question needs a question request');
    const artifact = artifactAsked(input);
    const title = artifact ? ARTIFACT_TITLES[artifact] ?? artifact : undefined;
    const { ticket, references } = await readTicketMaterial(deps.tracker, input.ticket_key, input.project_key);
    const prompt = composePrompt([
      ...ticketSections(ticket),
      ...(artifact ? artifactSections(input, { [artifact]: title! }) : []),
      referencesSection(references),
      { title: `Question from ${question.author ?? 'a reader'}`, body: question.text },
    ]);
    const tools = toolsFor(deps, await readableRepositories(deps.repositories, input, ticket.labels));
    const { object, usage, target } = await runModelStep(deps, input, { key: 'answer_question', skill: 'answer_question', schema: answerSchema, prompt, tools });
    const body = [
      `💬 **Answer**${question.author ? ` to ${question.author}` : ''}:`,
      '',
      quote(question.text),
      '',
      object.answer,
      '',
      `_The ${title ?? 'artifact'} is unchanged; reply \`! <feedback>\` to have it revised._`,
    ].join('\n');
    return {
      outcome: 'answered',
      data: { artifact: artifact ?? null },
      effects: [{ name: 'post_answer', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body }, required: true }],
      summary: `question about the ${title ?? 'ticket'} answered by ${target}`,
      usage,
    };
  };
}
