import { createAnthropic } from '@ai-sdk/anthropic';
import { createVertex } from '@ai-sdk/google-vertex';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ModelConnection } from '../config/model-configuration';

export class ModelConfigurationError extends Error {
  override readonly name = 'ModelConfigurationError';
}

export interface LanguageModelOptions {
  /** The HTTP client the provider calls the backend with (the container model proxy bounds answers with its own). */
  fetch?: typeof globalThis.fetch;
}

/**
 * The API root a non-OpenAI connection names. The legacy connection's base_url is OPENAI_BASE_URL, whatever
 * LLM_BACKEND says, so it is never taken as an Anthropic or Vertex address: that would send their credential to it.
 */
function vendorBaseUrl(connection: ModelConnection): string | undefined {
  return connection.legacy ? undefined : connection.base_url?.replace(/\/+$/, '');
}

/**
 * One language model for one resolved target. Providers read their native credential variables (connections hold
 * none); the model name was checked against the connection's allowlist by the resolver. A connection's base_url is
 * the API root for every backend: chat completions for openai-compatible, Messages (`{base_url}/messages`) for
 * anthropic, and the publisher root for cloud-ai (`{base_url}/models/<model>:generateContent`).
 */
export function createLanguageModel(connection: ModelConnection, model: string, env: NodeJS.ProcessEnv = process.env, options: LanguageModelOptions = {}): LanguageModel {
  const fetch = options.fetch ? { fetch: options.fetch } : {};
  switch (connection.backend) {
    case 'openai-compatible': {
      const baseURL = connection.base_url ?? env.OPENAI_BASE_URL;
      if (!baseURL) throw new ModelConfigurationError(`connection ${connection.name}: no base_url and no OPENAI_BASE_URL`);
      return createOpenAICompatible({ name: connection.name, baseURL, apiKey: env.OPENAI_API_KEY, supportsStructuredOutputs: connection.capabilities.includes('structured_output'), ...fetch }).chatModel(model);
    }
    case 'anthropic': {
      const baseURL = vendorBaseUrl(connection);
      return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, ...(baseURL ? { baseURL } : {}), ...fetch })(model);
    }
    case 'cloud-ai': {
      const baseURL = vendorBaseUrl(connection);
      return createVertex({
        project: connection.project, location: connection.location,
        ...(env.GOOGLE_VERTEX_API_KEY ? { apiKey: env.GOOGLE_VERTEX_API_KEY } : {}), ...(baseURL ? { baseURL } : {}), ...fetch,
      })(model);
    }
  }
}
