import { LangfuseSpanProcessor } from '@langfuse/otel';
import { context, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redactSecrets, redactValue, secretValuesFromEnv } from '../redaction/redact-secrets';
import { parseTracingConfig, traceAttributes, type TraceContext, type TracingConfig } from './tracing-config';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

/**
 * Removes credentials from every string attribute of a span before any exporter sees it (the AI SDK records whole
 * prompts and answers, and a prompt may carry a token a ticket author pasted). Runs before the Langfuse processor.
 */
export class RedactingSpanProcessor implements SpanProcessor {
  constructor(private readonly secrets: readonly string[]) {}
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    const attributes = span.attributes as Record<string, unknown>;
    for (const [key, value] of Object.entries(attributes)) {
      if (typeof value === 'string') attributes[key] = redactSecrets(value, this.secrets);
      else if (Array.isArray(value)) attributes[key] = redactValue(value, this.secrets);
    }
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Tracing {
  config: TracingConfig;
  /** Runs `work` inside a span carrying the configured trace attributes; a plain call when tracing is off. */
  span<T>(name: string, traceContext: TraceContext, work: (span?: Span) => Promise<T>): Promise<T>;
  /** The AI SDK's telemetry settings for one model call (spans become children of the active span). */
  telemetry(functionId: string): { isEnabled: boolean; functionId: string; tracer?: Tracer };
  /** Exports what is pending and stops; call before the process exits. */
  shutdown(): Promise<void>;
}

/**
 * LLM tracing with OpenTelemetry, exported to Langfuse (`TRACING_HOST`, cloud by default) by the maintained
 * @langfuse/otel span processor over OTLP/HTTP with the public/secret key pair. Off unless TRACING_ENABLED is true
 * and both keys are set; warnings (unknown attribute names, missing keys) go to `warn` once.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env, warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Tracing {
  const config = parseTracingConfig(env);
  for (const warning of config.warnings) warn(warning);
  if (!config.enabled) {
    return { config, span: (_name, _context, work) => work(), telemetry: (functionId) => ({ isEnabled: false, functionId }), shutdown: async () => {} };
  }
  const secrets = [...secretValuesFromEnv(env), config.secretKey!].filter((value, index, all) => all.indexOf(value) === index);
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new RedactingSpanProcessor(secrets),
      new LangfuseSpanProcessor({
        publicKey: config.publicKey, secretKey: config.secretKey, baseUrl: config.host, exportMode: 'batched',
        mediaUploadEnabled: false,
        mask: ({ data }) => (typeof data === 'string' ? redactSecrets(data, secrets) : redactValue(data, secrets)),
        // Everything this provider records is an LLM operation of the service: export all of it.
        shouldExportSpan: () => true,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('service');
  return {
    config,
    span: (name, traceContext, work) => tracer.startActiveSpan(name, { attributes: { 'langfuse.trace.name': name, ...traceAttributes(config, traceContext) } as Attributes }, async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: 2, message: redactSecrets((error as Error).message, secrets) });
        throw error;
      } finally {
        span.end();
      }
    }),
    telemetry: (functionId) => ({ isEnabled: true, functionId, tracer }),
    shutdown: async () => {
      await provider.shutdown();
    },
  };
}
