import { createAnthropic } from '@ai-sdk/anthropic';
import { createVertex } from '@ai-sdk/google-vertex';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ModelConnection } from '../config/model-configuration';

export class ModelConfigurationError extends Error {
  override readonly name = 'ModelConfigurationError';
}

/**
 * One language model for one resolved target. Providers read their native credential variables (connections hold
 * none); the model name was checked against the connection's allowlist by the resolver.
 */
export function createLanguageModel(connection: ModelConnection, model: string, env: NodeJS.ProcessEnv = process.env): LanguageModel {
  switch (connection.backend) {
    case 'openai-compatible': {
      const baseURL = connection.base_url ?? env.OPENAI_BASE_URL;
      if (!baseURL) throw new ModelConfigurationError(`connection ${connection.name}: no base_url and no OPENAI_BASE_URL`);
      return createOpenAICompatible({ name: connection.name, baseURL, apiKey: env.OPENAI_API_KEY, supportsStructuredOutputs: connection.capabilities.includes('structured_output') }).chatModel(model);
    }
    case 'anthropic':
      return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })(model);
    case 'cloud-ai':
      return createVertex({ project: connection.project, location: connection.location, ...(env.GOOGLE_VERTEX_API_KEY ? { apiKey: env.GOOGLE_VERTEX_API_KEY } : {}) })(model);
  }
}
