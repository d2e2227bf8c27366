import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseModelConfiguration, type ModelConfiguration } from '../../../src/config/model-configuration';
import { resolveModelTarget } from '../../../src/config/model-target-resolver';
import type { ModelPolicyKey } from '../../../src/config/model-policy-keys';
import { createModelClient, ModelCallError, type ResolvedTarget } from '../../../src/models/model-client';
import type { ModelMetrics } from '../../../src/models/model-metrics';
import { StructuredOutputError } from '../../../src/models/structured-output';
import { loadModelScript } from '../../../src/sandbox/model-simulator/model-script';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';

const fixture = (name: string) => loadModelScript(join(__dirname, '..', '..', 'fixtures', 'models', `${name}.json`));
const prdSchema = z.object({ title: z.string(), goals: z.array(z.string()).min(1) });
const API_KEY = 'sk-simulated-key-0123456789';

describe('the model client against the model simulator (OpenAI wire format)', () => {
  let simulator: ModelSimulator;
  let config: ModelConfiguration;
  let env: NodeJS.ProcessEnv;
  const calls: Array<[string, ...unknown[]]> = [];
  const metrics: ModelMetrics = {
    observeLatency: (service, seconds) => calls.push(['latency', service, seconds]),
    observeAgentDuration: (seconds) => calls.push(['agent', seconds]),
    observeUsage: (usage) => calls.push(['usage', usage]),
  };

  beforeAll(async () => {
    simulator = await startModelSimulator();
    env = {
      MODEL_CONNECTIONS: JSON.stringify({
        local: { backend: 'openai-compatible', base_url: simulator.url, allowed_models: ['sim-large'], capabilities: ['structured_output', 'tools'], max_output_tokens: 4096 },
        // No structured_output: only tool-free stages may use it, and only through the tool strategy.
        basic: { backend: 'openai-compatible', base_url: simulator.url, allowed_models: ['sim-small'], capabilities: [] },
      }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'local', model: 'sim-large' }),
      OPENAI_API_KEY: API_KEY,
    };
    const parsed = parseModelConfiguration(env);
    if (!parsed.config) throw new Error(parsed.problems.join('\n'));
    config = parsed.config;
  });
  afterAll(async () => simulator?.close());
  beforeEach(() => {
    simulator.reset();
    calls.length = 0;
  });

  function resolved(key: ModelPolicyKey, projectPolicy: Record<string, string> = {}): ResolvedTarget {
    const resolution = resolveModelTarget(config, key, { policy: projectPolicy });
    if (!resolution.ok) throw new Error(resolution.report);
    return resolution;
  }
  const client = () => createModelClient({ env, metrics });
  const generatePrd = () => client().generateStructured({ resolved: resolved('generate_prd'), schema: prdSchema, system: 'You write PRDs.', prompt: 'Write the PRD for CSV export.' });

  it('uses native structured output when the model answers valid JSON', async () => {
    simulator.script(...fixture('prd-native'));
    const result = await generatePrd();
    expect(result).toMatchObject({
      strategy: 'native', object: { title: 'CSV export', goals: ['finance can export invoices'] },
      usage: { inputTokens: 120, outputTokens: 30 }, target: 'local:sim-large', source: 'deployment_default',
    });
    expect(result.fallbackReason).toBeUndefined();
    expect(simulator.received).toHaveLength(1);
    const request = simulator.received[0]!;
    expect(request.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.body).toMatchObject({ model: 'sim-large', max_tokens: 4096, response_format: { type: 'json_schema', json_schema: { schema: { required: ['title', 'goals'] } } } });
    expect(request.body.messages?.[0]).toEqual({ role: 'system', content: 'You write PRDs.' });
    expect(calls.map((c) => c[0])).toEqual(['latency', 'usage', 'agent']);
    expect(calls[0]![1]).toBe('llm');
    expect(calls[1]![1]).toEqual({ inputTokens: 120, outputTokens: 30, target: 'local:sim-large' });
  });

  it.each([
    ['malformed JSON', 'prd-malformed-json-then-tool', { title: 'CSV export', goals: ['a', 'b'] }, { inputTokens: 260, outputTokens: 33 }],
    ['a schema mismatch', 'prd-schema-mismatch-then-tool', { title: 'CSV export', goals: ['g'] }, { inputTokens: 260, outputTokens: 30 }],
    ['an endpoint that refuses the response format', 'prd-unsupported-then-tool', { title: 'CSV export', goals: ['g'] }, { inputTokens: 140, outputTokens: 20 }],
  ])('falls back to the tool-based schema strategy on %s', async (_case, name, object, usage) => {
    simulator.script(...fixture(name));
    const result = await generatePrd();
    expect(result).toMatchObject({ strategy: 'tool', object, usage });
    expect(result.fallbackReason).toBeTruthy();
    expect(result.attempts.map((a) => [a.strategy, a.ok])).toEqual([['native', false], ['tool', true]]);
    expect(simulator.requests).toHaveLength(2);
    const retry = simulator.requests[1]!;
    expect(retry.response_format).toBeUndefined();
    expect(retry.tools).toHaveLength(1);
    expect(retry.tools?.[0]?.function).toMatchObject({ name: 'respond', parameters: { required: ['title', 'goals'] } });
    expect(retry.tool_choice).toEqual({ type: 'function', function: { name: 'respond' } });
    // One latency observation per provider request, one agent duration per invocation.
    expect(calls.filter((c) => c[0] === 'latency')).toHaveLength(2);
    expect(calls.filter((c) => c[0] === 'agent')).toHaveLength(1);
  });

  it('fails with a typed error naming both attempts when neither strategy yields a valid object', async () => {
    simulator.script(...fixture('prd-both-strategies-fail'));
    const error = await generatePrd().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect((error as StructuredOutputError).attempts.map((a) => [a.strategy, a.ok])).toEqual([['native', false], ['tool', false]]);
    expect((error as StructuredOutputError).message).toContain('no valid structured output from local:sim-large');
    expect(calls.filter((c) => c[0] === 'agent')).toHaveLength(1);
  });

  it.each([
    [401, 'invalid api key', false],
    [429, 'rate limited', true],
    [503, 'overloaded', true],
  ])('does not retry with the tool strategy when the native request fails with HTTP %i', async (status, message, retryable) => {
    simulator.script({ status, message }, { tool_call: { name: 'respond', arguments: '{"title": "t", "goals": ["g"]}' } });
    const error = await generatePrd().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ retryable, target: 'local:sim-large', message: expect.stringContaining(`model call to local:sim-large failed (HTTP ${status}): ${message}`) });
    expect(simulator.requests).toHaveLength(1);
    expect(calls.filter((c) => c[0] === 'agent')).toHaveLength(1);
  });

  it('goes straight to the tool strategy on a connection without structured_output', async () => {
    simulator.script({ tool_call: { name: 'respond', arguments: JSON.stringify({ summary: 'Adds CSV export' }) } });
    const result = await client().generateStructured({
      resolved: resolved('generate_pr_description', { generate_pr_description: 'basic:sim-small' }),
      schema: z.object({ summary: z.string() }),
      prompt: 'Describe the pull request.',
    });
    expect(result).toMatchObject({ strategy: 'tool', object: { summary: 'Adds CSV export' }, target: 'basic:sim-small', source: 'project_policy' });
    expect(result.fallbackReason).toBe('the connection does not declare structured_output');
    expect(simulator.requests).toHaveLength(1);
    expect(simulator.requests[0]).toMatchObject({ model: 'sim-small', max_tokens: 8192 });
  });

  it('takes a conversation instead of a single prompt (a revision with feedback)', async () => {
    simulator.script(...fixture('prd-native'));
    await client().generateStructured({
      resolved: resolved('generate_prd'),
      schema: prdSchema,
      prompt: [
        { role: 'user', content: 'Write the PRD for CSV export.' },
        { role: 'assistant', content: '{"title": "CSV", "goals": ["x"]}' },
        { role: 'user', content: '! The title must say "CSV export".' },
      ],
    });
    expect(simulator.requests[0]!.messages?.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('a cancelled call is not retried with the fallback strategy', async () => {
    simulator.script({ content: '{"title": "late", "goals": ["g"]}', delay_ms: 2000 }, { tool_call: { name: 'respond', arguments: '{}' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await client().generateStructured({ resolved: resolved('generate_prd'), schema: prdSchema, prompt: 'x', abortSignal: controller.signal }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(StructuredOutputError);
    expect((error as Error).name).toMatch(/Abort/);
    expect(simulator.requests).toHaveLength(1);
    expect(simulator.pending()).toBe(1); // the tool-strategy reply was never asked for
  });

  it('generates text, and reports an empty answer or a provider error as a ModelCallError without the key', async () => {
    simulator.script({ content: 'This pull request adds CSV export.', usage: { prompt_tokens: 50, completion_tokens: 9 } });
    expect(await client().generateText({ resolved: resolved('sync_pr_description'), prompt: 'Describe it.' })).toMatchObject({
      text: 'This pull request adds CSV export.', usage: { inputTokens: 50, outputTokens: 9 }, target: 'local:sim-large',
    });
    simulator.script({ content: '   ' });
    await expect(client().generateText({ resolved: resolved('sync_pr_description'), prompt: 'Describe it.' })).rejects.toThrow(/local:sim-large answered with no text/);
    simulator.script({ status: 401, message: `invalid api key ${API_KEY}` });
    const error = await client().generateText({ resolved: resolved('sync_pr_description'), prompt: 'Describe it.' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toContain('model call to local:sim-large failed');
    expect((error as Error).message).not.toContain(API_KEY);
    expect(calls.filter((c) => c[0] === 'agent')).toHaveLength(3);
  });
});
