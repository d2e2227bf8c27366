import { describe, expect, it } from 'vitest';
import { configuredImplementationModel } from '../../../src/containers/smoke-checks';

describe('smoke-test steps', () => {
  it('uses the deployment model of implement_work for --configured-model, and says why when there is none', () => {
    const env = {
      MODEL_CONNECTIONS: JSON.stringify({ local: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', allowed_models: ['coder'], capabilities: ['tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'local', model: 'coder' }),
    };
    expect(configuredImplementationModel(env)).toMatchObject({ key: 'implement_work', target: { connection: 'local', model: 'coder' }, connection: { backend: 'openai-compatible' } });
    expect(typeof configuredImplementationModel({})).toBe('string');
  });
});
