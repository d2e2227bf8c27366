import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTrackerSimulator, type TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { startService } from '../helpers/service-process';

const TOKEN = 'tracker-token-config-cli-123';

type Json = Record<string, any>;

describe('service project-setup and get-config against the tracker simulator', () => {
  let tracker: TrackerSimulator;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['PROJ'], credentials: { email: 'admin@example.com', apiToken: TOKEN } });
    env = { TRACKER_BASE_URL: tracker.url, TRACKER_USER_EMAIL: 'admin@example.com', TRACKER_API_TOKEN: TOKEN };
  });
  afterAll(async () => tracker?.close());
  beforeEach(() => tracker.state.project('PROJ').properties.clear());

  const properties = () => Object.fromEntries(tracker.state.project('PROJ').properties);
  async function run(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
    const command = startService(args, { ...env, ...extraEnv });
    const code = await command.exited;
    const output = command.output();
    return { code, output };
  }
  async function runJson(args: string[]) {
    const command = startService([...args, '--json'], env);
    const code = await command.exited;
    return { code, json: code === 0 ? JSON.parse(command.stdout()) as Json : undefined, output: command.output() };
  }

  it('merges --model into the existing overrides and prints {project, mutations}', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { code_review: 'claude:claude-sonnet-4' });
    const { code, json } = await runJson(['project-setup', 'PROJ', '--model', 'generate_prd=vertex:gemini-2.5-pro', '--model', 'ci_fix=vertex:gemini-2.5-flash']);
    expect(code).toBe(0);
    expect(json).toEqual({
      project: 'PROJ',
      mutations: { 'service.model_policy': { operation: 'set', value: { code_review: 'claude:claude-sonnet-4', generate_prd: 'vertex:gemini-2.5-pro', ci_fix: 'vertex:gemini-2.5-flash' } } },
    });
    expect(properties()['service.model_policy']).toEqual(json!.mutations['service.model_policy'].value);
  });

  it('replaces the policy with --model-policy, where individual --model entries win', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { code_review: 'claude:claude-sonnet-4' });
    const { json } = await runJson(['project-setup', 'PROJ', '--model-policy', '{"generate_prd": "a:b", "ci_fix": {"connection": "c", "model": "d"}}', '--model', 'generate_prd=x:y']);
    expect(properties()['service.model_policy']).toEqual({ generate_prd: 'x:y', ci_fix: 'c:d' });
    expect(json!.mutations['service.model_policy']).toEqual({ operation: 'set', value: { generate_prd: 'x:y', ci_fix: 'c:d' } });
  });

  it('writes only service.model_default with --model-all', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { code_review: 'claude:claude-sonnet-4' });
    const { json } = await runJson(['project-setup', 'PROJ', '--model-all', 'vertex:gemini-2.5-pro']);
    expect(json!.mutations).toEqual({ 'service.model_default': { operation: 'set', value: 'vertex:gemini-2.5-pro' } });
    expect(properties()).toEqual({ 'service.model_policy': { code_review: 'claude:claude-sonnet-4' }, 'service.model_default': 'vertex:gemini-2.5-pro' });
  });

  it('deletes service.model_policy when --remove-model removes the last stage', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { code_review: 'a:b', ci_fix: 'c:d' });
    expect((await runJson(['project-setup', 'PROJ', '--remove-model', 'code_review'])).json!.mutations['service.model_policy']).toEqual({ operation: 'set', value: { ci_fix: 'c:d' } });
    expect((await runJson(['project-setup', 'PROJ', '--remove-model', 'ci_fix'])).json!.mutations['service.model_policy']).toEqual({ operation: 'delete', value: null });
    expect(properties()['service.model_policy']).toBeUndefined();
  });

  it('clears policy and default, sets repositories and proposal settings, and an empty value removes a proposal setting', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { code_review: 'a:b' });
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_default', 'a:b');
    const first = await runJson(['project-setup', 'PROJ', '--clear-model-policy', '--clear-model-default', '--default-repo', 'acme/api', '--repos', 'acme/api,acme/web', '--prd-proposals-repo', 'acme/docs', '--prd-proposals-path', 'proposals/']);
    expect(first.code).toBe(0);
    expect(properties()).toEqual({ 'service.default_repo': 'acme/api', 'service.repos': ['acme/api', 'acme/web'], 'service.prd_proposals_repo': 'acme/docs', 'service.prd_proposals_path': 'proposals' });
    const second = await runJson(['project-setup', 'PROJ', '--prd-proposals-repo', '', '--prd-proposals-path', '']);
    expect(second.json!.mutations).toEqual({ 'service.prd_proposals_repo': { operation: 'delete', value: null }, 'service.prd_proposals_path': { operation: 'delete', value: null } });
    expect(properties()).toEqual({ 'service.default_repo': 'acme/api', 'service.repos': ['acme/api', 'acme/web'] });
  });

  it('prints a readable summary without --json', async () => {
    const { code, output } = await run(['project-setup', 'PROJ', '--default-repo', 'acme/api']);
    expect(code).toBe(0);
    expect(output).toContain('Updated project PROJ:');
    expect(output).toContain('set    service.default_repo = "acme/api"');
  });

  it.each([
    [['PROJ', '--model', 'prd=vertex:gemini'], 'unknown stage "prd"'],
    [['PROJ', '--model', '*=vertex:gemini'], 'there is no "*" policy key'],
    [['PROJ', '--model', 'generate_prdd=vertex:gemini'], 'did you mean generate_prd?'],
    [['PROJ', '--model-policy', '{"generate_prd": '], '--model-policy: not valid JSON'],
    [['PROJ', '--model-all', 'gemini-2.5-pro'], '--model-all gemini-2.5-pro: expected <connection>:<model>'],
    [['PROJ', '--clear-model-policy', '--model', 'ci_fix=a:b'], '--clear-model-policy cannot be combined'],
    [['PROJ'], 'nothing to change'],
    [['PROJ', '--no-such-flag'], 'Nonexistent flag: --no-such-flag'],
    [['NOPE', '--default-repo', 'acme/api'], 'project NOPE not found in the tracker'],
  ])('in JSON mode an error leaves stdout empty, explains on stderr and exits 1: %j', async (args, message) => {
    const command = startService(['project-setup', ...args, '--json'], env);
    expect(await command.exited).toBe(1);
    expect(command.stdout()).toBe('');
    expect(command.output()).toContain(message);
    expect(properties()).toEqual({});
  });

  it('fails clearly without tracker settings or with bad credentials, never echoing the token', async () => {
    const unset = startService(['project-setup', 'PROJ', '--default-repo', 'acme/api', '--json'], {});
    expect(await unset.exited).toBe(1);
    expect(unset.output()).toContain('set TRACKER_BASE_URL, TRACKER_USER_EMAIL, TRACKER_API_TOKEN');
    const { code, output } = await run(['project-setup', 'PROJ', '--default-repo', 'acme/api', '--json'], { TRACKER_API_TOKEN: 'wrong-token-value-999' });
    expect(code).toBe(1);
    expect(output).toContain('tracker request failed');
    expect(output).not.toContain('wrong-token-value-999');
  });

  it('get-config --models shows the effective target of every key and where it comes from', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { code_review: 'claude:claude-sonnet-4' });
    const models = {
      MODEL_CONNECTIONS: JSON.stringify({
        vertex: { backend: 'cloud-ai', project: 'p', location: 'europe-west4', allowed_models: ['gemini-2.5-pro'], capabilities: ['structured_output', 'tools'] },
        claude: { backend: 'anthropic', allowed_models: ['claude-sonnet-4'], capabilities: ['structured_output', 'tools'] },
      }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gemini-2.5-pro' }),
      GOOGLE_VERTEX_API_KEY: 'vertex-key', ANTHROPIC_API_KEY: 'anthropic-key',
    };
    const command = startService(['get-config', 'PROJ', '--models', '--json'], { ...env, ...models });
    expect(await command.exited).toBe(0);
    const json = JSON.parse(command.stdout()) as Json;
    expect(Object.keys(json.models)).toHaveLength(27);
    expect(json.models.code_review).toEqual({ target: 'claude:claude-sonnet-4', source: 'project_policy', runs_in: 'container', container_ready: true });
    expect(json.models.generate_prd).toEqual({ target: 'vertex:gemini-2.5-pro', source: 'deployment_default', runs_in: 'host' });

    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { code_review: 'claude:gpt-5' });
    const invalid = startService(['get-config', 'PROJ', '--models'], { ...env, ...models });
    expect(await invalid.exited).toBe(1);
    expect(invalid.output()).toContain('code_review');
    expect(invalid.output()).toContain('INVALID (project_policy): model "gpt-5" is not allowed on connection "claude"');
    expect(invalid.output()).toContain('- claude (anthropic; structured_output, tools): claude-sonnet-4');
  });
});
