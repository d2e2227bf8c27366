import { describe, expect, it } from 'vitest';
import { parseModelConfiguration, type ModelConfiguration } from '../../../src/config/model-configuration';
import { MODEL_POLICY_KEYS, questionKey, revisionKey, TOOL_FREE_KEYS } from '../../../src/config/model-policy-keys';
import { availableModelsReport, loadProjectModelPolicy, resolveModelTarget } from '../../../src/config/model-target-resolver';

const connections = {
  vertex: { backend: 'cloud-ai', project: 'acme-ai', location: 'europe-west4', allowed_models: ['gemini-2.5-pro', 'gemini-2.5-flash'], capabilities: ['structured_output', 'tools'], max_output_tokens: 65536 },
  claude: { backend: 'anthropic', allowed_models: ['claude-sonnet-4'], capabilities: ['structured_output', 'tools'] },
  plain: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1', allowed_models: ['small'], capabilities: ['structured_output'] },
};
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  MODEL_CONNECTIONS: JSON.stringify(connections),
  MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gemini-2.5-pro' }),
  GOOGLE_APPLICATION_CREDENTIALS: '/etc/sa.json',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  ...extra,
});

function configured(extra: Record<string, string> = {}): ModelConfiguration {
  const result = parseModelConfiguration(env(extra));
  if (!result.config) throw new Error(result.problems.join('\n'));
  return result.config;
}

