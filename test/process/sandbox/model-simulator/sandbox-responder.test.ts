import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateStructured } from '../../../../src/models/structured-output';
import { startModelSimulator, type ModelSimulator } from '../../../../src/sandbox/model-simulator/model-simulator';
import { sampleFromSchema } from '../../../../src/sandbox/model-simulator/sample-from-schema';
import { SIMULATED_TEXT, sandboxResponder } from '../../../../src/sandbox/model-simulator/sandbox-responder';

// Shapes a planning station might ask for: nesting, bounds, enums, unions, nullables, recursion through $ref.
const task = z.object({
  id: z.number().int().min(1),
  title: z.string().min(80).max(120),
  kind: z.enum(['code', 'docs']),
  estimate: z.number().gt(0).lte(8).optional(),
  owner: z.string().email().nullable(),
});
type Node = { name: string; children: Node[] };
const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string().min(1), children: z.array(node) }));
const plan = z.object({
  summary: z.string().min(1),
  tasks: z.array(task).min(2).max(5),
  risk: z.union([z.literal('low'), z.object({ level: z.literal('high'), why: z.string() })]),
  tags: z.array(z.string()).length(1),
  done: z.boolean(),
  tree: node,
  created: z.iso.datetime(),
});

describe('sampleFromSchema', () => {
  it('makes a value every schema above accepts, with the fewest items and the required fields only', () => {
    const value = sampleFromSchema(z.toJSONSchema(plan));
    const parsed = plan.parse(value);
    expect(parsed.tasks).toHaveLength(2);
    expect(parsed.tasks[0]).not.toHaveProperty('estimate');
    expect(parsed.summary).toContain('Simulated by the sandbox model');
  });
});

describe('the sandbox responder behind the model simulator, read by the real structured-output client', () => {
  let simulator: ModelSimulator;
  beforeAll(async () => {
    simulator = await startModelSimulator({ respond: sandboxResponder, firstResponseNumber: 41 });
  });
  afterAll(async () => simulator?.close());

  const model = (structured: boolean) => createOpenAICompatible({ name: 'sandbox', baseURL: simulator.url, supportsStructuredOutputs: structured }).chatModel('sandbox-model');

  it('answers a response-format request with a schema-valid document (native strategy)', async () => {
    const result = await generateStructured({ model: model(true), schema: plan, prompt: 'Plan the work.' });
    expect(result.strategy).toBe('native');
    expect(plan.safeParse(result.object).success).toBe(true);
    expect(simulator.responses()).toBe(42);
  });

  it('answers through the forced tool when the connection has no structured output (tool strategy)', async () => {
    const result = await generateStructured({ model: model(false), schema: plan, prompt: 'Plan the work.', nativeStructuredOutput: false });
    expect(result.strategy).toBe('tool');
    expect(plan.safeParse(result.object).success).toBe(true);
  });

  it('says it is simulated when no structure is asked for, and leaves optional tools alone', () => {
    expect(sandboxResponder({ messages: [{ role: 'user', content: 'hi' }] })).toEqual({ content: SIMULATED_TEXT });
    expect(sandboxResponder({ tools: [{ type: 'function', function: { name: 'read_file', parameters: {} } }], tool_choice: 'auto' })).toEqual({ content: SIMULATED_TEXT });
  });
});
