import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseModelConfiguration } from '../../../src/config/model-configuration';
import { resolveModelTarget } from '../../../src/config/model-target-resolver';
import { createLanguageModel } from '../../../src/models/language-model-factory';
import { generateStructured, StructuredOutputError } from '../../../src/models/structured-output';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';

const prdSchema = z.object({ title: z.string(), goals: z.array(z.string()).min(1) });

describe('the model client against the model simulator (OpenAI wire format)', () => {
  let simulator: ModelSimulator;
  let model: ReturnType<typeof createLanguageModel>;
  const latencies: number[] = [];

  beforeAll(async () => {
    simulator = await startModelSimulator();
    const env = {
      MODEL_CONNECTIONS: JSON.stringify({ local: { backend: 'openai-compatible', base_url: simulator.url, allowed_models: ['sim-large'], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'local', model: 'sim-large' }),
    };
    const config = parseModelConfiguration(env).config!;
    const resolution = resolveModelTarget(config, 'generate_prd');
    if (!resolution.ok) throw new Error(resolution.report);
    model = createLanguageModel(resolution.connection, resolution.target.model, env);
  });
  afterAll(async () => simulator?.close());
  beforeEach(() => {
    simulator.requests.length = 0;
    latencies.length = 0;
  });

  const run = () => generateStructured({ model, schema: prdSchema, system: 'You write PRDs.', prompt: 'Write the PRD for CSV export.', metrics: { observeLatency: (s) => latencies.push(s) } });

  it('uses native structured output when the model answers valid JSON', async () => {
    simulator.script({ content: JSON.stringify({ title: 'CSV export', goals: ['finance can export invoices'] }) });
    const result = await run();
    expect(result).toMatchObject({ strategy: 'native', object: { title: 'CSV export', goals: ['finance can export invoices'] } });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(simulator.requests).toHaveLength(1);
    expect(simulator.requests[0]).toMatchObject({ model: 'sim-large', response_format: { type: 'json_schema' } });
    expect(latencies).toHaveLength(1);
  });

  it('falls back to a tool-based schema strategy when the native answer is not valid', async () => {
    simulator.script(
      { content: '{"title": "CSV export", "goals": ' },
      { tool_call: { name: 'respond', arguments: JSON.stringify({ title: 'CSV export', goals: ['a', 'b'] }) } },
    );
    const result = await run();
    expect(result).toMatchObject({ strategy: 'tool', object: { title: 'CSV export', goals: ['a', 'b'] } });
    expect(result.fallbackReason).toBeTruthy();
    expect(simulator.requests).toHaveLength(2);
    expect(simulator.requests[1]!.tools?.[0]?.function.name).toBe('respond');
    expect(simulator.requests[1]!.tool_choice).toEqual({ type: 'function', function: { name: 'respond' } });
    expect(latencies).toHaveLength(2);
  });

  it('falls back on a schema mismatch and on a provider error too', async () => {
    simulator.script({ content: JSON.stringify({ title: 'x', goals: [] }) }, { tool_call: { name: 'respond', arguments: JSON.stringify({ title: 'x', goals: ['g'] }) } });
    expect((await run()).strategy).toBe('tool');
    simulator.script({ status: 400, message: 'response_format json_schema is not supported' }, { tool_call: { name: 'respond', arguments: JSON.stringify({ title: 'y', goals: ['g'] }) } });
    expect(await run()).toMatchObject({ strategy: 'tool', object: { title: 'y' } });
  });

  it('fails with a typed error naming both attempts when neither strategy yields a valid object', async () => {
    simulator.script({ content: 'not json at all' }, { tool_call: { name: 'respond', arguments: JSON.stringify({ title: 3 }) } });
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect((error as StructuredOutputError).attempts.map((a) => a.strategy)).toEqual(['native', 'tool']);
  });
});
