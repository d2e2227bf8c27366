import { describe, expect, it } from 'vitest';
import { describeModelConfiguration, formatTarget, parseModelConfiguration, parseTarget } from '../../../src/config/model-configuration';
import { CONTAINER_KEYS, MODEL_POLICY_KEYS, questionKey, requiresTools, revisionKey, TOOL_FREE_KEYS } from '../../../src/config/model-policy-keys';

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
const only = (connection: Record<string, unknown>) => ({
  MODEL_CONNECTIONS: JSON.stringify({ x: { backend: 'anthropic', allowed_models: ['m'], capabilities: ['tools'], ...connection } }),
  MODEL_DEFAULT: JSON.stringify({ connection: 'x', model: 'm' }),
});

describe('policy keys', () => {
  it('are exactly the 27 keys of SPEC 2.10, four of them tool-free', () => {
    expect(MODEL_POLICY_KEYS).toHaveLength(27);
    expect(new Set(MODEL_POLICY_KEYS).size).toBe(27);
    expect([...TOOL_FREE_KEYS].sort()).toEqual(['automated_review_triage', 'generate_pr_description', 'proposal_review_triage', 'sync_pr_description']);
    expect(MODEL_POLICY_KEYS.filter(requiresTools)).toHaveLength(23);
    expect(CONTAINER_KEYS.every((key) => MODEL_POLICY_KEYS.includes(key))).toBe(true);
  });

  it.each([
    ['prd', 'generate_prd', 'answer_question'],
    ['spec', 'generate_spec', 'answer_question'],
    ['plan', 'decompose_epics', 'answer_question'],
    ['tasks', 'generate_tasks', 'answer_question'],
    ['bug_triage', 'bug_triage', 'answer_question'],
    ['rca', 'analyze_bug', 'answer_question'],
    ['bug_fix_plan', 'plan_bug_fix', 'answer_question'],
    ['takeover_triage', 'task_takeover_triage', 'task_takeover_question'],
    ['takeover_plan', 'task_takeover_planning', 'task_takeover_question'],
    ['takeover_review', 'task_takeover_review', 'task_takeover_question'],
  ] as const)('a revision of %s reuses %s; a question about it resolves %s', (artifact, revision, question) => {
    expect(revisionKey(artifact)).toBe(revision);
    expect(questionKey(artifact)).toBe(question);
  });
});

describe('parseTarget', () => {
  it.each([
    ['vertex:gemini-2.5-pro', 'vertex:gemini-2.5-pro'],
    [' local : llama3:70b ', 'local:llama3:70b'],
    [{ connection: 'claude', model: 'claude-sonnet-4' }, 'claude:claude-sonnet-4'],
    ['no-colon', undefined],
    [':model', undefined],
    ['conn:', undefined],
    ['bad name:model', undefined],
    [{ connection: 'claude' }, undefined],
    [42, undefined],
  ])('%j -> %s', (raw, expected) => {
    const target = parseTarget(raw);
    expect(target && formatTarget(target)).toBe(expected);
  });
});

