import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText } from 'ai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unixSocketFetch } from '../../../src/agent/unix-socket-fetch';
import { proxyModel, runAgent } from '../../../src/agent/run-agent';
import type { ModelConnection } from '../../../src/config/model-configuration';
import { proxyUpstreamOf, ProxyUpstreamError, startModelProxy, type ModelProxy, type ModelProxyOptions } from '../../../src/containers/model-proxy';
import { DEFAULT_IMAGE_POLICY } from '../../../src/containers/proxy-content-policy';
import { estimateInputTokens } from '../../../src/containers/proxy-request-policy';
import { createLanguageModel } from '../../../src/models/language-model-factory';

/**
 * The model proxy in front of the backends the agent cannot speak to directly. Each backend is a local fake that
 * speaks that vendor's documented wire format (what the AI SDK provider the host uses sends and reads); the agent's
 * side is the real unix socket, called the way src/agent calls it. What is checked is what crosses each side.
 */

type Json = any;

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Json;
}

interface FakeVendor {
  url: string;
  received: Received[];
  script(...replies: Reply[]): void;
  reset(): void;
  close(): Promise<void>;
}

async function startFakeVendor(): Promise<FakeVendor> {
  const queue: Reply[] = [];
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
      const reply = queue.shift() ?? { status: 500, body: { error: { message: 'the fake vendor has no reply scripted' } } };
      res.statusCode = reply.status ?? 200;
      res.setHeader('content-type', 'application/json');
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    script: (...replies) => queue.push(...replies),
    reset: () => {
      queue.length = 0;
      received.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One backend's wire format, as far as these tests write and read it. */
interface Vendor {
  backend: 'anthropic' | 'cloud-ai';
  model: string;
  /** The credential variable and a value no generic pattern would redact: only the proxy's env can catch it. */
  keyVariable: string;
  keyHeader: string;
  connection(url: string): ModelConnection;
  path: string;
  modelOf(request: Received): string;
  maxTokensOf(request: Received): number;
  toolsOf(request: Received): Array<{ name: string; properties: unknown }>;
  toolCall(id: string, name: string, input: Json, usage: [number, number]): Reply;
  text(text: string, usage: [number, number]): Reply;
  rateLimited(retryAfter: string): Reply;
  /** The replayed call and the tool result of the second request. */
  toolTurnOf(request: Received): { call: { name: string; input: Json; signature?: string }; result: { name?: string; id?: string; content: string } };
  /** Whether the backend names its tool calls itself (Vertex does not: the AI SDK gives them ids). */
  keepsCallIds: boolean;
  /** The inline images of the request's last message, as the vendor reads them. */
  imagesOf(request: Received): Array<{ mediaType: string; data: string }>;
}

const toolResultText = (content: unknown) => (typeof content === 'string' ? content : (content as Array<{ text: string }>).map((part) => part.text).join(''));

const anthropic: Vendor = {
  backend: 'anthropic',
  model: 'claude-sonnet-4',
  keyVariable: 'ANTHROPIC_API_KEY',
  keyHeader: 'x-api-key',
  connection: (url) => ({ name: 'claude', backend: 'anthropic', base_url: `${url}/v1`, allowed_models: ['claude-sonnet-4'], capabilities: ['tools'], max_output_tokens: 300, legacy: false }),
  path: '/v1/messages',
  modelOf: (request) => request.body.model,
  maxTokensOf: (request) => request.body.max_tokens,
  toolsOf: (request) => request.body.tools.map((t: Json) => ({ name: t.name, properties: t.input_schema.properties })),
  toolCall: (id, name, input, [inputTokens, outputTokens]) => ({
    body: {
      id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4', stop_reason: 'tool_use', stop_sequence: null,
      content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_use', id, name, input }],
      usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    },
  }),
  text: (text, [inputTokens, outputTokens]) => ({
    body: {
      id: 'msg_02', type: 'message', role: 'assistant', model: 'claude-sonnet-4', stop_reason: 'end_turn', stop_sequence: null,
      content: [{ type: 'text', text }], usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    },
  }),
  rateLimited: (retryAfter) => ({
    status: 429, headers: { 'retry-after': retryAfter },
    body: { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization' } },
  }),
  toolTurnOf: (request) => {
    const [assistant, user] = request.body.messages.slice(-2);
    const use = assistant.content.find((block: Json) => block.type === 'tool_use');
    const result = user.content.find((block: Json) => block.type === 'tool_result');
    return { call: { name: use.name, input: use.input }, result: { id: result.tool_use_id, content: toolResultText(result.content) } };
  },
  keepsCallIds: true,
  imagesOf: (request) => request.body.messages.at(-1).content.filter((block: Json) => block.type === 'image')
    .map((block: Json) => ({ mediaType: block.source.type === 'base64' ? block.source.media_type : `not inline: ${block.source.type}`, data: block.source.data })),
};

const VERTEX_ROOT = '/v1/projects/acme-ai/locations/europe-west4/publishers/google';
const vertex: Vendor = {
  backend: 'cloud-ai',
  model: 'gemini-2.5-pro',
  keyVariable: 'GOOGLE_VERTEX_API_KEY',
  keyHeader: 'x-goog-api-key',
  connection: (url) => ({
    name: 'vertex', backend: 'cloud-ai', project: 'acme-ai', location: 'europe-west4', base_url: `${url}${VERTEX_ROOT}`,
    allowed_models: ['gemini-2.5-pro'], capabilities: ['tools'], max_output_tokens: 300, legacy: false,
  }),
  path: `${VERTEX_ROOT}/models/gemini-2.5-pro:generateContent`,
  modelOf: (request) => /\/models\/([^:]+):generateContent$/.exec(request.path)![1]!,
  maxTokensOf: (request) => request.body.generationConfig.maxOutputTokens,
  toolsOf: (request) => request.body.tools[0].functionDeclarations.map((d: Json) => ({ name: d.name, properties: d.parameters.properties })),
  // Three of the output tokens are thinking, which Vertex counts apart and bills as output.
  toolCall: (id, name, input, [inputTokens, outputTokens]) => ({
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text: 'Reading it.' }, { functionCall: { name, args: input }, thoughtSignature: `signature-of-${id}` }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: inputTokens, candidatesTokenCount: outputTokens - 3, thoughtsTokenCount: 3, totalTokenCount: inputTokens + outputTokens },
    },
  }),
  text: (text, [inputTokens, outputTokens]) => ({
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens },
    },
  }),
  rateLimited: (retryAfter) => ({
    status: 429, headers: { 'retry-after': retryAfter },
    body: { error: { code: 429, message: 'Resource exhausted. Please try again later.', status: 'RESOURCE_EXHAUSTED' } },
  }),
  toolTurnOf: (request) => {
    const [model, user] = request.body.contents.slice(-2);
    const call = model.parts.find((part: Json) => part.functionCall);
    const response = user.parts.find((part: Json) => part.functionResponse).functionResponse;
    return {
      call: { name: call.functionCall.name, input: call.functionCall.args, signature: call.thoughtSignature },
      result: { name: response.name, content: String(response.response.content) },
    };
  },
  keepsCallIds: false,
  imagesOf: (request) => request.body.contents.at(-1).parts.filter((part: Json) => part.inlineData || part.fileData)
    .map((part: Json) => (part.inlineData ? { mediaType: part.inlineData.mimeType, data: part.inlineData.data } : { mediaType: 'not inline: fileData', data: '' })),
};

