import { describe, expect, it } from 'vitest';
import { parseModelConfiguration } from '../../../src/config/model-configuration';
import { checkContainerStageModels, configuredImplementationModel, containerStageModels } from '../../../src/smoke/smoke-checks';

const ANTHROPIC = {
  MODEL_CONNECTIONS: JSON.stringify({ claude: { backend: 'anthropic', allowed_models: ['claude-sonnet-4'], capabilities: ['structured_output', 'tools'] } }),
  MODEL_DEFAULT: JSON.stringify({ connection: 'claude', model: 'claude-sonnet-4' }),
};

describe('smoke-test steps', () => {
  it('uses the deployment model of implement_work for --configured-model, and says why when there is none', () => {
    const env = {
      MODEL_CONNECTIONS: JSON.stringify({ local: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', allowed_models: ['coder'], capabilities: ['tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'local', model: 'coder' }),
    };
    expect(configuredImplementationModel(env)).toMatchObject({ key: 'implement_work', target: { connection: 'local', model: 'coder' }, connection: { backend: 'openai-compatible' } });
    expect(typeof configuredImplementationModel({})).toBe('string');
  });

  describe('model targets of the container stages', () => {
    it('passes for an anthropic connection with ANTHROPIC_API_KEY, naming the target', () => {
      const step = checkContainerStageModels({ ...ANTHROPIC, ANTHROPIC_API_KEY: 'anthropic-key-value' });
      expect(step).toMatchObject({ name: 'model targets of the container stages', status: 'passed' });
      expect(step?.detail).toMatch(/^all 11 can run in a container on claude:claude-sonnet-4 \(anthropic\)/);
      expect(step?.detail).not.toContain('anthropic-key-value');
    });

    it('fails without ANTHROPIC_API_KEY and names it: the configuration already refuses it', () => {
      const step = checkContainerStageModels(ANTHROPIC);
      expect(step).toMatchObject({ status: 'failed', detail: expect.stringContaining('MODEL_CONNECTIONS.claude: backend anthropic needs ANTHROPIC_API_KEY in the environment') });
    });

    it('lists the stages that cannot run with the reason when the worker environment lacks what the proxy needs', () => {
      // Parsed with the key, checked without it: the proxy's own check, whatever the configuration check lets through.
      const config = parseModelConfiguration({ ...ANTHROPIC, ANTHROPIC_API_KEY: 'k' }).config!;
      const step = containerStageModels(config, { ANTHROPIC_API_KEY: ' ' });
      expect(step.status).toBe('failed');
      expect(step.detail).toMatch(/^cannot run in a container: implement_work, .*rebase, update_docs \(connection claude \(anthropic\): ANTHROPIC_API_KEY is not set in the worker's environment\)$/);
      expect(step.detail).not.toContain('generate_prd');
    });

    it('is left out when no model is configured: the rest of the smoke test needs none', () => {
      expect(checkContainerStageModels({})).toBeUndefined();
    });
  });
});