describe('parseModelConfiguration', () => {
  it('accepts named connections with a deployment default and stage mapping', () => {
    const result = parseModelConfiguration(env({ MODEL_POLICY: JSON.stringify({ code_review: { connection: 'claude', model: 'claude-sonnet-4' }, sync_pr_description: { connection: 'plain', model: 'small' } }) }));
    expect(result.problems).toEqual([]);
    expect(result.config).toMatchObject({
      mode: 'connections',
      default: { connection: 'vertex', model: 'gemini-2.5-pro' },
      policy: { code_review: { connection: 'claude', model: 'claude-sonnet-4' }, sync_pr_description: { connection: 'plain', model: 'small' } },
    });
    expect(result.config?.connections.vertex).toMatchObject({ max_output_tokens: 65536, legacy: false });
    expect(result.config?.connections.claude?.max_output_tokens).toBe(8192);
    expect(result.config?.legacy).toBeUndefined();
  });

  it.each([
    ['"*" is not a policy key', { MODEL_POLICY: JSON.stringify({ '*': { connection: 'vertex', model: 'gemini-2.5-pro' } }) }, 'MODEL_POLICY.*: unknown policy key (there is no "*" key: use MODEL_DEFAULT)'],
    ['a misspelt key', { MODEL_POLICY: JSON.stringify({ generate_prdd: { connection: 'vertex', model: 'gemini-2.5-pro' } }) }, 'MODEL_POLICY.generate_prdd: unknown policy key'],
    ['a stage mapped to a connection without tools', { MODEL_POLICY: JSON.stringify({ generate_prd: { connection: 'plain', model: 'small' } }) }, 'MODEL_POLICY.generate_prd: stage generate_prd needs a connection with the "tools" capability; "plain" has structured_output'],
    ['a stage mapping in the project-property form', { MODEL_POLICY: JSON.stringify({ ci_fix: 'vertex:gemini-2.5-pro' }) }, 'MODEL_POLICY.ci_fix: expected {"connection": "...", "model": "..."}'],
    ['a default outside the allowlist', { MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gpt-9' }) }, 'MODEL_DEFAULT: model "gpt-9" is not allowed on connection "vertex" (allowed: gemini-2.5-pro, gemini-2.5-flash)'],
    ['a default on an unknown connection', { MODEL_DEFAULT: JSON.stringify({ connection: 'nope', model: 'x' }) }, 'MODEL_DEFAULT: connection "nope" is not defined (defined: vertex, claude, plain)'],
    ['a default without tools', { MODEL_DEFAULT: JSON.stringify({ connection: 'plain', model: 'small' }) }, 'MODEL_DEFAULT: connection "plain" lacks the "tools" capability, which 23 stages without a MODEL_POLICY entry need'],
    ['a default that is not JSON', { MODEL_DEFAULT: 'vertex:gemini-2.5-pro' }, 'MODEL_DEFAULT: not valid JSON'],
    ['no default and no legacy fallback', { MODEL_DEFAULT: '' }, 'MODEL_DEFAULT is required with MODEL_CONNECTIONS'],
    ['anthropic without its key', { ANTHROPIC_API_KEY: '' }, 'MODEL_CONNECTIONS.claude: backend anthropic needs ANTHROPIC_API_KEY in the environment'],
    ['Vertex without credentials', { GOOGLE_APPLICATION_CREDENTIALS: ' ' }, 'MODEL_CONNECTIONS.vertex: backend cloud-ai needs GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_VERTEX_API_KEY'],
    ['Vertex without a location', { MODEL_CONNECTIONS: JSON.stringify({ ...connections, vertex: { ...connections.vertex, location: undefined } }) }, 'MODEL_CONNECTIONS.vertex: backend cloud-ai needs "location"'],
    ['an OpenAI-compatible connection without an address', { MODEL_CONNECTIONS: JSON.stringify({ ...connections, plain: { ...connections.plain, base_url: undefined } }) }, 'MODEL_CONNECTIONS.plain: backend openai-compatible needs "base_url" in the connection or OPENAI_BASE_URL'],
    ['a credential inside a connection', only({ api_key: 'sk-123' }), 'MODEL_CONNECTIONS.x.api_key: connections hold no credentials; the anthropic backend reads its native environment variables'],
    ['an unknown connection field', only({ region: 'eu' }), 'MODEL_CONNECTIONS.x.region: unknown field'],
    ['max_output_tokens above 131072', only({ max_output_tokens: 131073 }), 'MODEL_CONNECTIONS.x.max_output_tokens: expected a whole number from 1 to 131072, got 131073'],
    ['a fractional max_output_tokens', only({ max_output_tokens: 10.5 }), 'MODEL_CONNECTIONS.x.max_output_tokens: expected a whole number'],
    ['an unknown capability', only({ capabilities: ['tools', 'vision'] }), 'MODEL_CONNECTIONS.x.capabilities: expected an array of structured_output, tools'],
    ['an empty allowlist', only({ allowed_models: [] }), 'MODEL_CONNECTIONS.x.allowed_models: expected a non-empty array of model names'],
    ['an unknown backend', only({ backend: 'watson' }), 'MODEL_CONNECTIONS.x.backend: expected one of openai-compatible, anthropic, cloud-ai, got "watson"'],
    ['a connection name with a colon', { MODEL_CONNECTIONS: JSON.stringify({ 'a:b': connections.claude }) }, 'MODEL_CONNECTIONS.a:b: a connection name may hold only'],
    ['MODEL_CONNECTIONS that is not JSON', { MODEL_CONNECTIONS: '{not json' }, 'MODEL_CONNECTIONS: not valid JSON'],
    ['MODEL_CONNECTIONS that is empty', { MODEL_CONNECTIONS: '{}' }, 'MODEL_CONNECTIONS: expected a JSON object with at least one connection'],
  ])('reports %s as one clear line', (_name, extra, line) => {
    const result = parseModelConfiguration(env(extra as Record<string, string>));
    expect(result.config).toBeUndefined();
    expect(result.problems.filter((p) => p.startsWith(line))).toHaveLength(1);
    expect(result.problems.every((p) => !p.includes('\n'))).toBe(true);
  });

  it('reports every problem at once, one line each, without echoing values of credential fields', () => {
    const result = parseModelConfiguration({
      MODEL_CONNECTIONS: JSON.stringify({ a: { backend: 'anthropic', allowed_models: ['m'], token: 'sk-secret-value' }, b: { backend: 'nope', allowed_models: ['m'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'a', model: 'm' }),
      MODEL_POLICY: JSON.stringify({ bogus: { connection: 'a', model: 'm' } }),
    });
    expect(result.problems.map((p) => p.split(':')[0])).toEqual(['MODEL_CONNECTIONS.a.token', 'MODEL_CONNECTIONS.b.backend', 'MODEL_POLICY.bogus']);
    expect(result.problems.join('\n')).not.toContain('sk-secret-value');
  });

  it('legacy mode: LLM_BACKEND and LLM_MODEL are required together', () => {
    expect(parseModelConfiguration({ LLM_MODEL: 'gemini' }).problems).toEqual(['LLM_BACKEND and LLM_MODEL are required together (LLM_BACKEND is missing)']);
    expect(parseModelConfiguration({ LLM_BACKEND: 'anthropic', ANTHROPIC_API_KEY: 'k' }).problems).toEqual(['LLM_BACKEND and LLM_MODEL are required together (LLM_MODEL is missing)']);
    expect(parseModelConfiguration({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'm' }).problems).toEqual(['LLM_BACKEND=anthropic: backend anthropic needs ANTHROPIC_API_KEY in the environment']);
    expect(parseModelConfiguration({ CONTAINER_LLM_MODEL: 'm' }).problems).toEqual(['CONTAINER_LLM_MODEL is set but LLM_BACKEND and LLM_MODEL are not']);
    expect(parseModelConfiguration({ MODEL_DEFAULT: '{"connection":"a","model":"b"}', LLM_BACKEND: 'anthropic', LLM_MODEL: 'm', ANTHROPIC_API_KEY: 'k' }).problems)
      .toEqual(['MODEL_DEFAULT is set but MODEL_CONNECTIONS is not: define the connection it names']);
  });

  it('legacy mode: one host model and a container model, on a connection project policy cannot see', () => {
    const legacy = parseModelConfiguration({ LLM_BACKEND: 'cloud-ai', LLM_MODEL: 'gemini-2.5-pro', CONTAINER_LLM_MODEL: 'gemini-2.5-flash', GOOGLE_VERTEX_API_KEY: 'k', GOOGLE_VERTEX_PROJECT: 'p', GOOGLE_VERTEX_LOCATION: 'us-central1' });
    expect(legacy.problems).toEqual([]);
    expect(legacy.config).toMatchObject({
      mode: 'legacy',
      connections: {},
      legacy: { target: { connection: 'legacy', model: 'gemini-2.5-pro' }, container_target: { connection: 'legacy', model: 'gemini-2.5-flash' }, connection: { backend: 'cloud-ai', project: 'p', location: 'us-central1', allowed_models: ['gemini-2.5-pro', 'gemini-2.5-flash'] } },
    });
  });

  it('with MODEL_CONNECTIONS and no MODEL_DEFAULT the legacy pair is the fallback; with MODEL_DEFAULT it is unused', () => {
    const fallback = parseModelConfiguration(env({ MODEL_DEFAULT: '', LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4' }));
    expect(fallback.problems).toEqual([]);
    expect(fallback.config).toMatchObject({ mode: 'connections', legacy: { target: { model: 'claude-sonnet-4' } } });
    expect(fallback.config?.connections.legacy).toBeUndefined();
    expect(parseModelConfiguration(env({ MODEL_DEFAULT: '', LLM_MODEL: 'm' })).problems).toEqual(['LLM_BACKEND and LLM_MODEL are required together (LLM_BACKEND is missing)']);
    const unused = parseModelConfiguration(env({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4' }));
    expect(unused.config?.legacy).toBeUndefined();
    expect(unused.warnings).toEqual(['LLM_BACKEND/LLM_MODEL/CONTAINER_LLM_MODEL are not used: MODEL_DEFAULT comes before them for every stage']);
  });

  it('with nothing configured warns and leaves AI stages to fail closed', () => {
    const none = parseModelConfiguration({});
    expect(none).toMatchObject({ problems: [], config: { mode: 'none' } });
    expect(none.warnings[0]).toContain('no model is configured');
  });
});

describe('describeModelConfiguration', () => {
  it.each([
    [env(), 'models: connections vertex (cloud-ai: gemini-2.5-pro, gemini-2.5-flash); claude (anthropic: claude-sonnet-4); plain (openai-compatible: small); default vertex:gemini-2.5-pro; 0 stage mappings; project policy is read before each execution'],
    [env({ MODEL_DEFAULT: '', LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4' }), 'default legacy anthropic claude-sonnet-4 (no MODEL_DEFAULT)'],
    [{ LLM_BACKEND: 'anthropic', LLM_MODEL: 'a', CONTAINER_LLM_MODEL: 'b', ANTHROPIC_API_KEY: 'k' }, 'models: legacy anthropic a (container b); project policy is not read'],
    [{}, 'models: none configured (AI stages fail closed)'],
  ])('summarises %j for the startup log', (variables, expected) => {
    const config = parseModelConfiguration(variables).config!;
    expect(describeModelConfiguration(config)).toContain(expected);
  });
});