/** A 1x1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The chat-completions request the agent's AI SDK provider sends (src/agent/run-agent.ts through proxyModel). */
const READ_FILE = { type: 'function', function: { name: 'read_file', description: 'Read a file of the workspace', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } } };
const firstTurn = (model: string, content = 'What does a.txt say?') => ({
  model, max_tokens: 4096, tool_choice: 'auto', tools: [READ_FILE],
  messages: [{ role: 'system', content: 'You work in a git checkout.' }, { role: 'user', content }],
});

function call(socketPath: string, body: unknown): Promise<Response> {
  return unixSocketFetch(socketPath)('http://model-proxy/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Everything the container's side can see of an answer: status, headers and body. */
async function seen(answer: Response): Promise<{ status: number; headers: Record<string, string>; text: string; json: Json }> {
  const text = await answer.text();
  return { status: answer.status, headers: Object.fromEntries(answer.headers.entries()), text, json: JSON.parse(text) };
}

describe.each([anthropic, vertex])('the model proxy in front of $backend', (vendor) => {
  const key = `${vendor.backend}-canary-${randomBytes(12).toString('hex')}`;
  const env = { [vendor.keyVariable]: key };
  let fake: FakeVendor;
  let dir: string;
  let proxy: ModelProxy | undefined;
  let sockets = 0;

  beforeAll(async () => {
    fake = await startFakeVendor();
    dir = mkdtempSync(join(tmpdir(), 'proxy-backends-'));
  });
  beforeEach(() => fake.reset());
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(options: Partial<ModelProxyOptions> = {}): Promise<ModelProxy> {
    sockets += 1;
    proxy = await startModelProxy({ socketPath: join(dir, `${sockets}.sock`), upstream: proxyUpstreamOf(vendor.connection(fake.url), vendor.model, env), tokenBudget: null, ...options });
    return proxy;
  }

  it('translates a tool loop both ways and charges the usage the backend reported', async () => {
    const proxy = await start();
    fake.script(vendor.toolCall('toolu_01', 'read_file', { path: 'a.txt' }, [40, 12]), vendor.text('a.txt says hello', [70, 9]));

    const first = await seen(await call(proxy.socketPath, firstTurn(vendor.model)));
    const asked = fake.received[0]!;
    expect(asked.path).toBe(vendor.path);
    expect(vendor.modelOf(asked)).toBe(vendor.model);
    expect(asked.headers[vendor.keyHeader]).toBe(key);
    // The grant is the connection's cap (300), not the 4096 the agent asked for.
    expect(vendor.maxTokensOf(asked)).toBe(300);
    expect(vendor.toolsOf(asked)).toEqual([{ name: 'read_file', properties: { path: { type: 'string' } } }]);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      object: 'chat.completion', model: vendor.model,
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Reading it.', tool_calls: [{ type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] } }],
      usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
    });
    const callId: string = first.json.choices[0].message.tool_calls[0].id;
    if (vendor.keepsCallIds) expect(callId).toBe('toolu_01');
    else expect(callId).toMatch(/\S/);

    // The agent's next turn: its history, the model's tool call and the tool's output.
    const next = firstTurn(vendor.model);
    next.messages.push(
      { role: 'assistant', content: 'Reading it.', tool_calls: [{ id: callId, type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] } as Json,
      { role: 'tool', tool_call_id: callId, content: 'hello' } as Json,
    );
    const second = await seen(await call(proxy.socketPath, next));
    const turn = vendor.toolTurnOf(fake.received[1]!);
    expect(turn.call).toMatchObject({ name: 'read_file', input: { path: 'a.txt' } });
    expect(turn.result).toMatchObject({ content: 'hello', ...(vendor.keepsCallIds ? { id: 'toolu_01' } : { name: 'read_file' }) });
    // Vertex's thought signature cannot travel in chat completions: the proxy kept it and put it back.
    if (vendor.backend === 'cloud-ai') expect(turn.call.signature).toBe('signature-of-toolu_01');
    expect(second.json).toMatchObject({ choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: 'a.txt says hello' } }], usage: { prompt_tokens: 70, completion_tokens: 9 } });
    expect(second.json.choices[0].message.tool_calls).toBeUndefined();

    expect(proxy.usage()).toEqual({ input_tokens: 110, output_tokens: 21 });
    expect(proxy.calls.map((c) => [c.status, c.input_tokens, c.output_tokens, c.usage_estimated])).toEqual([[200, 40, 12, undefined], [200, 70, 9, undefined]]);
    // The credential went upstream only: nothing the container got back holds it.
    for (const answer of [first, second]) expect(JSON.stringify(answer)).not.toContain(key);
  });

  it('refuses another model and an over-budget call before either reaches the backend', async () => {
    const body = firstTurn(vendor.model);
    // The estimate holds the vendor's tool prompt too; the budget leaves room for 60 tokens of answer beside it.
    const estimate = estimateInputTokens({ model: body.model, messages: body.messages, tool_choice: body.tool_choice, tools: body.tools });
    const budget = estimate + 60;
    const proxy = await start({ tokenBudget: budget });
    const other = await seen(await call(proxy.socketPath, firstTurn('gpt-4o')));
    expect(other.status).toBe(403);
    expect(other.json.error.type).toBe('permission_error');

    fake.script(vendor.text('ok', [estimate, 20]));
    expect((await call(proxy.socketPath, body)).status).toBe(200);
    // Only what the budget still holds is granted.
    expect(vendor.maxTokensOf(fake.received[0]!)).toBe(60);

    const over = await seen(await call(proxy.socketPath, firstTurn(vendor.model, 'x'.repeat(400))));
    expect(over.status).toBe(429);
    expect(over.json.error).toMatchObject({ type: 'budget_exhausted', message: expect.stringContaining(`token budget of ${budget}`) });
    expect(fake.received).toHaveLength(1);
    expect(proxy.usage()).toEqual({ input_tokens: estimate, output_tokens: 20 });
    expect(proxy.calls.map((c) => c.status)).toEqual([403, 200, 429]);
  });

  it("passes a rate limit on with the backend's status and retry-after, once, and charges nothing", async () => {
    const proxy = await start({ tokenBudget: 10_000 });
    fake.script(vendor.rateLimited('7'));
    const answer = await seen(await call(proxy.socketPath, firstTurn(vendor.model)));
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('7');
    expect(answer.json.error).toMatchObject({ type: 'rate_limit_exceeded', message: expect.stringMatching(/rate limit|Resource exhausted/) });
    // No retry at the proxy: the agent decides, after the wait the backend asked for.
    expect(fake.received).toHaveLength(1);
    expect(proxy.usage()).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(proxy.calls).toHaveLength(1);
    expect(proxy.calls[0]).toMatchObject({ status: 429 });
    // The station takes a 429 with this phrase for a spent budget; a provider's rate limit must not read as one.
    expect(proxy.calls[0]!.error).not.toContain('token budget');
  });

  it('refuses what it cannot translate, and bounds the answer it reads back', async () => {
    const proxy = await start({ limits: { maxResponseBytes: 600 } });
    const image = firstTurn(vendor.model);
    image.messages[1] = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] } as Json;
    const refused = await seen(await call(proxy.socketPath, image));
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toContain('text parts only');
    expect(fake.received).toHaveLength(0);

    fake.script(vendor.text('y'.repeat(2000), [10, 10]));
    const cut = await seen(await call(proxy.socketPath, firstTurn(vendor.model)));
    expect(cut.status).toBe(502);
    expect(cut.json.error.message).toContain("over the model proxy's limit of 600 bytes");
    // The model may have worked, so the call is charged what it reserved.
    expect(proxy.calls.at(-1)).toMatchObject({ status: 502, usage_estimated: true });
  });

  it('with images allowed, hands the vendor an inline image and reserves its worst case; a file part, audio or a remote image never reach it', async () => {
    const withParts = (...parts: Json[]) => {
      const body = firstTurn(vendor.model);
      body.messages[1] = { role: 'user', content: [{ type: 'text', text: 'What is in it?' }, ...parts] } as Json;
      return body;
    };
    const body = withParts({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } });
    const { max_tokens: _, ...prompt } = body;
    const estimate = estimateInputTokens(prompt, 1600);
    expect(estimate).toBeGreaterThan(1600);
    // Room for 50 tokens of answer once the image is held at its rate: counted as its bytes, it would leave 1,600 more.
    const proxy = await start({ tokenBudget: estimate + 50, content: { images: { ...DEFAULT_IMAGE_POLICY, tokensPerImage: 1600 } } });
    for (const part of [
      { type: 'file', file: { file_id: 'file-of-the-operator' } },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
      { type: 'image_url', image_url: { url: 'https://203.0.113.7/i.png' } },
    ]) {
      const refused = await seen(await call(proxy.socketPath, withParts(part)));
      expect(refused.status).toBe(400);
      expect(refused.json.error.message).toContain('messages[1].content[1]');
    }
    expect(fake.received).toHaveLength(0);

    fake.script(vendor.text('a red pixel', [1700, 5]));
    expect((await seen(await call(proxy.socketPath, body))).status).toBe(200);
    expect(vendor.imagesOf(fake.received[0]!)).toEqual([{ mediaType: 'image/png', data: PNG }]);
    expect(vendor.maxTokensOf(fake.received[0]!)).toBe(50);
  });
});

