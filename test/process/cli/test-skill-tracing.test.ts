import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver';
import { startService } from '../../helpers/service-process';

/**
 * TRACING_ENABLED=true: the model calls of `test-skill run` become OpenTelemetry spans exported by the Langfuse span
 * processor to TRACING_HOST (here a local OTLP receiver standing in for Langfuse), with the configured tags and
 * metadata, and credentials redacted before export.
 */
describe('LLM tracing of test-skill run (real binary, OTLP receiver)', { timeout: 60_000 }, () => {
  let model: ModelSimulator;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    model = await startModelSimulator();
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await model?.close();
    await receiver?.close();
  });

  it('exports the run and every model call with tags, metadata and redaction; unknown names warn once', async () => {
    const base = mkdtempSync(join(tmpdir(), 'test-skill-tracing-'));
    mkdirSync(join(base, 'skill'));
    writeFileSync(join(base, 'skill', 'SKILL.md'), '---\nname: write_prd\ndescription: Writes a PRD.\n---\nYou write PRDs into prd.md.\n');
    const secret = 'sk-openai-tracing-secret-000111222';
    writeFileSync(join(base, 'input.yaml'), `ticket_key: PROJ-9\ntitle: CSV\nprompt: Write the PRD.\nprompt_inputs:\n  description: "the key is ${secret}"\n`);
    model.script(
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: 'prd.md', content: '# PRD' }) } },
      { content: 'Done.' },
    );
    const command = startService(['test-skill', 'run', '--skill', 'write_prd', '--skill-dir', join(base, 'skill'), '--input', join(base, 'input.yaml'), '--output', join(base, 'out'), '--project', 'PROJ'], {
      MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: model.url, allowed_models: ['skill-model'], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'skill-model' }),
      OPENAI_API_KEY: secret,
      TRACING_ENABLED: 'true', TRACING_HOST: receiver.url, TRACING_PUBLIC_KEY: 'pk-lf-test', TRACING_SECRET_KEY: 'sk-lf-test-secret',
      TRACING_TRACE_TAGS: 'ticket_key,llm_model,bogus', TRACING_TRACE_METADATA: 'project_id,retry_count,system_prompt_length',
    });
    expect(await command.exited).toBe(0);
    const warnings = command.output().split('\n').filter((line) => line.startsWith('WARNING'));
    expect(warnings).toEqual([expect.stringContaining('TRACING_TRACE_TAGS names unknown trace attributes, ignored: bogus')]);

    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests[0]).toMatchObject({ path: '/api/public/otel/v1/traces', authorization: `Basic ${Buffer.from('pk-lf-test:sk-lf-test-secret').toString('base64')}` });
    const root = receiver.spans.find((span) => span.name === 'test-skill run write_prd');
    expect(root?.attributes).toMatchObject({
      'langfuse.trace.tags': ['ticket_key:PROJ-9', 'llm_model:sim:skill-model'],
      'langfuse.trace.metadata.project_id': 'PROJ',
      'langfuse.trace.metadata.retry_count': '0',
      'langfuse.trace.metadata.system_prompt_length': String('You write PRDs into prd.md.'.length),
    });
    // The AI SDK's spans of the two model requests hang under the run's span, in the same trace.
    const calls = receiver.spans.filter((span) => span.name === 'ai.generateText.doGenerate');
    expect(calls).toHaveLength(2);
    expect(calls.every((span) => span.traceId === root!.traceId)).toBe(true);
    const generate = receiver.spans.find((span) => span.name === 'ai.generateText');
    expect(generate?.parentSpanId).toBe(root!.spanId);
    expect(calls[0]!.attributes['gen_ai.request.model']).toBe('skill-model');
    const exported = JSON.stringify(receiver.spans);
    expect(exported).toContain('the key is [REDACTED]');
    expect(exported).not.toContain(secret);
    expect(exported).not.toContain('sk-lf-test-secret');
  });
});
