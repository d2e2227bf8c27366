import { AsyncLocalStorage } from 'node:async_hooks';
import { generateText, type LanguageModel, type ProviderMetadata } from 'ai';
import type { ModelBackend } from '../config/model-configuration';
import type { ContentPolicy } from './proxy-content-policy';
import { chatCompletionOf, isPromptError, translateChatRequest, upstreamFailureOf, type TranslatedPrompt, type Translation } from './proxy-translation';
import { readAnswer, type UpstreamAnswer } from './upstream-answer';

/**
 * A connection the agent's wire format cannot reach directly (Anthropic, Vertex): the proxy translates each call into
 * an AI SDK generateText call on the provider the host stations use, and the answer back into a chat completion.
 */
export interface TranslatedUpstream {
  backend: Exclude<ModelBackend, 'openai-compatible'>;
  model: string;
  maxOutputTokens: number;
  /**
   * Builds the provider's model over the given fetch (the proxy's, which bounds the answer). The credential is read
   * inside, on the host; a function rather than a field, so nothing that serializes the upstream can carry it.
   */
  languageModel(fetch: typeof globalThis.fetch): LanguageModel;
  /** The values to redact from anything handed to the container (the worker's secret-bearing variables). */
  hostSecrets(): string[];
}

export interface Translator {
  /** The call as generateText will make it, or a refusal of what has no faithful translation (nothing reserved yet). */
  translate(body: Record<string, unknown>): Translation;
  ask(prompt: TranslatedPrompt, maxOutputTokens: number, signal: AbortSignal): Promise<UpstreamAnswer>;
}

/** Tool calls whose provider metadata is kept for replay; the oldest go first, so a long run cannot grow memory. */
const MAX_REMEMBERED_TOOL_CALLS = 1000;
/** Statuses whose answers have no body (a Response with one cannot be built). */
const NO_BODY = new Set([101, 204, 205, 304]);

function errorAnswer(status: number, type: string, message: string, retryAfter?: string): UpstreamAnswer {
  return { status, contentType: 'application/json', text: JSON.stringify({ error: { message, type } }), usage: undefined, ...(retryAfter ? { retryAfter } : {}) };
}

/** `content`: the policy the proxy checks requests with, so the translation maps exactly the parts it passed. */
export function createTranslator(upstream: TranslatedUpstream, maxResponseBytes: number, content: ContentPolicy): Translator {
  // Whether a call reached the backend: an error before that is the request's (charged nothing), after it the
  // model may have worked. Per call, though calls share the model (and so the fetch).
  const calls = new AsyncLocalStorage<{ reached: boolean }>();
  const boundedFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call = calls.getStore();
    if (call) call.reached = true;
    const answer = await fetch(input, init);
    const text = await readAnswer(answer, maxResponseBytes);
    return new Response(NO_BODY.has(answer.status) ? null : text, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
  }) as typeof fetch;
  // Built once: Vertex's application-default credentials cache their access token in the provider.
  const model = upstream.languageModel(boundedFetch);
  const remembered = new Map<string, ProviderMetadata>();
  const remember = (id: string, metadata: ProviderMetadata) => {
    remembered.delete(id);
    remembered.set(id, metadata);
    if (remembered.size > MAX_REMEMBERED_TOOL_CALLS) remembered.delete(remembered.keys().next().value!);
  };

  return {
    translate: (body) => translateChatRequest(body, upstream.backend, (id) => remembered.get(id), content),
    async ask(prompt, maxOutputTokens, signal) {
      const call = { reached: false };
      try {
        const result = await calls.run(call, () => generateText({
          model,
          ...(prompt.system !== undefined ? { system: prompt.system } : {}),
          messages: prompt.messages,
          ...(prompt.tools ? { tools: prompt.tools, ...(prompt.toolChoice ? { toolChoice: prompt.toolChoice } : {}) } : {}),
          ...prompt.settings,
          maxOutputTokens,
          // The agent retries on its own; a retry here would spend budget twice and hide the backend's 429.
          maxRetries: 0,
          abortSignal: signal,
        }));
        for (const toolCall of result.toolCalls) if (toolCall.providerMetadata) remember(toolCall.toolCallId, toolCall.providerMetadata);
        const { body, usage } = chatCompletionOf({
          id: result.response.id, created: result.response.timestamp, text: result.text, toolCalls: result.toolCalls,
          finishReason: result.finishReason, usage: result.usage,
        }, upstream.model);
        return { status: 200, contentType: 'application/json', text: JSON.stringify(body), usage, output: JSON.stringify(body.choices) };
      } catch (error) {
        const failure = upstreamFailureOf(error, upstream.backend);
        if (failure) return errorAnswer(failure.status, failure.type, failure.message, failure.retryAfter);
        if (call.reached) throw error;
        // The proxy redacts this answer, like every other, before the container gets it.
        const message = (error as Error).message;
        if (isPromptError(error)) return errorAnswer(400, 'invalid_request_error', `the ${upstream.backend} provider refused the translated request: ${message}`);
        return errorAnswer(500, 'server_error', `the model proxy could not call the ${upstream.backend} backend: ${message}`);
      }
    },
  };
}