describe.each([anthropic, vertex])('the agent against $backend through the proxy', (vendor) => {
  const key = `${vendor.backend}-canary-${randomBytes(12).toString('hex')}`;
  let fake: FakeVendor;
  let root: string;

  beforeAll(async () => {
    fake = await startFakeVendor();
    root = mkdtempSync(join(tmpdir(), 'proxy-agent-'));
  });
  afterAll(async () => {
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Every regular file under a folder, with its text (the socket and other specials are skipped). */
  function filesUnder(dir: string): Array<[string, string]> {
    return readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .map((path) => [path, readFileSync(path, 'utf8')]);
  }

  it("runs the real agent's tool loop, and the credential never reaches the run folder or the workspace, even when the backend echoes it", async () => {
    const workspace = join(root, 'workspace');
    const runDir = join(root, 'run');
    mkdirSync(workspace);
    mkdirSync(runDir);
    execFileSync('git', ['init', '-q', workspace]);
    writeFileSync(join(workspace, 'a.txt'), 'hello\n');
    writeFileSync(join(runDir, 'task.json'), '{}');
    const proxy = await startModelProxy({ socketPath: join(runDir, 'model.sock'), upstream: proxyUpstreamOf(vendor.connection(fake.url), vendor.model, { [vendor.keyVariable]: key }), tokenBudget: 50_000 });
    try {
      // A hostile or broken backend repeats the credential in a tool call and in its text.
      fake.script(
        vendor.toolCall('toolu_01', 'write_file', { path: 'echo.txt', content: `the key is ${key}` }, [400, 30]),
        vendor.text(`Done. The key was ${key}`, [500, 10]),
      );
      const result = await runAgent({
        step: 'implement', ticket_key: 'A-1', skill: { name: 's', body: 'Do the task.' }, task: 'Write echo.txt', outputs: [], model: vendor.model,
        max_steps: 5, max_tokens: 50_000, max_output_tokens: 300, command_timeout_seconds: 5,
      }, { workspace, runDir }, proxyModel(join(runDir, 'model.sock'), vendor.model));

      expect(result).toMatchObject({ status: 'completed', steps: 2, tool_calls: 1, usage: { input_tokens: 900, output_tokens: 40 } });
      expect(readFileSync(join(workspace, 'echo.txt'), 'utf8')).toBe('the key is [REDACTED]');
      expect(fake.received.map((r) => r.headers[vendor.keyHeader])).toEqual([key, key]);
      expect(proxy.usage()).toEqual({ input_tokens: 900, output_tokens: 40 });
    } finally {
      await proxy.close();
    }
    const written = [...filesUnder(runDir), ...filesUnder(workspace)];
    expect(written.map(([path]) => path)).toContain(join(runDir, 'transcript.jsonl'));
    expect(written.filter(([, text]) => text.includes(key)).map(([path]) => path)).toEqual([]);
  });
});

describe('proxyUpstreamOf for backends the proxy translates', () => {
  const base = { allowed_models: ['m'], capabilities: ['tools'], max_output_tokens: 100, legacy: false } as const;

  it('checks what the provider needs before any container starts, and holds no credential in its fields', () => {
    expect(() => proxyUpstreamOf({ ...base, name: 'c', backend: 'anthropic', capabilities: ['tools'], allowed_models: ['m'] }, 'm', {})).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => proxyUpstreamOf({ ...base, name: 'v', backend: 'cloud-ai', capabilities: ['tools'], allowed_models: ['m'] }, 'm', {})).toThrow(ProxyUpstreamError);
    // Application-default credentials: the project and location make the address.
    expect(proxyUpstreamOf({ ...base, name: 'v', backend: 'cloud-ai', project: 'p', location: 'l', capabilities: ['tools'], allowed_models: ['m'] }, 'm', {})).toMatchObject({ backend: 'cloud-ai', model: 'm', maxOutputTokens: 100 });
    const upstream = proxyUpstreamOf({ ...base, name: 'c', backend: 'anthropic', capabilities: ['tools'], allowed_models: ['m'] }, 'm', { ANTHROPIC_API_KEY: 'anthropic-canary-value' });
    expect(JSON.stringify(upstream)).not.toContain('anthropic-canary-value');
    expect(upstream).toMatchObject({ backend: 'anthropic', model: 'm', maxOutputTokens: 100 });
  });

  it("never takes the legacy connection's base_url (OPENAI_BASE_URL) as the Anthropic address", async () => {
    const urls: string[] = [];
    const spy = (async (input: string | URL | Request) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return new Response('{"type":"error","error":{"type":"api_error","message":"no"}}', { status: 500 });
    }) as typeof fetch;
    const legacy: ModelConnection = { ...base, name: 'legacy', backend: 'anthropic', base_url: 'http://127.0.0.1:9/v1', capabilities: ['tools'], allowed_models: ['m'], legacy: true };
    const named: ModelConnection = { ...legacy, name: 'claude', base_url: 'http://127.0.0.1:9/anthropic/v1/', legacy: false };
    for (const connection of [legacy, named]) {
      await generateText({ model: createLanguageModel(connection, 'm', { ANTHROPIC_API_KEY: 'k' }, { fetch: spy }), prompt: 'hi', maxRetries: 0 }).catch(() => undefined);
    }
    expect(urls).toEqual(['https://api.anthropic.com/v1/messages', 'http://127.0.0.1:9/anthropic/v1/messages']);
  });
});
