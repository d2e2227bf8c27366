import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyUpstreamOf, ProxyUpstreamError, startModelProxy } from '../../../src/containers/model-proxy';
import { estimateInputTokens } from '../../../src/containers/proxy-request-policy';
import { unixSocketFetch } from '../../../src/agent/unix-socket-fetch';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import type { ModelConnection } from '../../../src/config/model-configuration';

describe('proxyUpstreamOf', () => {
  it('refuses a connection whose credential or address is missing, saying what to set; forwards openai-compatible as is', () => {
    expect(() => proxyUpstreamOf({ name: 'a', backend: 'anthropic', max_output_tokens: 10 } as ModelConnection, 'm', {})).toThrow(/ANTHROPIC_API_KEY is not set/);
    expect(() => proxyUpstreamOf({ name: 'v', backend: 'cloud-ai', max_output_tokens: 10 } as ModelConnection, 'm', {})).toThrow(/needs "project" and "location"/);
    expect(() => proxyUpstreamOf({ name: 'o', backend: 'openai-compatible', max_output_tokens: 10 } as ModelConnection, 'm', {})).toThrow(ProxyUpstreamError);
    expect(proxyUpstreamOf({ name: 'o', backend: 'openai-compatible', base_url: 'http://x/v1/', max_output_tokens: 10 } as ModelConnection, 'm', { OPENAI_API_KEY: 'k' }))
      .toEqual({ baseUrl: 'http://x/v1', apiKey: 'k', model: 'm', maxOutputTokens: 10 });
  });
});

describe('the model proxy on a unix socket', () => {
  let model: ModelSimulator;
  let dir: string;
  beforeAll(async () => {
    model = await startModelSimulator();
    dir = mkdtempSync(join(tmpdir(), 'proxy-'));
  });
  afterAll(async () => {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (socket: string, body: unknown) => unixSocketFetch(socket)('http://model-proxy/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('adds the credential, allows only the resolved model, records usage and enforces the budget', async () => {
    const proxy = await startModelProxy({ socketPath: join(dir, 'a.sock'), upstream: { baseUrl: model.url, apiKey: 'sk-held-by-the-host-only', model: 'allowed', maxOutputTokens: 512 }, tokenBudget: 50 });
    try {
      model.script({ content: 'hi', usage: { prompt_tokens: 30, completion_tokens: 25 } });
      const ok = await call(proxy.socketPath, { model: 'allowed', messages: [{ role: 'user', content: 'x' }], max_tokens: 9999 });
      expect(ok.status).toBe(200);
      expect(model.received[0]!.authorization).toBe('Bearer sk-held-by-the-host-only');
      // The grant is what the budget holds after the call's estimated input.
      expect(model.requests[0]!.max_tokens).toBe(50 - estimateInputTokens({ model: 'allowed', messages: [{ role: 'user', content: 'x' }] }));
      expect(proxy.usage()).toEqual({ input_tokens: 30, output_tokens: 25 });

      const other = await call(proxy.socketPath, { model: 'another', messages: [{ role: 'user', content: 'x' }] });
      expect(other.status).toBe(403);
      const spent = await call(proxy.socketPath, { model: 'allowed', messages: [{ role: 'user', content: 'x' }] });
      expect(spent.status).toBe(429);
      expect(await spent.text()).toContain('token budget of 50 is spent');
      expect(model.requests).toHaveLength(1);
      // Refusals are recorded too, so the station can report them.
      expect(proxy.calls.map((c) => c.status)).toEqual([200, 403, 429]);
      expect(proxy.calls[0]!.latency_ms).toBeGreaterThanOrEqual(0);
    } finally {
      await proxy.close();
    }
  });
});
