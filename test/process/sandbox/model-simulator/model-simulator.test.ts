import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadModelScript } from '../../../../src/sandbox/model-simulator/model-script';
import { startModelSimulator, type ModelSimulator } from '../../../../src/sandbox/model-simulator/model-simulator';

describe('model simulator (OpenAI chat-completions wire format)', () => {
  let simulator: ModelSimulator;
  beforeAll(async () => {
    simulator = await startModelSimulator();
  });
  afterAll(async () => simulator?.close());
  beforeEach(() => simulator.reset());

  const post = (body: unknown, path = '/chat/completions') => fetch(`${simulator.url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify(body),
  });

  it('listens on loopback and answers scripted replies in order, recording each request', async () => {
    expect(new URL(simulator.url).hostname).toBe('127.0.0.1');
    simulator.script({ content: 'hello' }, { tool_calls: [{ name: 'a', arguments: '{}' }, { name: 'b', arguments: '{"x":1}' }] });
    const first = await (await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).json() as Record<string, any>;
    expect(first.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' });
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
    const second = await (await post({ model: 'm', messages: [] })).json() as Record<string, any>;
    expect(second.choices[0].finish_reason).toBe('tool_calls');
    expect(second.choices[0].message.tool_calls.map((c: any) => c.function.name)).toEqual(['a', 'b']);
    expect(simulator.received.map((r) => [r.path, r.authorization])).toEqual([['/v1/chat/completions', 'Bearer k'], ['/v1/chat/completions', 'Bearer k']]);
  });

  it('answers scripted HTTP errors in the OpenAI error shape, and 500 when the script has run out', async () => {
    simulator.script({ status: 429, message: 'slow down' });
    const limited = await post({ model: 'm' });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: { message: 'slow down', type: 'invalid_request_error' } });
    const empty = await post({ model: 'm' });
    expect(empty.status).toBe(500);
    expect(((await empty.json()) as any).error.message).toContain('no scripted reply left');
  });

  it('refuses streaming, other routes and bodies that are not JSON objects', async () => {
    expect((await post({ model: 'm', stream: true })).status).toBe(400);
    expect((await post({ model: 'm' }, '/embeddings')).status).toBe(404);
    expect((await post([1, 2])).status).toBe(400);
  });

  it('rejects a malformed script when it is queued, not when it is answered', () => {
    expect(() => simulator.script({ content: 1 } as never)).toThrow();
    expect(simulator.pending()).toBe(0);
  });

  it('asks the responder only when nothing is queued', async () => {
    const sandbox = await startModelSimulator({ respond: (request) => ({ content: `echo ${request.model}` }) });
    try {
      sandbox.script({ content: 'scripted' });
      const answer = async () => ((await (await fetch(`${sandbox.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm' }) })).json()) as any).choices[0].message.content;
      expect([await answer(), await answer()]).toEqual(['scripted', 'echo m']);
    } finally {
      await sandbox.close();
    }
  });

  it('loads fixture files and names the file and field of a broken one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-script-'));
    writeFileSync(join(dir, 'ok.json'), JSON.stringify({ replies: [{ content: '{}' }, { status: 503, message: 'down' }] }));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ replies: [{ tool_call: { name: 'respond' } }] }));
    expect(loadModelScript(join(dir, 'ok.json'))).toHaveLength(2);
    expect(() => loadModelScript(join(dir, 'bad.json'))).toThrow(/bad\.json: replies\.0/);
  });
});
