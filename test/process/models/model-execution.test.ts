import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseModelConfiguration, type ModelConfiguration } from '../../../src/config/model-configuration';
import { ModelPolicyError, resolveForExecution } from '../../../src/config/model-target-resolver';
import { createModelClient } from '../../../src/models/model-client';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';

/**
 * One AI stage execution as the worker runs it, over real HTTP: the project's policy is read from the tracker
 * (simulator), the target is resolved and fixed, and the model client calls the chosen model (simulator).
 */
describe('a model execution: tracker project policy -> resolution -> model client', () => {
  let tracker: TrackerSimulator;
  let fast: ModelSimulator;
  let strong: ModelSimulator;
  let config: ModelConfiguration;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['PROJ'] });
    [fast, strong] = await Promise.all([startModelSimulator(), startModelSimulator()]);
    env = {
      MODEL_CONNECTIONS: JSON.stringify({
        fast: { backend: 'openai-compatible', base_url: fast.url, allowed_models: ['small'], capabilities: ['structured_output', 'tools'] },
        strong: { backend: 'openai-compatible', base_url: strong.url, allowed_models: ['large'], capabilities: ['structured_output', 'tools'], max_output_tokens: 32000 },
      }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'fast', model: 'small' }),
    };
    config = parseModelConfiguration(env).config!;
  }, 30_000);
  afterAll(async () => Promise.all([tracker?.close(), fast?.close(), strong?.close()]));

  const properties = () => createTrackerClient({ baseUrl: tracker.url, email: 'service@example.com', apiToken: 'any-token-value' });
  const triage = z.object({ complete: z.boolean(), missing: z.array(z.string()) });

  it('runs each stage on the model the project chose, and the default elsewhere', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { analyze_bug: 'strong:large' });
    const client = createModelClient({ env });

    strong.script({ content: JSON.stringify({ complete: true, missing: [] }) });
    const rca = await resolveForExecution({ config, key: 'analyze_bug', projectKey: 'PROJ', properties: properties() });
    expect(await client.generateStructured({ resolved: rca, schema: triage, prompt: 'Analyse.' })).toMatchObject({ target: 'strong:large', source: 'project_policy', strategy: 'native' });
    expect(strong.requests[0]).toMatchObject({ model: 'large', max_tokens: 32000 });

    fast.script({ content: JSON.stringify({ complete: false, missing: ['steps to reproduce'] }) });
    const bugTriage = await resolveForExecution({ config, key: 'bug_triage', projectKey: 'PROJ', properties: properties() });
    expect(await client.generateStructured({ resolved: bugTriage, schema: triage, prompt: 'Triage.' })).toMatchObject({ target: 'fast:small', source: 'deployment_default', object: { missing: ['steps to reproduce'] } });
    expect(fast.requests).toHaveLength(1);
    expect(strong.requests).toHaveLength(1);
  });

  it('fails closed, before any model call, when the stored policy names a model the deployment does not allow', async () => {
    tracker.state.setProperty(tracker.state.project('PROJ').properties, 'service.model_policy', { analyze_bug: 'strong:gpt-9' });
    const before = fast.requests.length + strong.requests.length;
    const error = await resolveForExecution({ config, key: 'analyze_bug', projectKey: 'PROJ', properties: properties() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPolicyError);
    expect((error as ModelPolicyError).report).toContain('- strong (openai-compatible; structured_output, tools): large');
    expect(fast.requests.length + strong.requests.length).toBe(before);
  });
});
