import { describe, expect, it } from 'vitest';
import { planProjectSetup, type ProjectSetupOptions } from '../../../src/config/project-setup-plan';

const none: ProjectSetupOptions = { model: [], removeModel: [], clearModelPolicy: false, clearModelDefault: false };
const stored = { code_review: 'claude:claude-sonnet-4', ci_fix: 'vertex:gemini-2.5-flash' };

describe('planProjectSetup: SPEC 4.8 semantics', () => {
  it.each<[string, Partial<ProjectSetupOptions>, unknown, Record<string, unknown>]>([
    ['--model merges into the existing overrides', { model: ['generate_prd=vertex:gemini-2.5-pro'] }, stored,
      { 'service.model_policy': { operation: 'set', value: { ...stored, generate_prd: 'vertex:gemini-2.5-pro' } } }],
    ['--model overwrites a matching key', { model: ['ci_fix=claude:claude-sonnet-4'] }, stored,
      { 'service.model_policy': { operation: 'set', value: { code_review: 'claude:claude-sonnet-4', ci_fix: 'claude:claude-sonnet-4' } } }],
    ['--model is repeatable', { model: ['ci_fix=a:b', 'rebase=c:d'] }, undefined,
      { 'service.model_policy': { operation: 'set', value: { ci_fix: 'a:b', rebase: 'c:d' } } }],
    ['--model-policy replaces the whole property', { modelPolicy: '{"generate_prd": "a:b"}' }, stored,
      { 'service.model_policy': { operation: 'set', value: { generate_prd: 'a:b' } } }],
    ['--model wins over --model-policy', { modelPolicy: '{"generate_prd": "a:b", "ci_fix": {"connection": "c", "model": "d"}}', model: ['generate_prd=x:y'] }, stored,
      { 'service.model_policy': { operation: 'set', value: { generate_prd: 'x:y', ci_fix: 'c:d' } } }],
    ['an empty --model-policy deletes the property', { modelPolicy: '{}' }, stored,
      { 'service.model_policy': { operation: 'delete', value: null } }],
    ['--model-all writes service.model_default only', { modelAll: 'vertex:gemini-2.5-pro' }, stored,
      { 'service.model_default': { operation: 'set', value: 'vertex:gemini-2.5-pro' } }],
    ['--remove-model removes one stage', { removeModel: ['ci_fix'] }, stored,
      { 'service.model_policy': { operation: 'set', value: { code_review: 'claude:claude-sonnet-4' } } }],
    ['--remove-model deletes the property when none remain', { removeModel: ['ci_fix', 'code_review'] }, stored,
      { 'service.model_policy': { operation: 'delete', value: null } }],
    ['--clear-model-policy and --clear-model-default', { clearModelPolicy: true, clearModelDefault: true }, stored,
      { 'service.model_policy': { operation: 'delete', value: null }, 'service.model_default': { operation: 'delete', value: null } }],
    ['model names may contain colons', { model: ['ci_fix=local:llama3:70b'] }, undefined,
      { 'service.model_policy': { operation: 'set', value: { ci_fix: 'local:llama3:70b' } } }],
    ['repositories and default repository', { repos: 'acme/api, acme/web', defaultRepo: 'acme/api' }, undefined,
      { 'service.default_repo': { operation: 'set', value: 'acme/api' }, 'service.repos': { operation: 'set', value: ['acme/api', 'acme/web'] } }],
    ['proposal settings', { prdProposalsRepo: 'acme/docs', prdProposalsPath: 'docs/proposals/' }, undefined,
      { 'service.prd_proposals_repo': { operation: 'set', value: 'acme/docs' }, 'service.prd_proposals_path': { operation: 'set', value: 'docs/proposals' } }],
    ['an empty proposal value removes the setting', { prdProposalsRepo: '', prdProposalsPath: '' }, undefined,
      { 'service.prd_proposals_repo': { operation: 'delete', value: null }, 'service.prd_proposals_path': { operation: 'delete', value: null } }],
  ])('%s', (_name, options, existing, mutations) => {
    expect(planProjectSetup({ ...none, ...options }, existing)).toEqual({ ok: true, mutations });
  });

  it.each<[Partial<ProjectSetupOptions>, string]>([
    [{}, 'nothing to change: give at least one option (see --help)'],
    [{ model: ['prd=vertex:gemini'] }, '--model prd=vertex:gemini: unknown stage "prd"'],
    [{ model: ['generate_prdd=vertex:gemini'] }, '--model generate_prdd=vertex:gemini: unknown stage "generate_prdd" (did you mean generate_prd?)'],
    [{ model: ['*=vertex:gemini'] }, '--model *=vertex:gemini: there is no "*" policy key; use --model-all to set the project-wide fallback'],
    [{ model: ['ci_fix'] }, '--model ci_fix: expected <stage>=<connection>:<model>'],
    [{ model: ['ci_fix=gemini'] }, '--model ci_fix=gemini: expected <connection>:<model> after "="'],
    [{ model: ['ci_fix=a:b', 'ci_fix=c:d'] }, '--model ci_fix: given twice with different targets (a:b, c:d)'],
    [{ model: ['ci_fix=a:b'], removeModel: ['ci_fix'] }, '--remove-model ci_fix contradicts --model ci_fix=a:b'],
    [{ removeModel: ['cifix'] }, '--remove-model cifix: unknown stage "cifix" (did you mean ci_fix?)'],
    [{ modelPolicy: '{"generate_prd": ' }, '--model-policy: not valid JSON'],
    [{ modelPolicy: '["a:b"]' }, '--model-policy: expected a JSON object of stage to "connection:model"'],
    [{ modelPolicy: '{"ci_fix": "nocolon"}' }, '--model-policy.ci_fix: expected "connection:model" or {"connection", "model"}'],
    [{ modelAll: 'gemini-2.5-pro' }, '--model-all gemini-2.5-pro: expected <connection>:<model>'],
    [{ clearModelPolicy: true, model: ['ci_fix=a:b'] }, '--clear-model-policy cannot be combined with --model, --model-policy or --remove-model'],
    [{ clearModelDefault: true, modelAll: 'a:b' }, '--clear-model-default cannot be combined with --model-all'],
    [{ defaultRepo: 'acme' }, '--default-repo acme: expected owner/repo'],
    [{ repos: 'acme/api,web' }, '--repos acme/api,web: expected a comma-separated list of owner/repo (not owner/repo: web)'],
    [{ repos: 'acme/api', defaultRepo: 'acme/web' }, '--default-repo acme/web is not one of --repos acme/api'],
    [{ prdProposalsRepo: 'docs' }, '--prd-proposals-repo docs: expected owner/repo (or an empty value to remove it)'],
    [{ prdProposalsPath: '/abs' }, '--prd-proposals-path /abs: expected a path inside the repository'],
    [{ prdProposalsPath: 'a/../b' }, '--prd-proposals-path a/../b: expected a path inside the repository'],
  ])('rejects %j', (options, message) => {
    const plan = planProjectSetup({ ...none, ...options }, undefined);
    expect(plan.ok).toBe(false);
    expect(plan.ok ? [] : plan.errors.filter((e) => e.startsWith(message))).toHaveLength(1);
  });

  it('collects every problem before writing anything', () => {
    const plan = planProjectSetup({ ...none, model: ['bad=a:b', 'ci_fix=nocolon'], defaultRepo: 'not-a-repo', prdProposalsPath: '../escape', modelAll: 'x' }, undefined);
    expect(plan.ok ? [] : plan.errors).toHaveLength(5);
  });

  it('validates syntax and canonical stage names, not the deployment registry', () => {
    expect(planProjectSetup({ ...none, model: ['code_review=any-connection:any-model'] }, undefined).ok).toBe(true);
  });

  it('refuses to merge into a stored policy that is broken, and says how to fix it', () => {
    expect(planProjectSetup({ ...none, model: ['ci_fix=a:b'] }, { bogus_stage: 'a:b' })).toEqual({
      ok: false,
      errors: ['the current service.model_policy: unknown stage "bogus_stage"', 'replace the stored service.model_policy with --model-policy <JSON>, or delete it with --clear-model-policy'],
    });
    expect(planProjectSetup({ ...none, model: ['ci_fix=a:b'], modelPolicy: '{}' }, { bogus_stage: 'a:b' }).ok).toBe(true);
    expect(planProjectSetup({ ...none, clearModelPolicy: true }, { bogus_stage: 'a:b' }).ok).toBe(true);
  });
});
