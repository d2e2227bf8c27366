import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelProxy, type ModelProxy, type ModelProxyOptions } from '../../../src/containers/model-proxy';
import { DEFAULT_IMAGE_POLICY } from '../../../src/containers/proxy-content-policy';
import { estimateInputTokens } from '../../../src/containers/proxy-request-policy';

/**
 * Attacks on the model proxy as the container would make them: over its real unix socket, against a local upstream
 * this file controls and watches (what arrives, how many at once, how much is read back).
 */

type Body = Record<string, any>;

interface Upstream {
  url: string;
  /** Every request body that reached the model, parsed. */
  received: Body[];
  inFlight: number;
  maxInFlight: number;
  /** Bytes the model wrote back (for the runaway-answer attack). */
  bytesSent: number;
  answer: (body: Body, res: ServerResponse) => Promise<void> | void;
  close(): Promise<void>;
}

/** The worst case for a budget: the model reports the proxy's input estimate and uses every output token granted. */
function spendAll(body: Body, res: ServerResponse): void {
  reply(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: estimateInputTokens(body), completion_tokens: body.max_tokens } });
}

function reply(res: ServerResponse, status: number, value: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(value));
}

async function startUpstream(): Promise<Upstream> {
  const upstream = { received: [], inFlight: 0, maxInFlight: 0, bytesSent: 0, answer: spendAll } as unknown as Upstream;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    upstream.inFlight += 1;
    upstream.maxInFlight = Math.max(upstream.maxInFlight, upstream.inFlight);
    res.on('close', () => { upstream.inFlight -= 1; });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
      upstream.received.push(body);
      void upstream.answer(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  upstream.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}

interface Answer {
  status: number;
  json: any;
}

function post(socketPath: string, body: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: '/v1/chat/completions', method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = text;
        try {
          json = JSON.parse(text);
        } catch { /* kept as text */ }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/**
 * Streams `total` bytes at the proxy from one reused buffer, honouring backpressure, so the client itself holds
 * almost nothing; stops when the proxy closes the connection. Returns the status (if an answer came) and how much
 * the proxy let the client write.
 */
function sendHugeBody(socketPath: string, total: number, declareLength: boolean): Promise<{ status?: number; written: number; message?: string }> {
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  return new Promise((resolve) => {
    let status: number | undefined;
    let message: string | undefined;
    let written = 0;
    let closed = false;
    let wake: (() => void) | undefined;
    const headers = declareLength ? { 'content-type': 'application/json', 'content-length': String(total) } : { 'content-type': 'application/json' };
    const req = request({ socketPath, path: '/v1/chat/completions', method: 'POST', agent: false, headers }, (res) => {
      status = res.statusCode;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => { message = Buffer.concat(chunks).toString('utf8'); });
    });
    req.on('error', () => { /* the proxy hangs up on the rest of the body: expected */ });
    req.on('drain', () => wake?.());
    req.on('close', () => {
      closed = true;
      wake?.();
      setTimeout(() => resolve({ status, written, message }), 50);
    });
    void (async () => {
      while (!closed && written < total) {
        const ok = req.write(chunk);
        written += chunk.length;
        if (!ok && !closed) await new Promise<void>((r) => { wake = r; });
      }
      if (!closed) req.end();
    })();
  });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const retained = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const MiB = 1024 * 1024;
const ask = (content: string, extra: Body = {}) => ({ model: 'm', messages: [{ role: 'user', content }], ...extra });

describe('the model proxy under attack from its container', () => {
  let upstream: Upstream;
  let dir: string;
  let proxies: ModelProxy[] = [];
  let socketCount = 0;

  beforeAll(async () => {
    upstream = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'proxy-limits-'));
    // Other accounts must reach the socket's folder for the ownership test; the socket's own mode is what guards it.
    chmodSync(dir, 0o711);
  });
  beforeEach(() => {
    upstream.received.length = 0;
    upstream.maxInFlight = 0;
    upstream.bytesSent = 0;
    upstream.answer = spendAll;
  });
  afterEach(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    proxies = [];
  });
  afterAll(async () => {
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(options: Partial<ModelProxyOptions> = {}): Promise<ModelProxy> {
    socketCount += 1;
    const proxy = await startModelProxy({
      socketPath: join(dir, `m${socketCount}.sock`), upstream: { baseUrl: upstream.url, apiKey: 'sk-test-held-by-host', model: 'm', maxOutputTokens: 512 }, tokenBudget: null, ...options,
    });
    proxies.push(proxy);
    return proxy;
  }

  it('20 parallel calls against a 100-token budget: what the model is granted and what is spent never exceed 100', async () => {
    upstream.answer = async (body, res) => {
      await new Promise((r) => setTimeout(r, 100));
      spendAll(body, res);
    };
    const proxy = await start({ tokenBudget: 100, limits: { maxConcurrentCalls: 20 } });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(proxy.socketPath, ask(`call ${i}`, { max_tokens: 50 }))));

    const granted = upstream.received.reduce((sum, body) => sum + estimateInputTokens(body) + (body.max_tokens as number), 0);
    expect(upstream.received.length).toBeGreaterThan(0);
    expect(upstream.received.length).toBeLessThan(20);
    expect(granted).toBeLessThanOrEqual(100);
    const { input_tokens, output_tokens } = proxy.usage();
    expect(input_tokens + output_tokens).toBe(granted);

    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(upstream.received.length);
    expect(refused).toHaveLength(20 - upstream.received.length);
    for (const answer of refused) expect(answer.json.error).toMatchObject({ type: 'budget_exhausted', message: expect.stringContaining('token budget of 100') });
    // The station finds the exhausted budget by this shape.
    expect(proxy.calls.filter((c) => c.status === 429 && c.error?.includes('token budget'))).toHaveLength(refused.length);
  });

  it('settles a call to the usage the model reported, so a finished call frees what it did not use', async () => {
    upstream.answer = (_body, res) => reply(res, 200, { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });
    const proxy = await start({ tokenBudget: 100 });
    for (let i = 0; i < 3; i += 1) expect((await post(proxy.socketPath, ask('hi', { max_tokens: 50 }))).status).toBe(200);
    expect(upstream.received.map((b) => b.max_tokens)).toEqual([50, 50, 50]);
    expect(proxy.usage()).toEqual({ input_tokens: 3, output_tokens: 3 });
  });

  it('keeps the reservation spent when the model reports no usage, and charges nothing for an error answer', async () => {
    upstream.answer = (_body, res) => reply(res, 200, { choices: [] });
    const proxy = await start({ tokenBudget: 1000 });
    expect((await post(proxy.socketPath, ask('hi', { max_tokens: 40 }))).status).toBe(200);
    const reserved = estimateInputTokens(upstream.received[0]!) + 40;
    expect(proxy.usage().input_tokens + proxy.usage().output_tokens).toBe(reserved);
    expect(proxy.calls[0]).toMatchObject({ status: 200, usage_estimated: true });

    upstream.answer = (_body, res) => reply(res, 429, { error: { message: 'provider rate limit', type: 'rate_limit' } });
    expect((await post(proxy.socketPath, ask('hi', { max_tokens: 40 }))).status).toBe(429);
    expect(proxy.usage().input_tokens + proxy.usage().output_tokens).toBe(reserved);
    expect(proxy.calls[1]).toMatchObject({ status: 429, error: expect.stringContaining('provider rate limit') });
    expect(proxy.calls[1]!.error).not.toContain('token budget');
  });

  it('charges a call still in flight at close its reservation before usage is read', async () => {
    upstream.answer = () => new Promise(() => { /* never answers */ });
    const proxy = await start({ tokenBudget: 1000 });
    const pending = post(proxy.socketPath, ask('hi', { max_tokens: 30 })).catch(() => undefined);
    await waitFor(() => upstream.received.length === 1, 'the call to reach the model');
    await proxy.close();
    expect(proxy.usage().input_tokens + proxy.usage().output_tokens).toBe(estimateInputTokens(upstream.received[0]!) + 30);
    await pending;
  });

  it.each([false, true])('refuses a 64 MiB body with 413 without reading it (content-length declared: %s)', async (declareLength) => {
    const proxy = await start();
    const before = retained();
    const result = await sendHugeBody(proxy.socketPath, 64 * MiB, declareLength);
    const grown = retained() - before;

    expect(result.status).toBe(413);
    expect(result.message).toContain("over the model proxy's limit of 4194304 bytes");
    // The proxy stopped reading at its 4 MiB limit: the client could not push the rest in.
    expect(result.written).toBeLessThan(16 * MiB);
    expect(grown).toBeLessThan(24 * MiB);
    expect(upstream.received).toHaveLength(0);
    expect(proxy.calls).toEqual([expect.objectContaining({ status: 413, error: expect.stringContaining('4194304 bytes') })]);
  });

  it('keeps n: 5, models, route, streaming and unknown message fields away from the model', async () => {
    const proxy = await start();
    const attacks: Array<[Body, string]> = [
      [ask('hi', { n: 5 }), 'n: 5'],
      [ask('hi', { models: ['m', 'expensive-model'] }), 'models'],
      [ask('hi', { route: 'fallback' }), 'route'],
      [ask('hi', { stream: true }), 'non-streaming'],
      [ask('hi', { logit_bias: { 1: 100 }, provider: { order: ['x'] } }), 'logit_bias, provider'],
      [{ model: 'm', messages: [{ role: 'user', content: 'hi', cache_control: { type: 'ephemeral' } }] }, 'cache_control'],
      [{ model: 'm', messages: 'hi' }, 'messages must be'],
      [{ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: -1 }, 'max_tokens'],
    ];
    for (const [body, named] of attacks) {
      const answer = await post(proxy.socketPath, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.message).toContain(named);
    }
    expect(upstream.received).toHaveLength(0);
    expect(proxy.calls.map((c) => c.status)).toEqual(attacks.map(() => 400));

    const ok = await post(proxy.socketPath, ask('hi', { n: 1, stream: false, temperature: 0, max_tokens: 5 }));
    expect(ok.status).toBe(200);
    expect(Object.keys(upstream.received[0]!).sort()).toEqual(['max_tokens', 'messages', 'model', 'temperature']);
  });

  describe('content parts the vendor bills other than as text (issue 41: 500 images billed 19 times the budget)', () => {
    const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const imageParts = (count: number, url = `data:image/png;base64,${PNG}`) => Array.from({ length: count }, () => ({ type: 'image_url', image_url: { url } }));
    const withParts = (...parts: unknown[]) => ({ model: 'm', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'text', text: 'describe these' }, ...parts] }] });

    it('refuses the 500-image request of the attack when the run allows no images, before anything is reserved or sent', async () => {
      const proxy = await start({ tokenBudget: 20_000 });
      const answer = await post(proxy.socketPath, withParts(...imageParts(500, 'https://203.0.113.7/big.png')));
      expect(answer.status).toBe(400);
      expect(answer.json.error).toEqual({ type: 'invalid_request_error', message: 'messages[0].content[1] is a part of type "image_url", which the model proxy refuses: user messages carry text parts only (images are not allowed for this run)' });
      expect(upstream.received).toHaveLength(0);
      expect(proxy.usage()).toEqual({ input_tokens: 0, output_tokens: 0 });
      // The budget is whole: a text call can still have all of it but its input.
      expect((await post(proxy.socketPath, ask('hi', { max_tokens: 50 }))).status).toBe(200);
    });

    it('with 500 images allowed, counts them at the per-image rate and the 20,000-token budget refuses the call', async () => {
      const proxy = await start({ tokenBudget: 20_000, limits: { maxInputTokens: 10 ** 9 }, content: { images: { ...DEFAULT_IMAGE_POLICY, maxImagesPerRequest: 500, tokensPerImage: 765 } } });
      const answer = await post(proxy.socketPath, withParts(...imageParts(500)));
      expect(answer.status).toBe(429);
      // 500 × 765 = 382,500: what the vendor billed the attack, now in the estimate before the call.
      const estimate = Number(/its input of about (\d+) tokens/.exec(answer.json.error.message)?.[1]);
      expect(estimate).toBeGreaterThanOrEqual(500 * 765);
      expect(answer.json.error.message).toContain('token budget of 20000 cannot hold this call');
      expect(upstream.received).toHaveLength(0);
    });

    it('with images allowed, forwards a few inline images and reserves each at the rate, whatever its size on the wire', async () => {
      const budget = 3 * 1600 + 300;
      const proxy = await start({ tokenBudget: budget, content: { images: { ...DEFAULT_IMAGE_POLICY, tokensPerImage: 1600 } } });
      expect((await post(proxy.socketPath, { ...withParts(...imageParts(3)), max_tokens: 512 })).status).toBe(200);
      const forwarded = upstream.received[0]!;
      expect(forwarded.messages[0].content).toHaveLength(4);
      // The grant is what the budget leaves once the three images are held at 1,600 each beside the text.
      expect(forwarded.max_tokens).toBe(budget - estimateInputTokens(forwarded, 1600));
      expect(forwarded.max_tokens).toBeLessThan(300);
    });

    it('refuses file parts, audio, unknown part types and remote image URLs, with images allowed or not', async () => {
      for (const content of [undefined, { images: DEFAULT_IMAGE_POLICY }]) {
        const proxy = await start({ tokenBudget: 20_000, ...(content ? { content } : {}) });
        const attacks: Array<[unknown, string]> = [
          [{ type: 'file', file: { file_id: 'file-of-the-operator-account' } }, 'part of type "file"'],
          [{ type: 'file', file: { file_data: 'data:application/pdf;base64,AAAA', filename: 'a.pdf' } }, 'part of type "file"'],
          [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'mp3' } }, 'part of type "input_audio"'],
          [{ type: 'refusal', refusal: 'no' }, 'part of type "refusal"'],
          [{ type: 'document', source: { type: 'url', url: 'https://203.0.113.7/a.pdf' } }, 'part of type "document"'],
          [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }, 'unknown field cache_control'],
          [{ type: 'image_url', image_url: { url: 'http://169.254.169.254/latest/meta-data/' } }, content ? 'would have the vendor fetch it' : 'images are not allowed'],
        ];
        for (const [part, named] of attacks) {
          const answer = await post(proxy.socketPath, withParts(part));
          expect(answer.status, JSON.stringify(part)).toBe(400);
          expect(answer.json.error.message).toContain('messages[0].content[1]');
          expect(answer.json.error.message).toContain(named);
        }
        expect(proxy.usage()).toEqual({ input_tokens: 0, output_tokens: 0 });
      }
      expect(upstream.received).toHaveLength(0);
    });
  });

  it('refuses calls beyond the concurrency limit at once, and takes new ones when a slot frees', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    upstream.answer = async (body, res) => {
      await gate;
      spendAll(body, res);
    };
    const proxy = await start();
    const pending = Array.from({ length: 5 }, (_, i) => post(proxy.socketPath, ask(`call ${i}`)));
    await waitFor(() => upstream.received.length === 2 && proxy.calls.filter((c) => c.status === 429).length === 3, 'two calls upstream and three refused');
    release();
    const answers = await Promise.all(pending);

    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429, 429, 429]);
    for (const a of answers.filter((x) => x.status === 429)) expect(a.json.error).toMatchObject({ type: 'concurrency_limit', message: expect.stringContaining('at most 2 calls at a time') });
    expect(upstream.maxInFlight).toBe(2);
    expect((await post(proxy.socketPath, ask('after'))).status).toBe(200);
    expect(upstream.received).toHaveLength(3);
  });

  it('refuses an input over the per-call cap (413) or over what is left of the budget (429), before the model sees it', async () => {
    const proxy = await start();
    const huge = await post(proxy.socketPath, ask('x'.repeat(900_000)));
    expect(huge.status).toBe(413);
    expect(huge.json.error).toMatchObject({ type: 'input_too_large', message: expect.stringContaining('per-call cap of 200000 tokens') });

    const budgeted = await start({ tokenBudget: 1000 });
    const over = await post(budgeted.socketPath, ask('x'.repeat(8000)));
    expect(over.status).toBe(429);
    expect(over.json.error).toMatchObject({ type: 'budget_exhausted', message: expect.stringContaining('token budget of 1000 cannot hold this call') });
    expect(upstream.received).toHaveLength(0);
    expect(budgeted.calls).toEqual([expect.objectContaining({ status: 429, error: expect.stringContaining('token budget') })]);
  });

  it('cuts off a runaway answer from the model at the response limit', async () => {
    upstream.answer = (_body, res) => {
      const chunk = Buffer.alloc(MiB, 'a');
      res.setHeader('content-type', 'application/json');
      const pump = () => {
        while (upstream.bytesSent < 64 * MiB && !res.destroyed) {
          upstream.bytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const proxy = await start({ tokenBudget: 10_000 });
    const before = retained();
    const answer = await post(proxy.socketPath, ask('hi', { max_tokens: 100 }));
    const grown = retained() - before;

    expect(answer.status).toBe(502);
    expect(answer.json.error.message).toContain("over the model proxy's limit of 8388608 bytes");
    expect(upstream.bytesSent).toBeLessThan(32 * MiB);
    expect(grown).toBeLessThan(40 * MiB);
    expect(proxy.calls[0]).toMatchObject({ status: 502, usage_estimated: true });
  });

  it('gives up on a body that arrives too slowly', async () => {
    const proxy = await start({ limits: { bodyTimeoutMs: 300 } });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ socketPath: proxy.socketPath, path: '/v1/chat/completions', method: 'POST', agent: false, headers: { 'content-length': '1000' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"model":');
    });
    expect(status).toBe(408);
    expect(upstream.received).toHaveLength(0);
  });

  it('keeps the socket the worker\'s own, mode 0600, when no owner is given', async () => {
    const proxy = await start();
    expect(statSync(proxy.socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(proxy.socketPath).uid).toBe(process.getuid!());
  });

  const isRoot = process.getuid?.() === 0;
  const tryConnect = (socketPath: string, uid: number) => new Promise<string>((resolve) => {
    const script = `require('http').request({ socketPath: ${JSON.stringify(socketPath)}, path: '/v1/chat/completions', method: 'GET' }, (r) => { console.log(r.statusCode); r.resume(); }).on('error', (e) => console.log(e.code)).end()`;
    execFile(process.execPath, ['-e', script], { uid, gid: uid, cwd: '/', env: { PATH: process.env.PATH } }, (_error, stdout) => resolve(stdout.trim()));
  });

  // CI and the development machines run as root; a non-root worker cannot chown, and must say so instead.
  it('hands the socket to the container account only (root worker), or refuses to start saying why (other workers)', async () => {
    if (!isRoot) {
      await expect(start({ socketOwner: { uid: 54321, gid: 54321 } })).rejects.toThrow(/needs a worker running as root/);
      return;
    }
    const proxy = await start({ socketOwner: { uid: 54321, gid: 54321 } });
    const stat = statSync(proxy.socketPath);
    expect({ uid: stat.uid, gid: stat.gid, mode: stat.mode & 0o777 }).toEqual({ uid: 54321, gid: 54321, mode: 0o600 });
    expect(await tryConnect(proxy.socketPath, 54321)).toBe('404');
    expect(await tryConnect(proxy.socketPath, 54322)).toBe('EACCES');
  });
});
