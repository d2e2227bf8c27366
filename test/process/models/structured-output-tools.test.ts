import { tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseModelConfiguration } from '../../../src/config/model-configuration';
import { resolveModelTarget } from '../../../src/config/model-target-resolver';
import { createModelClient, type ResolvedTarget } from '../../../src/models/model-client';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';

/** A structured model call that may use read-only tools first (the planning stations' repository tools). */
describe('structured output with tools', () => {
  let simulator: ModelSimulator;
  let native: ResolvedTarget;
  let toolOnly: ResolvedTarget;
  const schema = z.object({ summary: z.string() });
  const lookups: string[] = [];
  const tools = {
    read_file: tool({
      description: 'Reads a file.',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        lookups.push(path);
        return `contents of ${path}`;
      },
    }),
  };

  beforeAll(async () => {
    simulator = await startModelSimulator();
    const env = {
      MODEL_CONNECTIONS: JSON.stringify({
        full: { backend: 'openai-compatible', base_url: simulator.url, allowed_models: ['m'], capabilities: ['structured_output', 'tools'] },
        tools: { backend: 'openai-compatible', base_url: simulator.url, allowed_models: ['m'], capabilities: ['tools'] },
      }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'full', model: 'm' }),
    };
    const parsed = parseModelConfiguration(env);
    if (!parsed.config) throw new Error(parsed.problems.join('\n'));
    const config = parsed.config;
    const resolve = (target: string) => {
      const resolution = resolveModelTarget(config, 'generate_prd', { policy: { generate_prd: target } });
      if (!resolution.ok) throw new Error(resolution.report);
      return resolution;
    };
    native = resolve('full:m');
    toolOnly = resolve('tools:m');
  });
  afterAll(async () => simulator?.close());
  beforeEach(() => {
    simulator.reset();
    lookups.length = 0;
  });
  const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion });

  it('runs the tools the model calls, then reads the native answer, counting every step\'s tokens', async () => {
    simulator.script(
      { tool_call: { name: 'read_file', arguments: '{"path":"src/a.ts"}' }, usage: usage(100, 10) },
      { content: '{"summary":"a.ts exports one function"}', usage: usage(150, 20) },
    );
    const result = await createModelClient().generateStructured({ resolved: native, schema, prompt: 'Summarise.', tools });
    expect(result).toMatchObject({ object: { summary: 'a.ts exports one function' }, strategy: 'native', usage: { inputTokens: 250, outputTokens: 30 } });
    expect(lookups).toEqual(['src/a.ts']);
    expect(JSON.stringify(simulator.requests[1]!.messages)).toContain('contents of src/a.ts');
  });

  it('without native structured output, lets the model use the tools and ends at its respond call', async () => {
    simulator.script(
      { tool_call: { name: 'read_file', arguments: '{"path":"README.md"}' } },
      { tool_call: { name: 'respond', arguments: '{"summary":"a readme"}' } },
    );
    const result = await createModelClient().generateStructured({ resolved: toolOnly, schema, prompt: 'Summarise.', tools });
    expect(result).toMatchObject({ object: { summary: 'a readme' }, strategy: 'tool' });
    expect(lookups).toEqual(['README.md']);
    expect(simulator.requests[0]!.tool_choice).toBe('required');
    expect(simulator.requests[0]!.tools!.map((t) => t.function.name).sort()).toEqual(['read_file', 'respond']);
    expect(simulator.pending()).toBe(0);
  });

  it('stops after maxSteps requests when the model never answers', async () => {
    simulator.script(...Array.from({ length: 3 }, () => ({ tool_call: { name: 'read_file', arguments: '{"path":"x"}' } })));
    const error = await createModelClient().generateStructured({ resolved: toolOnly, schema, prompt: 'Summarise.', tools, maxSteps: 3 }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('did not call the respond tool');
    expect(simulator.requests).toHaveLength(3);
  });
});
