import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUG_CHECKLIST, judgeChecklist, TAKEOVER_CHECKLIST, type ChecklistItem } from '../../../../activities/stations/bug/triage-station';
import { generateStructured } from '../../../../src/models/structured-output';
import { composePrompt, ticketSections, type TicketMaterial } from '../../../../src/planning-context/planning-prompt';
import { startModelSimulator, type ModelSimulator } from '../../../../src/sandbox/model-simulator/model-simulator';
import {
  firstRepositoryOf, hasStepsToReproduce, sandboxResponder, triageChecklist, triageTicketText,
} from '../../../../src/sandbox/model-simulator/sandbox-responder';

// The shapes the bug and takeover stations ask for (activities/stations/bug/*, activities/stations/takeover/*).
const triageSchema = z.object({ items: z.array(z.object({ item: z.string(), present: z.boolean(), note: z.string() })).max(30) });
const reflectionSchema = z.object({ verdict: z.enum(['VALID', 'CRITIQUE']), critique: z.string() });
const step = (repos: [string, ...string[]]) => z.object({ repo: z.enum(repos), summary: z.string().trim().min(1), description: z.string().trim().min(1) });
const fixPlanSchema = z.object({
  steps: z.array(step(['acme/api', 'acme/web'])).min(1).max(20),
  release_note: z.object({ component: z.string().min(1), fix: z.string().min(1), root_cause: z.string().min(1), impact: z.string().min(1) }),
  testing: z.string().trim().min(1),
});
const takeoverPlanSchema = z.object({ overview: z.string().min(1), steps: z.array(step(['acme/web'])).min(1), acceptance_checks: z.array(z.string().min(1)).min(1) });

const ticket = (description: string, comments: string[] = []): TicketMaterial => ({
  key: 'SBX-7', summary: 'Crash on save', issueType: 'Bug', description, labels: [],
  comments: comments.map((body) => ({ author: 'reporter', created: '2026-11-24T10:00:00Z', body })),
});

/** The prompt as triage_check composes it: the ticket, the repositories, the reply, the checklist by id. */
function triagePrompt(material: TicketMaterial, checklist: readonly ChecklistItem[], reply?: string): string {
  return composePrompt([
    ...ticketSections(material),
    { title: 'Repositories of the project', body: '- acme/api\n- acme/web' },
    ...(reply ? [{ title: 'Latest reply from reporter', body: reply }] : []),
    { title: 'Checklist (answer for every item, by its id)', body: checklist.map((item) => `- \`${item.id}\`: ${item.label}: ${item.hint}`).join('\n') },
  ]);
}

describe('the sandbox model on the bug and takeover stations', () => {
  let simulator: ModelSimulator;
  beforeAll(async () => {
    simulator = await startModelSimulator({ respond: sandboxResponder });
  });
  afterAll(async () => simulator?.close());

  const ask = async <T>(schema: z.ZodType<T>, prompt: string, native = true) => {
    const model = createOpenAICompatible({ name: 'sandbox', baseURL: simulator.url, supportsStructuredOutputs: native }).chatModel('sandbox-model');
    return (await generateStructured({ model, schema, prompt, nativeStructuredOutput: native })).object;
  };

  it('finds the steps to reproduce missing in a report without steps, and nothing else', async () => {
    const answer = await ask(triageSchema, triagePrompt(ticket('The editor crashes when I save a large file.'), BUG_CHECKLIST));
    const missing = judgeChecklist(BUG_CHECKLIST, answer).filter((j) => !j.present).map((j) => j.item.id);
    expect(missing).toEqual(['steps_to_reproduce']);
    expect(answer.items.find((i) => i.item === 'steps_to_reproduce')!.note).toContain('steps to reproduce');
  });

  it('passes a report whose reply, comment or description gives steps (also through the tool strategy)', async () => {
    const complete = (answer: z.infer<typeof triageSchema>) => judgeChecklist(BUG_CHECKLIST, answer).every((j) => j.present);
    expect(complete(await ask(triageSchema, triagePrompt(ticket('It crashes.'), BUG_CHECKLIST, '! Steps: open a file, press save.')))).toBe(true);
    expect(complete(await ask(triageSchema, triagePrompt(ticket('It crashes.', ['1. open a file\n2. save']), BUG_CHECKLIST), false))).toBe(true);
    expect(complete(await ask(triageSchema, triagePrompt(ticket('Steps to reproduce: save twice.'), BUG_CHECKLIST)))).toBe(true);
  });

  it('answers every takeover item as present', async () => {
    const answer = await ask(triageSchema, triagePrompt(ticket('Add an export button.'), TAKEOVER_CHECKLIST));
    expect(answer.items.map((i) => [i.item, i.present])).toEqual(TAKEOVER_CHECKLIST.map((item) => [item.id, true]));
  });

  it('finds the reflected analysis valid', async () => {
    expect(await ask(reflectionSchema, 'Root-cause analysis ...')).toEqual({ verdict: 'VALID', critique: '' });
    expect(await ask(reflectionSchema, 'Root-cause analysis ...', false)).toEqual({ verdict: 'VALID', critique: '' });
  });

  it('tags the plan steps with the first repository the project has', async () => {
    const plan = await ask(fixPlanSchema, '## Repositories (tag every step with one of them)\n\n- acme/api\n- acme/web');
    expect(plan.steps.map((s) => s.repo)).toEqual(['acme/api']);
    expect(fixPlanSchema.safeParse(plan).success).toBe(true);
    const takeover = await ask(takeoverPlanSchema, '## Repositories (tag every step with one of them)\n\n- acme/web', false);
    expect(takeover.steps.map((s) => s.repo)).toEqual(['acme/web']);
  });
});

describe('reading a composed prompt', () => {
  it('reads the checklist ids and only the reporter\'s words', () => {
    const prompt = triagePrompt(ticket('It crashes.', ['see the log']), BUG_CHECKLIST, '! more');
    expect(triageChecklist(prompt)).toEqual(BUG_CHECKLIST.map((item) => item.id));
    const text = triageTicketText(prompt);
    expect(text).toContain('It crashes.');
    expect(text).toContain('see the log');
    expect(text).toContain('! more');
    // The checklist names "steps to reproduce" itself: it must not count as the reporter giving steps.
    expect(text).not.toContain('steps_to_reproduce');
    expect(hasStepsToReproduce(text)).toBe(false);
  });

  it('finds the first listed repository, with or without backticks', () => {
    expect(firstRepositoryOf('## Repositories\n\n- `acme/api`\n- acme/web')).toBe('acme/api');
    expect(firstRepositoryOf('## Description\n\n- acme/api')).toBeUndefined();
  });

  it('prefers the respond tool when read-only tools are offered beside it', () => {
    const reply = sandboxResponder({
      messages: [{ role: 'user', content: 'x' }],
      tool_choice: 'required',
      tools: [{ type: 'function', function: { name: 'list_files', parameters: {} } }, { type: 'function', function: { name: 'respond', parameters: z.toJSONSchema(reflectionSchema) } }],
    });
    expect(reply).toEqual({ tool_call: { name: 'respond', arguments: JSON.stringify({ verdict: 'VALID', critique: '' }) } });
  });
});
