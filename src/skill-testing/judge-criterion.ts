import { z } from 'zod';
import type { ModelClient, ResolvedTarget } from '../models/model-client';
import type { TokenUsage } from '../models/model-metrics';
import type { Skill } from '../skill-loading/load-skill';
import type { Tracing } from '../tracing/start-tracing';
import type { EvalCriterion } from './eval-criteria';
import type { Score } from './grade';

/** What the judge answers for one criterion (structured output). */
export const judgmentSchema = z.object({
  score: z.number().int().min(0).max(2).describe('0 not met, 1 partly met, 2 fully met'),
  reasoning: z.string().min(1).describe('why, naming what is present and what is missing'),
  quotes: z.array(z.string()).describe('passages copied word for word from the generated document'),
});

export interface Judgment {
  score: Score;
  reasoning: string;
  quotes: string[];
  usage: TokenUsage;
  latencySeconds: number;
}

/** A document the judge reads, with the name it is shown under. */
export interface NamedText {
  name: string;
  text: string;
}

export function judgePrompt(criterion: EvalCriterion, gold: NamedText, generated: readonly NamedText[]): string {
  return [
    `## Criterion: ${criterion.name} (${criterion.id}, ${criterion.weight})\n\n${criterion.prompt.trim()}`,
    `## Gold standard (${gold.name})\n\n${gold.text.trim()}`,
    ...generated.map((doc) => `## Generated document (${doc.name})\n\n${doc.text.trim()}`),
  ].join('\n\n');
}

/** One criterion judged by the judge model, through structured output (native, or the tool fallback). */
export async function judgeCriterion(input: {
  client: ModelClient;
  target: ResolvedTarget;
  judge: Skill;
  criterion: EvalCriterion;
  gold: NamedText;
  generated: readonly NamedText[];
  tracing?: Tracing;
}): Promise<Judgment> {
  const result = await input.client.generateStructured({
    resolved: input.target,
    system: input.judge.body,
    prompt: judgePrompt(input.criterion, input.gold, input.generated),
    schema: judgmentSchema,
    ...(input.tracing ? { telemetry: input.tracing.telemetry(`test-skill-eval:${input.criterion.id}`) } : {}),
  });
  return {
    score: result.object.score as Score,
    reasoning: result.object.reasoning,
    quotes: result.object.quotes,
    usage: result.usage,
    latencySeconds: result.latencySeconds,
  };
}
