import { TRACE_ATTRIBUTES, TRACE_METADATA_ATTRIBUTES } from '../config/service-config';

/**
 * LLM tracing settings (SPEC 2.11): TRACING_ENABLED, TRACING_PUBLIC_KEY / TRACING_SECRET_KEY, TRACING_HOST
 * (Langfuse cloud unless set, self-hosted allowed), and which trace attributes go along as tags
 * (TRACING_TRACE_TAGS) and as metadata (TRACING_TRACE_METADATA). Unknown attribute names are dropped with one
 * warning, so a typo does not silently lose an attribute nor stop the process.
 */
export const TAG_ATTRIBUTES = TRACE_ATTRIBUTES;
export const METADATA_ATTRIBUTES = TRACE_METADATA_ATTRIBUTES;
export type TraceAttributeName = (typeof METADATA_ATTRIBUTES)[number];
export const DEFAULT_TRACING_HOST = 'https://cloud.langfuse.com';

export interface TracingConfig {
  enabled: boolean;
  publicKey?: string;
  secretKey?: string;
  host: string;
  tags: TraceAttributeName[];
  metadata: TraceAttributeName[];
  /** Printed once at startup. */
  warnings: string[];
  /** Set when tracing is asked for but cannot run (missing keys, a bad host): tracing stays off. */
  problem?: string;
}

function names(raw: string | undefined, allowed: readonly string[], variable: string, warnings: string[]): TraceAttributeName[] {
  const given = (raw ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = given.filter((name) => !allowed.includes(name));
  if (unknown.length) warnings.push(`WARNING: ${variable} names unknown trace attributes, ignored: ${unknown.join(', ')} (known: ${allowed.join(', ')})`);
  return [...new Set(given.filter((name) => allowed.includes(name)))] as TraceAttributeName[];
}

export function parseTracingConfig(env: NodeJS.ProcessEnv): TracingConfig {
  const warnings: string[] = [];
  const enabled = /^(true|1|yes)$/i.test(env.TRACING_ENABLED?.trim() ?? '');
  const host = (env.TRACING_HOST?.trim() || DEFAULT_TRACING_HOST).replace(/\/+$/, '');
  const config: TracingConfig = {
    enabled,
    publicKey: env.TRACING_PUBLIC_KEY?.trim() || undefined,
    secretKey: env.TRACING_SECRET_KEY?.trim() || undefined,
    host,
    tags: enabled ? names(env.TRACING_TRACE_TAGS, TAG_ATTRIBUTES, 'TRACING_TRACE_TAGS', warnings) : [],
    metadata: enabled ? names(env.TRACING_TRACE_METADATA, METADATA_ATTRIBUTES, 'TRACING_TRACE_METADATA', warnings) : [],
    warnings,
  };
  if (!enabled) return config;
  if (!config.publicKey || !config.secretKey) config.problem = 'TRACING_ENABLED is true but TRACING_PUBLIC_KEY and TRACING_SECRET_KEY are not both set: tracing is off';
  else if (!/^https?:\/\/[^\s]+$/.test(host)) config.problem = `TRACING_HOST ${host} is not an http(s) address: tracing is off`;
  if (config.problem) {
    config.enabled = false;
    warnings.push(`WARNING: ${config.problem}`);
  }
  return config;
}

export type TraceContext = Partial<Record<TraceAttributeName, string | number>>;

/**
 * The Langfuse trace attributes of one traced operation: the configured tags as `name:value` strings and the
 * configured metadata as one attribute per name. Attributes without a value are left out.
 */
export function traceAttributes(config: Pick<TracingConfig, 'tags' | 'metadata'>, context: TraceContext): Record<string, string | string[]> {
  const attributes: Record<string, string | string[]> = {};
  const tags = config.tags.filter((name) => context[name] !== undefined && context[name] !== '').map((name) => `${name}:${context[name]}`);
  if (tags.length) attributes['langfuse.trace.tags'] = tags;
  for (const name of config.metadata) {
    if (context[name] !== undefined && context[name] !== '') attributes[`langfuse.trace.metadata.${name}`] = String(context[name]);
  }
  return attributes;
}
