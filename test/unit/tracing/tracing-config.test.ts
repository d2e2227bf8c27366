import { describe, expect, it } from 'vitest';
import { parseTracingConfig, traceAttributes } from '../../../src/tracing/tracing-config';

describe('tracing configuration (SPEC 2.11)', () => {
  const keys = { TRACING_ENABLED: 'true', TRACING_PUBLIC_KEY: 'pk-lf-1', TRACING_SECRET_KEY: 'sk-lf-secret-1' };

  it('is off unless enabled, and off with one warning when a key is missing', () => {
    expect(parseTracingConfig({}).enabled).toBe(false);
    const missing = parseTracingConfig({ TRACING_ENABLED: 'true', TRACING_PUBLIC_KEY: 'pk' });
    expect(missing.enabled).toBe(false);
    expect(missing.warnings).toEqual(['WARNING: TRACING_ENABLED is true but TRACING_PUBLIC_KEY and TRACING_SECRET_KEY are not both set: tracing is off']);
  });

  it('defaults to the cloud host, accepts a self-hosted one, and ignores unknown names with one warning per variable', () => {
    expect(parseTracingConfig(keys).host).toBe('https://cloud.langfuse.com');
    const config = parseTracingConfig({ ...keys, TRACING_HOST: 'http://langfuse.internal:3000/', TRACING_TRACE_TAGS: 'ticket_key, bogus,llm_model,retry_count', TRACING_TRACE_METADATA: 'retry_count,system_prompt_length,nope' });
    expect(config).toMatchObject({ enabled: true, host: 'http://langfuse.internal:3000', tags: ['ticket_key', 'llm_model'], metadata: ['retry_count', 'system_prompt_length'] });
    expect(config.warnings).toHaveLength(2);
    expect(config.warnings[0]).toMatch(/^WARNING: TRACING_TRACE_TAGS names unknown trace attributes, ignored: bogus, retry_count/);
    expect(config.warnings[1]).toMatch(/^WARNING: TRACING_TRACE_METADATA names unknown trace attributes, ignored: nope/);
  });

  it('attaches only the configured attributes that have a value', () => {
    const config = parseTracingConfig({ ...keys, TRACING_TRACE_TAGS: 'ticket_key,repo,pr_number', TRACING_TRACE_METADATA: 'ticket_key,retry_count' });
    expect(traceAttributes(config, { ticket_key: 'PROJ-1', repo: '', retry_count: 0, llm_model: 'x' })).toEqual({
      'langfuse.trace.tags': ['ticket_key:PROJ-1'],
      'langfuse.trace.metadata.ticket_key': 'PROJ-1',
      'langfuse.trace.metadata.retry_count': '0',
    });
  });
});