describe('parseModelConfiguration', () => {
  it('knows exactly the 27 policy keys and the four tool-free ones', () => {
    expect(MODEL_POLICY_KEYS).toHaveLength(27);
    expect(new Set(MODEL_POLICY_KEYS).size).toBe(27);
    expect([...TOOL_FREE_KEYS].sort()).toEqual(['automated_review_triage', 'generate_pr_description', 'proposal_review_triage', 'sync_pr_description']);
  });

  it('accepts a valid configuration', () => {
    const config = configured({ MODEL_POLICY: JSON.stringify({ code_review: { connection: 'claude', model: 'claude-sonnet-4' } }) });
    expect(config.mode).toBe('connections');
    expect(config.policy.code_review).toEqual({ connection: 'claude', model: 'claude-sonnet-4' });
  });

  it.each([
    [{ MODEL_POLICY: JSON.stringify({ '*': { connection: 'vertex', model: 'gemini-2.5-pro' } }) }, 'MODEL_POLICY.*: unknown policy key'],
    [{ MODEL_POLICY: JSON.stringify({ generate_prd: { connection: 'plain', model: 'small' } }) }, 'MODEL_POLICY.generate_prd: stage generate_prd needs a connection with the "tools" capability'],
    [{ MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gpt-9' }) }, 'MODEL_DEFAULT: model "gpt-9" is not allowed on connection "vertex" (allowed: gemini-2.5-pro, gemini-2.5-flash)'],
    [{ MODEL_DEFAULT: JSON.stringify({ connection: 'nope', model: 'x' }) }, 'MODEL_DEFAULT: connection "nope" is not defined (defined: vertex, claude, plain)'],
    [{ MODEL_DEFAULT: JSON.stringify({ connection: 'plain', model: 'small' }) }, 'MODEL_DEFAULT: connection "plain" lacks the "tools" capability'],
    [{ ANTHROPIC_API_KEY: '' }, 'MODEL_CONNECTIONS.claude: backend anthropic needs ANTHROPIC_API_KEY'],
    [{ GOOGLE_APPLICATION_CREDENTIALS: '' }, 'MODEL_CONNECTIONS.vertex: backend cloud-ai needs GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_VERTEX_API_KEY'],
    [{ MODEL_CONNECTIONS: JSON.stringify({ x: { backend: 'anthropic', allowed_models: ['m'], capabilities: ['tools'], api_key: 'sk' } }), MODEL_DEFAULT: JSON.stringify({ connection: 'x', model: 'm' }) }, 'MODEL_CONNECTIONS.x.api_key: connections hold no credentials'],
    [{ MODEL_CONNECTIONS: JSON.stringify({ x: { backend: 'anthropic', allowed_models: ['m'], capabilities: ['tools'], max_output_tokens: 200000 } }), MODEL_DEFAULT: JSON.stringify({ connection: 'x', model: 'm' }) }, 'MODEL_CONNECTIONS.x.max_output_tokens: expected a whole number from 1 to 131072'],
    [{ MODEL_CONNECTIONS: JSON.stringify({ x: { backend: 'watson', allowed_models: ['m'] } }), MODEL_DEFAULT: JSON.stringify({ connection: 'x', model: 'm' }) }, 'MODEL_CONNECTIONS.x.backend: expected one of openai-compatible, anthropic, cloud-ai'],
    [{ MODEL_CONNECTIONS: '{not json' }, 'MODEL_CONNECTIONS: not valid JSON'],
    [{ MODEL_DEFAULT: '' }, 'MODEL_DEFAULT is required with MODEL_CONNECTIONS'],
  ])('reports %j as one clear line', (extra, line) => {
    const result = parseModelConfiguration(env(extra as Record<string, string>));
    expect(result.config).toBeUndefined();
    expect(result.problems.some((p) => p.startsWith(line))).toBe(true);
  });

  it('requires LLM_BACKEND and LLM_MODEL together in legacy mode, and warns when nothing is configured', () => {
    expect(parseModelConfiguration({ LLM_MODEL: 'gemini' }).problems).toEqual(['LLM_BACKEND and LLM_MODEL are required together when MODEL_CONNECTIONS and MODEL_DEFAULT are absent']);
    const none = parseModelConfiguration({});
    expect(none.config?.mode).toBe('none');
    expect(none.warnings[0]).toContain('no model is configured');
    const legacy = parseModelConfiguration({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4', CONTAINER_LLM_MODEL: 'claude-haiku', ANTHROPIC_API_KEY: 'k' });
    expect(legacy.config?.legacy).toEqual({ target: { connection: 'legacy', model: 'claude-sonnet-4' }, container_target: { connection: 'legacy', model: 'claude-haiku' } });
  });
});

describe('resolveModelTarget', () => {
  const config = configured({ MODEL_POLICY: JSON.stringify({ code_review: { connection: 'claude', model: 'claude-sonnet-4' }, generate_pr_description: { connection: 'plain', model: 'small' } }) });

  it.each([
    // [key, project policy, project default, expected target, expected source]
    ['generate_prd', { generate_prd: 'claude:claude-sonnet-4' }, 'vertex:gemini-2.5-flash', 'claude:claude-sonnet-4', 'project_policy'],
    ['generate_prd', { code_review: 'claude:claude-sonnet-4' }, 'vertex:gemini-2.5-flash', 'vertex:gemini-2.5-flash', 'project_default'],
    ['code_review', undefined, undefined, 'claude:claude-sonnet-4', 'deployment_policy'],
    ['ci_fix', undefined, undefined, 'vertex:gemini-2.5-pro', 'deployment_default'],
    ['sync_pr_description', { sync_pr_description: 'plain:small' }, undefined, 'plain:small', 'project_policy'],
    ['generate_pr_description', undefined, { connection: 'vertex', model: 'gemini-2.5-flash' }, 'vertex:gemini-2.5-flash', 'project_default'],
  ])('%s resolves in order', (key, policy, fallback, target, source) => {
    const resolution = resolveModelTarget(config, key as never, { policy, default: fallback });
    expect(resolution.ok && `${resolution.target.connection}:${resolution.target.model}`).toBe(target);
    expect(resolution.source).toBe(source);
  });

  it('fails closed when the chosen target is invalid, with the available models in the report', () => {
    const weak = resolveModelTarget(config, 'implement_work', { policy: { implement_work: 'plain:small' } });
    expect(weak).toMatchObject({ ok: false, source: 'project_policy', problem: expect.stringContaining('needs a connection with the "tools" capability') });
    expect(weak.ok ? '' : weak.report).toContain('- vertex (cloud-ai; structured_output, tools): gemini-2.5-pro, gemini-2.5-flash');
    expect(resolveModelTarget(config, 'ci_fix', { policy: { ci_fx: 'vertex:gemini-2.5-pro' } })).toMatchObject({ ok: false, problem: 'service.model_policy has unknown keys: ci_fx' });
    expect(resolveModelTarget(config, 'ci_fix', { default: 'vertex:gpt-9' })).toMatchObject({ ok: false, source: 'project_default' });
    expect(resolveModelTarget(config, 'ci_fix', { default: 'no-colon' })).toMatchObject({ ok: false, problem: expect.stringContaining('is not a "connection:model" target') });
  });

  it('never exposes the legacy connection to project policy and uses the container model for implementation', () => {
    const legacy = parseModelConfiguration({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4', CONTAINER_LLM_MODEL: 'claude-haiku', ANTHROPIC_API_KEY: 'k' }).config!;
    expect(resolveModelTarget(legacy, 'generate_prd', { policy: { generate_prd: 'legacy:claude-sonnet-4' } })).toMatchObject({ ok: true, source: 'legacy' });
    expect(resolveModelTarget(legacy, 'implement_work')).toMatchObject({ ok: true, target: { model: 'claude-haiku' } });
    expect(availableModelsReport(legacy)).toContain('legacy single-model mode');
  });

  it('maps questions and revisions to their keys', () => {
    expect([questionKey('prd'), questionKey('takeover_plan'), revisionKey('spec'), revisionKey('plan')]).toEqual(['answer_question', 'task_takeover_question', 'generate_spec', 'decompose_epics']);
  });

  it('reads the project policy only with MODEL_CONNECTIONS', async () => {
    const reads: string[] = [];
    const properties = { getProjectProperty: async (_project: string, key: string) => { reads.push(key); return undefined; } };
    await loadProjectModelPolicy(config, properties, 'PROJ');
    expect(reads).toEqual(['service.model_policy', 'service.model_default']);
    reads.length = 0;
    await loadProjectModelPolicy(parseModelConfiguration({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'm', ANTHROPIC_API_KEY: 'k' }).config!, properties, 'PROJ');
    expect(reads).toEqual([]);
  });
});
