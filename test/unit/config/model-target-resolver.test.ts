import { describe, expect, it } from 'vitest';
import { formatTarget, parseModelConfiguration, type ModelConfiguration } from '../../../src/config/model-configuration';
import { MODEL_POLICY_KEYS, type ModelPolicyKey } from '../../../src/config/model-policy-keys';
import { availableModelsReport, ModelPolicyError, resolveForExecution, resolveModelTarget, type ProjectModelPolicy } from '../../../src/config/model-target-resolver';

const connections = {
  vertex: { backend: 'cloud-ai', project: 'acme-ai', location: 'europe-west4', allowed_models: ['gemini-2.5-pro', 'gemini-2.5-flash'], capabilities: ['structured_output', 'tools'] },
  claude: { backend: 'anthropic', allowed_models: ['claude-sonnet-4'], capabilities: ['structured_output', 'tools'] },
  plain: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1', allowed_models: ['small'], capabilities: ['structured_output'] },
};
const credentials = { GOOGLE_APPLICATION_CREDENTIALS: '/etc/sa.json', ANTHROPIC_API_KEY: 'sk-ant-test' };

function parse(env: NodeJS.ProcessEnv): ModelConfiguration {
  const result = parseModelConfiguration({ ...credentials, ...env });
  if (!result.config) throw new Error(result.problems.join('\n'));
  return result.config;
}

