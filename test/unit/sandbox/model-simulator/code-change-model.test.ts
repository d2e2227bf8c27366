import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatCompletionRequest } from '../../../../src/sandbox/model-simulator/model-simulator';
import { CODE_CHANGE_RELEASE_NOTE, codeChangeResponder, QUALITATIVE_FINDING, type CodeChangeModelPlan } from '../../../helpers/code-change-model';

/** The knobs the bug and takeover flow tests turn on the delivery world's model (test/helpers/code-change-model.ts). */
const plan = (extra: Partial<CodeChangeModelPlan> = {}): CodeChangeModelPlan => ({ repositories: ['acme/api', 'acme/web'], agentOutputs: {}, codeChange: () => undefined, ...extra });
const structured = (schema: z.ZodType, prompt: string): ChatCompletionRequest => ({
  messages: [{ role: 'user', content: prompt }], response_format: { type: 'json_schema', json_schema: { schema: z.toJSONSchema(schema) } },
});
const json = (reply: unknown) => JSON.parse((reply as { content: string }).content);
const agent = (task: string): ChatCompletionRequest => ({ tools: ['read_file', 'write_file'].map((name) => ({ type: 'function', function: { name } })), messages: [{ role: 'user', content: task }] });

const reflection = z.object({ verdict: z.enum(['VALID', 'CRITIQUE']), critique: z.string() });
const triage = z.object({ items: z.array(z.object({ item: z.string(), present: z.boolean(), note: z.string() })) });
const checklist = '## Checklist (answer for every item, by its id)\n\n- `steps_to_reproduce`: Steps to reproduce: x\n- `environment`: Environment: y';

describe('the delivery world\'s model', () => {
  it('gives the scripted reflection verdicts in order, then VALID', () => {
    const respond = codeChangeResponder(plan({ reflections: ['CRITIQUE: the log does not show the stream closing'] }));
    expect(json(respond(structured(reflection, 'RCA')))).toEqual({ verdict: 'CRITIQUE', critique: 'the log does not show the stream closing' });
    expect(json(respond(structured(reflection, 'RCA')))).toEqual({ verdict: 'VALID', critique: '' });
  });

  it('asks for steps unless the report gives them, or as a test says', () => {
    const missing = (respond: ReturnType<typeof codeChangeResponder>, description: string) =>
      json(respond(structured(triage, `## Description\n\n${description}\n\n${checklist}`))).items.filter((i: { present: boolean }) => !i.present).map((i: { item: string }) => i.item);
    expect(missing(codeChangeResponder(plan()), 'It crashes.')).toEqual(['steps_to_reproduce']);
    expect(missing(codeChangeResponder(plan()), '1. open\n2. save')).toEqual([]);
    expect(missing(codeChangeResponder(plan({ triageMissing: () => ['environment'] })), '1. open')).toEqual(['environment']);
  });

  it('plans one step per repository with the release note', () => {
    const schema = z.object({
      steps: z.array(z.object({ repo: z.enum(['acme/api', 'acme/web']), summary: z.string(), description: z.string() })),
      release_note: z.object({ component: z.string(), fix: z.string(), root_cause: z.string(), impact: z.string() }),
      testing: z.string(),
    });
    const answer = json(codeChangeResponder(plan())(structured(schema, 'plan')));
    expect(answer.steps.map((s: { repo: string }) => s.repo)).toEqual(['acme/api', 'acme/web']);
    expect(answer.release_note).toEqual(CODE_CHANGE_RELEASE_NOTE);
  });

  it('writes the scripted qualitative review verdicts in order, then passed, and holds an agent when asked', () => {
    const respond = codeChangeResponder(plan({ qualitativeReviews: ['changes_needed'], agentDelayMs: (task) => (task.includes('hold') ? 5_000 : undefined) }));
    const review = (task: string) => {
      const reply = respond(agent(`${task}\n\nWrite these files: .service/qualitative_review.json.`)) as { tool_calls: Array<{ arguments: string }>; delay_ms?: number };
      return { file: JSON.parse(JSON.parse(reply.tool_calls[0]!.arguments).content), delay: reply.delay_ms };
    };
    expect(review('Review. Do not change any file except the output file.')).toEqual({ file: { verdict: 'changes_needed', findings: [QUALITATIVE_FINDING] }, delay: undefined });
    expect(review('Review, hold. Do not change any file except the output file.')).toEqual({ file: { verdict: 'passed', findings: [] }, delay: 5_000 });
  });
});
