import { describe, expect, it } from 'vitest';
import { parseModelConfiguration, type ModelConfiguration } from '../../../src/config/model-configuration';
import type { ModelPolicyKey } from '../../../src/config/model-policy-keys';
import { modelPolicyReport } from '../../../src/config/model-policy-report';
import { resolveModelTarget, type ProjectModelPolicy } from '../../../src/config/model-target-resolver';

const config = parseModelConfiguration({
  MODEL_CONNECTIONS: JSON.stringify({
    vertex: { backend: 'cloud-ai', project: 'p', location: 'l', allowed_models: ['gemini-2.5-pro'], capabilities: ['structured_output', 'tools'] },
    plain: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', allowed_models: ['small'], capabilities: [] },
  }),
  MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gemini-2.5-pro' }),
  GOOGLE_VERTEX_API_KEY: 'k',
}).config!;

function failure(key: ModelPolicyKey, project: ProjectModelPolicy, deployment: ModelConfiguration = config) {
  const resolution = resolveModelTarget(deployment, key, project);
  if (resolution.ok) throw new Error('expected a failure');
  return resolution;
}

describe('modelPolicyReport', () => {
  it.each<[string, ModelPolicyKey, ProjectModelPolicy, string, string]>([
    ['a stage override on a weak connection', 'ci_fix', { policy: { ci_fix: 'plain:small' } }, 'missing_tools',
      '`service project-setup PROJ --model ci_fix=<connection>:<model>`, or drop the override: `service project-setup PROJ --remove-model ci_fix`'],
    ['an unknown key', 'ci_fix', { policy: { cifix: 'vertex:gemini-2.5-pro' } }, 'unknown_keys',
      '`service project-setup PROJ --model-policy \'{"ci_fix": "<connection>:<model>"}\'`, or remove them all: `service project-setup PROJ --clear-model-policy`'],
    ['a project default outside the allowlist', 'generate_prd', { default: 'vertex:gpt-9' }, 'model_not_allowed',
      '`service project-setup PROJ --model-all <connection>:<model>`'],
    ['a default naming an unknown connection', 'generate_prd', { default: 'openai:gpt-5' }, 'unknown_connection',
      '`service project-setup PROJ --clear-model-default`'],
  ])('%s: names the problem, the models available and the command that fixes it', (_case, key, project, code, fix) => {
    const failed = failure(key, project);
    expect(failed.code).toBe(code);
    const text = modelPolicyReport({ failure: failed, config, projectKey: 'PROJ', ticketKey: 'PROJ-7', audience: 'tracker' });
    expect(text).toContain(`**Model policy error:** stage \`${key}\` did not run`);
    expect(text).toContain(`Problem: ${failed.problem}`);
    expect(text).toContain('- vertex (cloud-ai; structured_output, tools): gemini-2.5-pro');
    expect(text).toContain('- plain (openai-compatible; no capabilities): small');
    expect(text).toContain(fix);
    expect(text).toContain('add the label `service:retry` to this ticket');
  });

  it('on the pull request, names the ticket to retry on', () => {
    const text = modelPolicyReport({ failure: failure('code_review', { default: 'plain:small' }), config, projectKey: 'PROJ', ticketKey: 'PROJ-7', audience: 'scmhost' });
    expect(text).toContain('add the label `service:retry` to ticket PROJ-7');
  });

  it('sends the operator to the deployment when nothing is configured', () => {
    const none = parseModelConfiguration({}).config!;
    const text = modelPolicyReport({ failure: failure('generate_prd', {}, none), config: none, projectKey: 'PROJ', ticketKey: 'PROJ-7', audience: 'tracker' });
    expect(text).toContain('This deployment has no model configured');
    expect(text).toContain('No connections are available: this deployment has no model configured.');
  });
});