const deployments = {
  // Named connections, a deployment stage mapping and a deployment default.
  full: parse({
    MODEL_CONNECTIONS: JSON.stringify(connections),
    MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gemini-2.5-pro' }),
    MODEL_POLICY: JSON.stringify({ code_review: { connection: 'claude', model: 'claude-sonnet-4' }, generate_pr_description: { connection: 'plain', model: 'small' } }),
  }),
  // Named connections without MODEL_DEFAULT: the legacy pair is the last step.
  fallback: parse({
    MODEL_CONNECTIONS: JSON.stringify(connections),
    MODEL_POLICY: JSON.stringify({ code_review: { connection: 'claude', model: 'claude-sonnet-4' } }),
    LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4', CONTAINER_LLM_MODEL: 'claude-opus-4',
  }),
  legacy: parse({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4', CONTAINER_LLM_MODEL: 'claude-opus-4' }),
  none: parse({}),
};

type Row = [string, keyof typeof deployments, ModelPolicyKey, ProjectModelPolicy, string, string];

describe('resolveModelTarget: resolution order and capability rule', () => {
  it.each<Row>([
    // description, deployment, key, project properties, expected target or "INVALID: <problem start>", source
    ['project stage override beats everything', 'full', 'code_review', { policy: { code_review: 'vertex:gemini-2.5-flash' }, default: 'claude:claude-sonnet-4' }, 'vertex:gemini-2.5-flash', 'project_policy'],
    ['project stage override also in object form', 'full', 'generate_prd', { policy: { generate_prd: { connection: 'claude', model: 'claude-sonnet-4' } } }, 'claude:claude-sonnet-4', 'project_policy'],
    ['project default beats the deployment stage mapping', 'full', 'code_review', { default: 'vertex:gemini-2.5-flash' }, 'vertex:gemini-2.5-flash', 'project_default'],
    ['an override for another stage does not apply', 'full', 'generate_prd', { policy: { code_review: 'claude:claude-sonnet-4' } }, 'vertex:gemini-2.5-pro', 'deployment_default'],
    ['deployment stage mapping beats the deployment default', 'full', 'code_review', {}, 'claude:claude-sonnet-4', 'deployment_policy'],
    ['deployment default', 'full', 'ci_fix', {}, 'vertex:gemini-2.5-pro', 'deployment_default'],
    ['legacy last: host stage', 'fallback', 'generate_spec', {}, 'legacy:claude-sonnet-4', 'legacy'],
    ['legacy last: container stage uses CONTAINER_LLM_MODEL', 'fallback', 'implement_work', {}, 'legacy:claude-opus-4', 'legacy'],
    ['legacy last, after the deployment stage mapping', 'fallback', 'code_review', {}, 'claude:claude-sonnet-4', 'deployment_policy'],
    ['legacy mode never reads project policy', 'legacy', 'generate_prd', { policy: { generate_prd: 'vertex:gemini-2.5-pro' } }, 'legacy:claude-sonnet-4', 'legacy'],
    ['legacy mode: the container model for rebase', 'legacy', 'rebase', {}, 'legacy:claude-opus-4', 'legacy'],
    ['a tool-free stage may run without tools (project policy)', 'full', 'sync_pr_description', { policy: { sync_pr_description: 'plain:small' } }, 'plain:small', 'project_policy'],
    ['a tool-free stage may run without tools (project default)', 'full', 'proposal_review_triage', { default: 'plain:small' }, 'plain:small', 'project_default'],
    ['project policy cannot weaken the capability rule', 'full', 'implement_work', { policy: { implement_work: 'plain:small' } }, 'INVALID: stage implement_work needs a connection with the "tools" capability', 'project_policy'],
    ['a project default without tools fails a tool stage; no fall-through', 'full', 'code_review', { default: 'plain:small' }, 'INVALID: stage code_review needs a connection with the "tools" capability', 'project_default'],
    ['the legacy connection is not visible to project policy', 'fallback', 'generate_prd', { policy: { generate_prd: 'legacy:claude-sonnet-4' } }, 'INVALID: connection "legacy" is not defined (defined: vertex, claude, plain)', 'project_policy'],
    ['a model outside the allowlist', 'full', 'ci_fix', { default: 'vertex:gpt-9' }, 'INVALID: model "gpt-9" is not allowed on connection "vertex"', 'project_default'],
    ['an unknown connection', 'full', 'ci_fix', { policy: { ci_fix: 'openai:gpt-5' } }, 'INVALID: connection "openai" is not defined', 'project_policy'],
    ['a target without a colon', 'full', 'ci_fix', { default: 'gemini-2.5-pro' }, 'INVALID: "gemini-2.5-pro" is not a "connection:model" target', 'project_default'],
    ['an unknown key fails every stage', 'full', 'generate_prd', { policy: { ci_fx: 'vertex:gemini-2.5-pro' } }, 'INVALID: service.model_policy has unknown keys: ci_fx', 'project_policy'],
    ['there is no "*" key', 'full', 'generate_prd', { policy: { '*': 'vertex:gemini-2.5-pro' } }, 'INVALID: service.model_policy has unknown keys: *', 'project_policy'],
    ['a policy that is not an object', 'full', 'generate_prd', { policy: ['vertex:gemini-2.5-pro'] }, 'INVALID: service.model_policy must be a JSON object', 'project_policy'],
    ['no model configured at all', 'none', 'generate_prd', {}, 'INVALID: no model is configured for this deployment', 'none'],
  ])('%s', (_description, deployment, key, project, expected, source) => {
    const resolution = resolveModelTarget(deployments[deployment], key, project);
    if (expected.startsWith('INVALID: ')) {
      expect(resolution.ok).toBe(false);
      expect(resolution.ok ? '' : resolution.problem).toContain(expected.slice('INVALID: '.length));
    } else {
      expect(resolution.ok ? formatTarget(resolution.target) : resolution.problem).toBe(expected);
    }
    expect(resolution.source).toBe(source);
  });

  it('every one of the 27 keys resolves under a valid configuration, on a connection with tools unless tool-free', () => {
    for (const key of MODEL_POLICY_KEYS) {
      const resolution = resolveModelTarget(deployments.full, key, {});
      expect(resolution.ok, key).toBe(true);
    }
  });

  it('an explicit execution place overrides the by-stage choice in legacy mode', () => {
    expect(resolveModelTarget(deployments.legacy, 'bug_local_review', {}, { runsIn: 'container' })).toMatchObject({ ok: true, target: { model: 'claude-opus-4' } });
    expect(resolveModelTarget(deployments.legacy, 'implement_work', {}, { runsIn: 'host' })).toMatchObject({ ok: true, target: { model: 'claude-sonnet-4' } });
  });

  it('the failure report lists the connections and models a project may use, never the legacy one', () => {
    const resolution = resolveModelTarget(deployments.fallback, 'implement_work', { policy: { implement_work: 'plain:small' } });
    expect(resolution.ok).toBe(false);
    const report = resolution.ok ? '' : resolution.report;
    expect(report).toContain('The model policy for stage implement_work is invalid (project property service.model_policy)');
    expect(report).toContain('- vertex (cloud-ai; structured_output, tools): gemini-2.5-pro, gemini-2.5-flash');
    expect(report).toContain('- plain (openai-compatible; structured_output): small');
    expect(report).not.toContain('legacy');
    expect(availableModelsReport(deployments.legacy)).toContain('legacy single-model mode');
  });
});

describe('resolveForExecution', () => {
  function trackerProperties(values: Record<string, unknown>) {
    const reads: string[] = [];
    return {
      reads,
      values,
      getProjectProperty: async (project: string, key: string) => {
        reads.push(`${project}/${key}`);
        return values[key];
      },
    };
  }

  it('reads the project policy before every execution, so each invocation resolves independently', async () => {
    const tracker = trackerProperties({ 'service.model_policy': { generate_prd: 'claude:claude-sonnet-4' } });
    const first = await resolveForExecution({ config: deployments.full, key: 'generate_prd', projectKey: 'PROJ', properties: tracker });
    expect(tracker.reads).toEqual(['PROJ/service.model_policy', 'PROJ/service.model_default']);
    tracker.values['service.model_policy'] = { generate_prd: 'vertex:gemini-2.5-flash' };
    const second = await resolveForExecution({ config: deployments.full, key: 'generate_prd', projectKey: 'PROJ', properties: tracker });
    expect([formatTarget(first.target), formatTarget(second.target)]).toEqual(['claude:claude-sonnet-4', 'vertex:gemini-2.5-flash']);
    // The target of an execution is fixed: the resolution handed out cannot be changed afterwards.
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('makes no tracker request in legacy mode', async () => {
    const tracker = trackerProperties({});
    const resolution = await resolveForExecution({ config: deployments.legacy, key: 'generate_prd', projectKey: 'PROJ', properties: tracker });
    expect(resolution.source).toBe('legacy');
    expect(tracker.reads).toEqual([]);
  });

  it('fails closed with a typed error carrying the report', async () => {
    const tracker = trackerProperties({ 'service.model_default': 'plain:small' });
    const error = await resolveForExecution({ config: deployments.full, key: 'ci_analysis', projectKey: 'PROJ', properties: tracker }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPolicyError);
    expect(error).toMatchObject({ key: 'ci_analysis', source: 'project_default', report: expect.stringContaining('Available connections and models') });
  });

  it('does not fall back to the deployment default when the tracker cannot be read', async () => {
    const failing = { getProjectProperty: async () => { throw new Error('tracker unavailable'); } };
    await expect(resolveForExecution({ config: deployments.full, key: 'ci_fix', projectKey: 'PROJ', properties: failing })).rejects.toThrow('tracker unavailable');
  });
});
