import { describe, expect, it } from 'vitest';
import { parseModelConfiguration } from '../../../src/config/model-configuration';
import { createLanguageModel, ModelConfigurationError } from '../../../src/models/language-model-factory';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { modelMetricsFrom } from '../../../src/models/model-metrics';

const env = {
  MODEL_CONNECTIONS: JSON.stringify({
    vertex: { backend: 'cloud-ai', project: 'acme-ai', location: 'europe-west4', allowed_models: ['gemini-2.5-pro'], capabilities: ['structured_output', 'tools'] },
    claude: { backend: 'anthropic', allowed_models: ['claude-sonnet-4'], capabilities: ['structured_output', 'tools'] },
    local: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', allowed_models: ['llama'], capabilities: ['tools'] },
  }),
  MODEL_DEFAULT: JSON.stringify({ connection: 'vertex', model: 'gemini-2.5-pro' }),
  GOOGLE_VERTEX_API_KEY: 'vertex-key-value',
  ANTHROPIC_API_KEY: 'anthropic-key-value',
};
const connections = parseModelConfiguration(env).config!.connections;

describe('createLanguageModel', () => {
  it.each([
    ['vertex', 'gemini-2.5-pro', /vertex/],
    ['claude', 'claude-sonnet-4', /anthropic/],
    ['local', 'llama', /^local/],
  ])('builds the %s backend for %s without a network call', (name, model, provider) => {
    const languageModel = createLanguageModel(connections[name]!, model, env);
    expect(typeof languageModel).toBe('object');
    const described = languageModel as { provider: string; modelId: string };
    expect(described.modelId).toBe(model);
    expect(described.provider).toMatch(provider);
  });

  it('refuses an OpenAI-compatible connection without an address', () => {
    expect(() => createLanguageModel({ ...connections.local!, base_url: undefined }, 'llama', {})).toThrow(ModelConfigurationError);
  });
});

describe('modelMetricsFrom', () => {
  it('feeds service_external_api_latency_seconds{service="llm"} and service_agent_duration_seconds', async () => {
    const metrics = createServiceMetrics();
    const model = modelMetricsFrom(metrics);
    model.observeLatency('llm', 0.4);
    model.observeLatency('llm', 1.2);
    model.observeAgentDuration(1.7);
    const text = await metrics.registry.metrics();
    expect(text).toContain('service_external_api_latency_seconds_count{service="llm"} 2');
    expect(text).toContain('service_external_api_latency_seconds_sum{service="llm"} 1.6');
    expect(text).toContain('service_agent_duration_seconds_count 1');
  });
});
