import { APICallError, generateText as sdkGenerateText, type LanguageModel, type ModelMessage, type TelemetrySettings, type ToolSet } from 'ai';
import type { z } from 'zod';
import { formatTarget, type ModelConnection, type ModelTarget } from '../config/model-configuration';
import type { Resolution, TargetSource } from '../config/model-target-resolver';
import { redactSecrets } from '../redaction/redact-secrets';
import type { Tracing } from '../tracing/start-tracing';
import type { TraceContext } from '../tracing/tracing-config';
import { createLanguageModel } from './language-model-factory';
import type { ModelMetrics, TokenUsage } from './model-metrics';
import { generateStructured, StructuredOutputError, type StructuredResult } from './structured-output';

/** A resolved target as the resolver hands it out (see resolveForExecution); fixed for the whole execution. */
export type ResolvedTarget = Pick<Extract<Resolution, { ok: true }>, 'key' | 'target' | 'connection' | 'source'>;

export interface ModelCallInput {
  resolved: ResolvedTarget;
  system?: string;
  /** One user message, or a conversation (e.g. the artifact, then the reviewer's feedback, for a revision). */
  prompt: string | ModelMessage[];
  abortSignal?: AbortSignal;
  /** Tools the model may call before its structured answer, and the request limit (see StructuredInput). */
  tools?: ToolSet;
  maxSteps?: number;
  /** OpenTelemetry settings of the AI SDK, when LLM tracing is on (src/tracing/). */
  telemetry?: TelemetrySettings;
  /** Trace attributes the caller knows (ticket_key, repo, ...), for TRACING_TRACE_TAGS / TRACING_TRACE_METADATA. */
  trace?: TraceContext;
}

export interface ModelCallInfo {
  /** `connection:model` and where it came from, for the timeline and the station result. */
  target: string;
  source: TargetSource;
}

export interface TextResult extends ModelCallInfo {
  text: string;
  usage: TokenUsage;
  latencySeconds: number;
}

/** A model request that failed for a reason other than the shape of its answer (credentials, limits, outage). */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  /** Worth retrying later as is: rate limits, provider errors, the network. False for credentials or a bad request. */
  readonly retryable: boolean;
  override readonly cause?: unknown;
  constructor(message: string, readonly target: string, options: { retryable: boolean; cause?: unknown }) {
    super(message);
    this.retryable = options.retryable;
    this.cause = options.cause;
  }
}

function wrap(error: unknown, label: string): Error {
  if (error instanceof ModelCallError || error instanceof StructuredOutputError) return error;
  if ((error as Error | undefined)?.name === 'AbortError') return error as Error;
  const status = APICallError.isInstance(error) && error.statusCode ? ` (HTTP ${error.statusCode})` : '';
  // Network failures are not APICallErrors and are worth another try; an API error knows whether it is.
  const retryable = APICallError.isInstance(error) ? error.isRetryable : true;
  return new ModelCallError(`model call to ${label} failed${status}: ${redactSecrets(error instanceof Error ? error.message : String(error)).slice(0, 500)}`, label, { retryable, cause: error });
}

export interface ModelClient {
  /** A schema-shaped answer: native structured output, falling back to a tool-based schema strategy (SPEC 7). */
  generateStructured<T>(input: ModelCallInput & { schema: z.ZodType<T> }): Promise<StructuredResult<T> & ModelCallInfo>;
  /** A free-text answer (comments, PR descriptions). */
  generateText(input: ModelCallInput): Promise<TextResult>;
}

export interface ModelClientOptions {
  env?: NodeJS.ProcessEnv;
  metrics?: ModelMetrics;
  /** For tests that want a fake model; by default the provider of the connection's backend. */
  createModel?: (connection: ModelConnection, model: string) => LanguageModel;
  /** LLM tracing (TRACING_ENABLED): every call becomes a span with the AI SDK's spans under it. */
  tracing?: Tracing;
}

/**
 * The model client every AI stage uses. It takes a target that was resolved (and validated) for this execution and
 * never resolves again, so a policy change mid-execution cannot switch models. Output tokens are capped by the
 * connection's max_output_tokens; connections without `structured_output` go straight to the tool strategy.
 */
export function createModelClient(options: ModelClientOptions = {}): ModelClient {
  const env = options.env ?? process.env;
  const models = new Map<string, LanguageModel>();
  const modelFor = (connection: ModelConnection, target: ModelTarget): LanguageModel => {
    const key = `${connection.legacy ? '(legacy)' : ''}${formatTarget(target)}`;
    let model = models.get(key);
    if (!model) {
      model = options.createModel ? options.createModel(connection, target.model) : createLanguageModel(connection, target.model, env);
      models.set(key, model);
    }
    return model;
  };

  // With tracing on, one span per invocation named after its policy key, carrying the configured trace attributes;
  // a caller that brings its own telemetry settings (test-skill) has opened its span already.
  const traced = <T>(input: ModelCallInput, label: string, work: (telemetry: TelemetrySettings | undefined) => Promise<T>): Promise<T> => {
    const tracing = options.tracing;
    if (!tracing?.config.enabled || input.telemetry) return work(input.telemetry);
    const key = input.resolved.key;
    return tracing.span(`llm ${key}`, { workflow_step: key, llm_model: label, system_prompt_length: input.system?.length ?? 0, ...input.trace }, () => work(tracing.telemetry(key)));
  };

  return {
    async generateStructured(input) {
      const { connection, target, source } = input.resolved;
      const label = formatTarget(target);
      const result = await traced(input, label, (telemetry) => generateStructured({
        model: modelFor(connection, target),
        schema: input.schema,
        system: input.system,
        prompt: input.prompt,
        maxOutputTokens: connection.max_output_tokens,
        nativeStructuredOutput: connection.capabilities.includes('structured_output'),
        abortSignal: input.abortSignal,
        metrics: options.metrics,
        targetLabel: label,
        tools: input.tools,
        maxSteps: input.maxSteps,
        telemetry,
      })).catch((error: unknown) => {
        throw wrap(error, label);
      });
      return { ...result, target: label, source };
    },

    async generateText(input) {
      const { connection, target, source } = input.resolved;
      const label = formatTarget(target);
      const started = performance.now();
      let requestSeconds = 0;
      try {
        const result = await traced(input, label, (telemetry) => sdkGenerateText({
          model: modelFor(connection, target), system: input.system, prompt: input.prompt,
          maxOutputTokens: connection.max_output_tokens, maxRetries: 0, abortSignal: input.abortSignal,
          ...(telemetry ? { experimental_telemetry: telemetry } : {}),
        }));
        requestSeconds = (performance.now() - started) / 1000;
        const usage = { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 };
        options.metrics?.observeUsage?.({ ...usage, target: label });
        if (!result.text.trim()) throw new ModelCallError(`${label} answered with no text (finish reason ${result.finishReason})`, label, { retryable: true });
        return { text: result.text, usage, latencySeconds: requestSeconds, target: label, source };
      } catch (error) {
        requestSeconds ||= (performance.now() - started) / 1000;
        throw wrap(error, label);
      } finally {
        options.metrics?.observeLatency('llm', requestSeconds);
        options.metrics?.observeAgentDuration((performance.now() - started) / 1000);
      }
    },
  };
}
