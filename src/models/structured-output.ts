import { APICallError, generateText, hasToolCall, JSONParseError, NoObjectGeneratedError, Output, stepCountIs, tool, TypeValidationError, UnsupportedFunctionalityError, type LanguageModel, type ModelMessage, type TelemetrySettings, type ToolSet } from 'ai';
import type { z } from 'zod';
import { redactSecrets } from '../redaction/redact-secrets';
import type { ModelMetrics, TokenUsage } from './model-metrics';

export type StructuredStrategy = 'native' | 'tool';

export interface StrategyAttempt {
  strategy: StructuredStrategy;
  ok: boolean;
  /** Why it failed (redacted, bounded), when it did. */
  error?: string;
  usage: TokenUsage;
  latencySeconds: number;
}

export interface StructuredResult<T> {
  object: T;
  /** Which strategy produced the object: the provider's own structured output, or the tool-call fallback. */
  strategy: StructuredStrategy;
  /** Summed over every request of this invocation, the failed native attempt included: that is what was spent. */
  usage: TokenUsage;
  latencySeconds: number;
  attempts: StrategyAttempt[];
  /** Why the native strategy was abandoned, when it was. */
  fallbackReason?: string;
}

export class StructuredOutputError extends Error {
  override readonly name = 'StructuredOutputError';
  constructor(message: string, readonly attempts: StrategyAttempt[]) {
    super(message);
  }
}

/** The one tool of the fallback strategy; its input schema is the wanted schema. */
export const RESPOND_TOOL = 'respond';
const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0 };

function describe(error: unknown): string {
  return redactSecrets(error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500);
}

/** With tools a call has several steps: `totalUsage` is what all of them spent. */
function spent(result: { usage?: { inputTokens?: number; outputTokens?: number }; totalUsage?: { inputTokens?: number; outputTokens?: number } }): TokenUsage {
  return usageOf(result.totalUsage ?? result.usage);
}

function usageOf(usage: { inputTokens?: number; outputTokens?: number } | undefined): TokenUsage {
  return { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 };
}

/** Errors of the AI SDK carry the usage of the failed response (e.g. NoObjectGeneratedError): it was still spent. */
function usageOfError(error: unknown): TokenUsage {
  const usage = (error as { usage?: { inputTokens?: number; outputTokens?: number } } | null)?.usage;
  return usageOf(usage);
}

/**
 * Whether a native attempt failed at structured output itself (unparsable or mismatching JSON, a provider that
 * refuses or does not support the response format), which the tool strategy can fix. Anything else (credentials,
 * rate limits, an outage, the network) would fail the second request the same way: it is rethrown for the
 * activity's retry policy instead of doubling the cost and the wait.
 */
export function isStructuredOutputFailure(error: unknown): boolean {
  if (NoObjectGeneratedError.isInstance(error) || TypeValidationError.isInstance(error) || JSONParseError.isInstance(error) || UnsupportedFunctionalityError.isInstance(error)) return true;
  if (APICallError.isInstance(error)) return error.statusCode === 400 || error.statusCode === 422;
  return false;
}

export interface StructuredInput<T> {
  model: LanguageModel;
  schema: z.ZodType<T>;
  system?: string;
  prompt: string | ModelMessage[];
  maxOutputTokens?: number;
  /** False when the connection does not declare `structured_output`: go straight to the tool strategy. */
  nativeStructuredOutput?: boolean;
  abortSignal?: AbortSignal;
  metrics?: ModelMetrics;
  /** Written as the usage observation's target (`connection:model`). */
  targetLabel?: string;
  /**
   * Tools the model may call before it answers (e.g. read-only repository tools). Each call is one more request:
   * at most `maxSteps` requests in all (default 8), the answer included.
   */
  tools?: ToolSet;
  maxSteps?: number;
  /** OpenTelemetry settings of the AI SDK, when LLM tracing is on. */
  telemetry?: TelemetrySettings;
}

export const DEFAULT_MAX_STEPS = 8;

/**
 * Structured output (SPEC 7): first the provider's native strategy (JSON output constrained by the schema); when that
 * fails (malformed JSON, a schema mismatch, a provider that refuses the response format) the same request again with
 * one required tool whose input schema is the schema, reading the tool call's arguments. Failures that are not about
 * structured output (see isStructuredOutputFailure) are rethrown as they are. Provider retries are off
 * (maxRetries 0): the activity's retry policy owns retrying, and a doubled request would double the cost silently.
 * Cancellation (abortSignal) is not a strategy failure and is rethrown at once.
 */
