import { generateObject, generateText, tool, type LanguageModel } from 'ai';
import type { z } from 'zod';
import { redactSecrets } from '../redaction/redact-secrets';

export type StructuredStrategy = 'native' | 'tool';

export interface StructuredResult<T> {
  object: T;
  /** Which strategy produced the object: the provider's own structured output, or the tool-call fallback. */
  strategy: StructuredStrategy;
  usage: { inputTokens: number; outputTokens: number };
  latencySeconds: number;
  /** Why the native strategy was abandoned, when it was. */
  fallbackReason?: string;
}

export interface ModelMetrics {
  observeLatency(seconds: number): void;
}

export class StructuredOutputError extends Error {
  override readonly name = 'StructuredOutputError';
  constructor(message: string, readonly attempts: Array<{ strategy: StructuredStrategy; error: string }>) {
    super(message);
  }
}

const RESPOND_TOOL = 'respond';

function describe(error: unknown): string {
  return redactSecrets(error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500);
}

/**
 * Structured output (SPEC 7): first the provider's native strategy (JSON output constrained by the schema); when that
 * fails (malformed JSON, a schema mismatch, a provider that cannot do it) the same request again with one required
 * tool whose input schema is the schema, reading the tool call's arguments.
 */
export async function generateStructured<T>(input: {
  model: LanguageModel;
  schema: z.ZodType<T>;
  system?: string;
  prompt: string;
  maxOutputTokens?: number;
  metrics?: ModelMetrics;
}): Promise<StructuredResult<T>> {
  const attempts: Array<{ strategy: StructuredStrategy; error: string }> = [];
  const timed = async <R>(work: () => Promise<R>): Promise<[R, number]> => {
    const started = performance.now();
    try {
      const result = await work();
      return [result, (performance.now() - started) / 1000];
    } finally {
      input.metrics?.observeLatency((performance.now() - started) / 1000);
    }
  };

  try {
    const [result, seconds] = await timed(() => generateObject({
      model: input.model, schema: input.schema, system: input.system, prompt: input.prompt, maxOutputTokens: input.maxOutputTokens, maxRetries: 0,
    }));
    return {
      object: result.object as T,
      strategy: 'native',
      usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
      latencySeconds: seconds,
    };
  } catch (error) {
    attempts.push({ strategy: 'native', error: describe(error) });
  }

  try {
    const [result, seconds] = await timed(() => generateText({
      model: input.model,
      system: input.system,
      prompt: input.prompt,
      maxOutputTokens: input.maxOutputTokens,
      maxRetries: 0,
      tools: { [RESPOND_TOOL]: tool({ description: 'Return the answer in the required structure.', inputSchema: input.schema }) },
      toolChoice: { type: 'tool', toolName: RESPOND_TOOL },
    }));
    const call = result.toolCalls.find((c) => c.toolName === RESPOND_TOOL);
    if (!call) throw new Error('the model did not call the respond tool');
    const parsed = input.schema.safeParse(call.input);
    if (!parsed.success) throw new Error(`the tool call does not match the schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return {
      object: parsed.data,
      strategy: 'tool',
      usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
      latencySeconds: seconds,
      fallbackReason: attempts[0]?.error,
    };
  } catch (error) {
    attempts.push({ strategy: 'tool', error: describe(error) });
  }
  throw new StructuredOutputError(`no valid structured output: ${attempts.map((a) => `${a.strategy}: ${a.error}`).join(' | ')}`, attempts);
}
