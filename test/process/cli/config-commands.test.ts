import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { startService } from '../../helpers/service-process';

/**
 * The real `service` binary (dist/, built by `npm test`) against the tracker simulator: what an operator sees on
 * stdout, stderr and the exit code, and what ends up in the project's properties. No Temporal needed.
 */
const TOKEN = 'tracker-token-unit-cli-4711';
const MODELS = {
  MODEL_CONNECTIONS: JSON.stringify({
    vertex: { backend: 'cloud-ai', project: 'p', location: 'europe-west4', allowed_models: ['gemini-2.5-pro', 'gemini-2.5-flash'], capabilities: ['structured_output', 'tools'] },
    plain: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', allowed_models: ['small'], capabilities: ['structured_output'] },
  }),
  MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gemini-2.5-pro' }),
  GOOGLE_VERTEX_API_KEY: 'vertex-key-value',
};

async function run(args: string[], env: NodeJS.ProcessEnv) {
  const command = startService(args, env);
  const code = await command.exited;
  const stdout = command.stdout();
  return { code, stdout, stderr: command.output().replace(stdout, ''), output: command.output() };
}

describe('configuration commands (real binary)', () => {
  let tracker: TrackerSimulator;
  let env: NodeJS.ProcessEnv;
  const props = () => tracker.state.project('PROJ').properties;

  beforeAll(async () => {
    tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['PROJ'], credentials: { email: 'admin@example.com', apiToken: TOKEN } });
    env = { TRACKER_BASE_URL: tracker.url, TRACKER_USER_EMAIL: 'admin@example.com', TRACKER_API_TOKEN: TOKEN };
  }, 30_000);
  afterAll(async () => tracker?.close());
  beforeEach(() => {
    props().clear();
    tracker.faults.clear();
  });

  describe('project-setup', () => {
    it('validates before touching the tracker: a contradiction fails even without tracker settings', async () => {
      const result = await run(['project-setup', 'PROJ', '--model', 'ci_fix=a:b', '--remove-model', 'ci_fix', '--json'], {});
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('--remove-model ci_fix contradicts --model ci_fix=a:b');
      expect(result.stderr).not.toContain('TRACKER_BASE_URL');
    });

    it('takes one value per --model, so the project key may come after it', async () => {
      const result = await run(['project-setup', '--model', 'ci_fix=vertex:gemini-2.5-pro', 'PROJ', '--model', 'rebase=vertex:gemini-2.5-flash', '--json'], env);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).mutations['service.model_policy'].value).toEqual({ ci_fix: 'vertex:gemini-2.5-pro', rebase: 'vertex:gemini-2.5-flash' });
    });

    it('says exactly what was and was not written when a write fails midway', async () => {
      tracker.faults.enqueue({ kind: 'status', status: 400, match: { method: 'PUT', path: 'service\\.prd_proposals_repo$' } });
      const result = await run(['project-setup', 'PROJ', '--default-repo', 'acme/api', '--prd-proposals-repo', 'acme/docs', '--json'], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('while writing service.prd_proposals_repo; applied: service.default_repo; not applied: service.prd_proposals_repo');
      expect(Object.fromEntries(props())).toEqual({ 'service.default_repo': 'acme/api' });
    });

    it('--remove-model on the last stage deletes the property; the JSON names the operation', async () => {
      tracker.state.setProperty(props(), 'service.model_policy', { ci_fix: 'vertex:gemini-2.5-flash' });
      const result = await run(['project-setup', 'PROJ', '--remove-model', 'ci_fix', '--model-all', 'vertex:gemini-2.5-flash', '--json'], env);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        project: 'PROJ',
        mutations: { 'service.model_policy': { operation: 'delete', value: null }, 'service.model_default': { operation: 'set', value: 'vertex:gemini-2.5-flash' } },
      });
      expect(Object.fromEntries(props())).toEqual({ 'service.model_default': 'vertex:gemini-2.5-flash' });
    });

    it('refuses to merge --model into a stored policy with an unknown stage, and writes nothing', async () => {
      tracker.state.setProperty(props(), 'service.model_policy', { cireview: 'vertex:gemini-2.5-pro' });
      const result = await run(['project-setup', 'PROJ', '--model', 'ci_fix=vertex:gemini-2.5-pro'], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('the current service.model_policy: unknown stage "cireview"');
      expect(result.stderr).toContain('--model-policy <JSON>, or delete it with --clear-model-policy');
      expect(Object.fromEntries(props())).toEqual({ 'service.model_policy': { cireview: 'vertex:gemini-2.5-pro' } });
    });
  });

  describe('get-config --models', () => {
    it('legacy mode needs no tracker: host and container models, every key from LLM_BACKEND/LLM_MODEL', async () => {
      const result = await run(['get-config', 'proj', '--models', '--json'], { LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4', CONTAINER_LLM_MODEL: 'claude-opus-4', ANTHROPIC_API_KEY: 'anthropic-key-value' });
      expect(result.code).toBe(0);
      const json = JSON.parse(result.stdout) as { project: string; mode: string; models: Record<string, { target: string; source: string }> };
      expect(json).toMatchObject({ project: 'PROJ', mode: 'legacy' });
      expect(Object.keys(json.models)).toHaveLength(27);
      expect(json.models.generate_prd).toEqual({ target: 'legacy:claude-sonnet-4', source: 'legacy', runs_in: 'host' });
      expect(json.models.implement_work).toEqual({ target: 'legacy:claude-opus-4', source: 'legacy', runs_in: 'container', container_ready: true });
      // Every container stage shows the model its container station gets, not only the legacy default list.
      expect(json.models.code_review).toEqual({ target: 'legacy:claude-opus-4', source: 'legacy', runs_in: 'container', container_ready: true });
    });

    it('says per stage whether an anthropic target can run in a container (with ANTHROPIC_API_KEY) or host', async () => {
      const anthropic = {
        MODEL_CONNECTIONS: JSON.stringify({ claude: { backend: 'anthropic', allowed_models: ['claude-sonnet-4'], capabilities: ['structured_output', 'tools'] } }),
        MODEL_DEFAULT: JSON.stringify({ connection: 'claude', model: 'claude-sonnet-4' }),
        ANTHROPIC_API_KEY: 'anthropic-key-value',
      };
      const human = await run(['get-config', 'PROJ', '--models'], { ...env, ...anthropic });
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/\n {2}code_review\s+claude:claude-sonnet-4 \(deployment_default\)\s+container: can run\n/);
      expect(human.stdout).toMatch(/\n {2}generate_prd\s+claude:claude-sonnet-4 \(deployment_default\)\s+host\n/);
      expect(human.stdout.match(/container: can run$/gm)).toHaveLength(11);
      expect(human.stdout.match(/host$/gm)).toHaveLength(16);
      expect(human.stdout).not.toContain('anthropic-key-value');
      const json = await run(['get-config', 'PROJ', '--models', '--json'], { ...env, ...anthropic });
      expect(json.code).toBe(0);
      const models = (JSON.parse(json.stdout) as { models: Record<string, Record<string, unknown>> }).models;
      expect(models.rebase).toEqual({ target: 'claude:claude-sonnet-4', source: 'deployment_default', runs_in: 'container', container_ready: true });
      expect(models.generate_prd).toEqual({ target: 'claude:claude-sonnet-4', source: 'deployment_default', runs_in: 'host' });
      // Without the key the worker would not start: the configuration check names it before any stage is looked at.
      const missing = await run(['get-config', 'PROJ', '--models', '--json'], { ...env, ...anthropic, ANTHROPIC_API_KEY: '' });
      expect(missing.code).toBe(1);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toContain('MODEL_CONNECTIONS.claude: backend anthropic needs ANTHROPIC_API_KEY in the environment');
    });

    it('prints every key with its source in human form', async () => {
      tracker.state.setProperty(props(), 'service.model_policy', { sync_pr_description: 'plain:small' });
      tracker.state.setProperty(props(), 'service.model_default', { connection: 'vertex', model: 'gemini-2.5-flash' });
      const result = await run(['get-config', 'PROJ', '--models'], { ...env, ...MODELS });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/sync_pr_description\s+plain:small \(project_policy\)/);
      expect(result.stdout).toMatch(/generate_prd\s+vertex:gemini-2\.5-flash \(project_default\)/);
      expect(result.stdout).toContain('models: connections vertex (cloud-ai: gemini-2.5-pro, gemini-2.5-flash); plain (openai-compatible: small); default vertex:gemini-2.5-pro');
      expect(result.stdout.trim().split('\n')).toHaveLength(29);
    });

    it('with --json and an invalid project policy: empty stdout, the invalid keys and the available models on stderr, exit 1', async () => {
      tracker.state.setProperty(props(), 'service.model_policy', { implement_work: 'plain:small' });
      const result = await run(['get-config', 'PROJ', '--models', '--json'], { ...env, ...MODELS });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('1 of 27 policy keys are invalid for project PROJ');
      expect(result.stderr).toContain('implement_work: INVALID (project_policy): stage implement_work needs a connection with the "tools" capability');
      expect(result.stderr).toContain('- vertex (cloud-ai; structured_output, tools): gemini-2.5-pro, gemini-2.5-flash');
    });

    it('an unknown key in project policy invalidates every key', async () => {
      tracker.state.setProperty(props(), 'service.model_policy', { 'code-review': 'vertex:gemini-2.5-pro' });
      const result = await run(['get-config', 'PROJ', '--models'], { ...env, ...MODELS });
      expect(result.code).toBe(1);
      expect(result.stdout.match(/service\.model_policy has unknown keys: code-review/g)).toHaveLength(27);
    });

    it('says in one line what to set when no model is configured, naming the running service dev as the other way', async () => {
      const result = await run(['get-config', 'PROJ', '--models', '--data-dir', join(tmpdir(), 'no-service-dev-here')], {});
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n').filter((line) => line.includes('no model is configured'))).toEqual([
        expect.stringContaining('set MODEL_CONNECTIONS and MODEL_DEFAULT (or LLM_BACKEND and LLM_MODEL), or run this while a `service dev --sandbox` runs'),
      ]);
    });

    it('reports each deployment configuration problem on its own line', async () => {
      const result = await run(['get-config', 'PROJ', '--models', '--json'], { ...env, ...MODELS, GOOGLE_VERTEX_API_KEY: '', MODEL_POLICY: '{"*": {"connection": "vertex", "model": "gemini-2.5-pro"}}' });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines).toContain('MODEL_CONNECTIONS.vertex: backend cloud-ai needs GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_VERTEX_API_KEY in the environment');
      expect(lines.some((line) => line.startsWith('MODEL_POLICY.*: unknown policy key'))).toBe(true);
    });

    it('an unknown project and bad credentials fail clearly without echoing the token', async () => {
      const missing = await run(['get-config', 'NOPE', '--models', '--json'], { ...env, ...MODELS });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('project NOPE not found in the tracker');
      const denied = await run(['get-config', 'PROJ', '--models'], { ...env, ...MODELS, TRACKER_API_TOKEN: 'wrong-token-value-4242' });
      expect(denied.code).toBe(1);
      expect(denied.output).toContain('tracker request failed');
      expect(denied.output).not.toContain('wrong-token-value-4242');
    });
  });
});
