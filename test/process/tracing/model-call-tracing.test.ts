import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelConnection } from '../../../src/config/model-configuration';
import { startModelProxy } from '../../../src/containers/model-proxy';
import { createModelClient } from '../../../src/models/model-client';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import { startTracing, type Tracing } from '../../../src/tracing/start-tracing';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver';

/**
 * Host stations (the model client) and the container agent (through the model proxy) traced to a local OTLP receiver
 * standing in for Langfuse: a span per invocation with the configured tags and metadata, credentials redacted.
 */
describe('LLM tracing of host model calls and the container model proxy', () => {
  let model: ModelSimulator;
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

  beforeAll(async () => {
    model = await startModelSimulator();
    receiver = await startOtlpReceiver();
    tracing = startTracing({
      TRACING_ENABLED: 'true', TRACING_HOST: receiver.url, TRACING_PUBLIC_KEY: 'pk-lf-unit', TRACING_SECRET_KEY: 'sk-lf-unit-secret',
      TRACING_TRACE_TAGS: 'ticket_key,workflow_step,repo', TRACING_TRACE_METADATA: 'llm_model,system_prompt_length',
    }, () => undefined);
  });
  afterAll(async () => {
    await model?.close();
    await receiver?.close();
  });

  it('exports a span per host call and per proxied container call', async () => {
    const connection: ModelConnection = { name: 'sim', backend: 'openai-compatible', base_url: model.url, allowed_models: ['m'], capabilities: ['structured_output', 'tools'], max_output_tokens: 1000, legacy: false };
    const client = createModelClient({ env: {}, tracing });
    model.script({ content: 'A description.' });
    await client.generateText({
      resolved: { key: 'generate_pr_description', target: { connection: 'sim', model: 'm' }, connection, source: 'deployment_default' },
      system: 'Describe the pull request.', prompt: `Diff mentions ${secret}`, trace: { ticket_key: 'PROJ-5', repo: 'acme/api' },
    });

    const proxy = await startModelProxy({
      socketPath: join(mkdtempSync(join(tmpdir(), 'proxy-trace-')), 'model.sock'), upstream: { baseUrl: model.url, model: 'm', maxOutputTokens: 500 }, tokenBudget: null,
      tracing, trace: { ticket_key: 'PROJ-5', workflow_step: 'implement_task', repo: 'acme/api' },
    });
    model.script({ content: 'Edited.', usage: { prompt_tokens: 42, completion_tokens: 7 } });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ socketPath: proxy.socketPath, path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'm', messages: [{ role: 'system', content: 'You implement.' }, { role: 'user', content: `token ${secret}` }] }));
    });
    expect(status).toBe(200);
    await proxy.close();
    await tracing.shutdown();

    const host = receiver.spans.find((span) => span.name === 'llm generate_pr_description');
    expect(host?.attributes).toMatchObject({
      'langfuse.trace.tags': ['ticket_key:PROJ-5', 'workflow_step:generate_pr_description', 'repo:acme/api'],
      'langfuse.trace.metadata.llm_model': 'sim:m',
      'langfuse.trace.metadata.system_prompt_length': String('Describe the pull request.'.length),
    });
    expect(receiver.spans.some((span) => span.name === 'ai.generateText.doGenerate' && span.traceId === host!.traceId)).toBe(true);

    const proxied = receiver.spans.find((span) => span.name === 'llm proxy m');
    expect(proxied?.attributes).toMatchObject({
      'langfuse.trace.tags': ['ticket_key:PROJ-5', 'workflow_step:implement_task', 'repo:acme/api'],
      'langfuse.observation.type': 'generation', 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 42, 'gen_ai.usage.output_tokens': 7,
    });
    expect(String(proxied!.attributes['langfuse.observation.output'])).toContain('Edited.');
    const exported = JSON.stringify(receiver.spans);
    expect(exported).not.toContain(secret);
    expect(exported).toContain('token [REDACTED]');
  });
});