export async function generateStructured<T>(input: StructuredInput<T>): Promise<StructuredResult<T>> {
  const attempts: StrategyAttempt[] = [];
  const started = performance.now();
  const target = input.targetLabel ?? 'unknown';
  const observe = (usage: TokenUsage, seconds: number) => {
    input.metrics?.observeLatency('llm', seconds);
    input.metrics?.observeUsage?.({ ...usage, target });
  };
  const attempt = async (strategy: StructuredStrategy, work: () => Promise<{ object: T; usage: TokenUsage }>): Promise<T | undefined> => {
    const begin = performance.now();
    try {
      const { object, usage } = await work();
      const latencySeconds = (performance.now() - begin) / 1000;
      observe(usage, latencySeconds);
      attempts.push({ strategy, ok: true, usage, latencySeconds });
      return object;
    } catch (error) {
      const latencySeconds = (performance.now() - begin) / 1000;
      const usage = usageOfError(error);
      observe(usage, latencySeconds);
      if (input.abortSignal?.aborted) throw error;
      attempts.push({ strategy, ok: false, error: describe(error), usage, latencySeconds });
      if (strategy === 'native' && !isStructuredOutputFailure(error)) throw error;
      return undefined;
    }
  };
  const common = { model: input.model, system: input.system, prompt: input.prompt, maxOutputTokens: input.maxOutputTokens, maxRetries: 0, abortSignal: input.abortSignal, ...(input.telemetry ? { experimental_telemetry: input.telemetry } : {}) };
  const extraTools = input.tools && Object.keys(input.tools).length ? input.tools : undefined;
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS;

  try {
    let object: T | undefined;
    if (input.nativeStructuredOutput !== false) {
      object = await attempt('native', async () => {
        const result = await generateText({
          ...common, output: Output.object({ schema: input.schema }),
          ...(extraTools ? { tools: extraTools, stopWhen: stepCountIs(maxSteps) } : {}),
        });
        // Reading `output` parses and validates; a mismatch throws here and counts as a native failure.
        return { object: result.output as T, usage: spent(result) };
      });
    }
    if (object === undefined) {
      object = await attempt('tool', async () => {
        const respond = { [RESPOND_TOOL]: tool({ description: 'Return the answer in the required structure.', inputSchema: input.schema }) };
        const result = await generateText({
          ...common,
          // With other tools the model may use them first; `respond` has no execute, so calling it ends the loop.
          ...(extraTools
            ? { tools: { ...extraTools, ...respond }, toolChoice: 'required' as const, stopWhen: [stepCountIs(maxSteps), hasToolCall(RESPOND_TOOL)] }
            : { tools: respond, toolChoice: { type: 'tool' as const, toolName: RESPOND_TOOL } }),
        });
        const usage = spent(result);
        const call = result.toolCalls.find((c) => c.toolName === RESPOND_TOOL);
        const fail = (message: string) => Object.assign(new Error(message), { usage });
        if (!call) throw fail(`the model did not call the ${RESPOND_TOOL} tool`);
        if ((call as { invalid?: boolean }).invalid) throw fail(`the ${RESPOND_TOOL} tool call is invalid: ${describe((call as { error?: unknown }).error)}`);
        const parsed = input.schema.safeParse(call.input);
        if (!parsed.success) throw fail(`the tool call does not match the schema: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
        return { object: parsed.data, usage };
      });
    }
    const usage = attempts.reduce((sum, a) => ({ inputTokens: sum.inputTokens + a.usage.inputTokens, outputTokens: sum.outputTokens + a.usage.outputTokens }), ZERO);
    const latencySeconds = (performance.now() - started) / 1000;
    const winner = attempts.find((a) => a.ok);
    if (object === undefined || !winner) {
      throw new StructuredOutputError(`no valid structured output from ${target}: ${attempts.map((a) => `${a.strategy}: ${a.error}`).join(' | ')}`, attempts);
    }
    const native = attempts.find((a) => a.strategy === 'native');
    return {
      object, strategy: winner.strategy, usage, latencySeconds, attempts,
      ...(winner.strategy === 'tool' ? { fallbackReason: native?.error ?? 'the connection does not declare structured_output' } : {}),
    };
  } finally {
    input.metrics?.observeAgentDuration((performance.now() - started) / 1000);
  }
}
