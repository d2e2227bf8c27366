import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultyFront, startWebhookRelay } from '../../../src/sandbox/fault-injector';
import { startTrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';

/** A gateway stand-in that records what reached it. */
async function receiver(): Promise<{ url: string; bodies: string[]; headers: Array<Record<string, unknown>>; close(): Promise<void> }> {
  const bodies: string[] = [];
  const headers: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => { bodies.push(body); headers.push(req.headers); res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, bodies, headers, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('fault injector: faults aimed at one client', () => {
  it('lets a request with the excluded credentials through and faults the next one', async () => {
    const tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['CH'] });
    closers.push(() => tracker.close());
    tracker.faults.enqueue({ kind: 'status', status: 503, match: { method: 'GET', path: '^/rest/api/3/myself$', unlessHeader: { name: 'authorization', pattern: '^Basic cGVyc29u' } } });
    const ask = (user: string) => fetch(`${tracker.url}/rest/api/3/myself`, { headers: { authorization: `Basic ${Buffer.from(`${user}:x`).toString('base64')}` } });
    expect((await ask('person')).status).toBe(200);
    expect(tracker.faults.pending()).toBe(1);
    expect((await ask('service')).status).toBe(503);
    expect(tracker.faults.applied).toEqual([{ method: 'GET', path: '/rest/api/3/myself', kind: 'status' }]);
  });
});

describe('webhook relay', () => {
  it('forwards byte for byte with the signature header, duplicates, drops and delays as drawn', async () => {
    const gateway = await receiver();
    closers.push(() => gateway.close());
    const fates = [0.95, 0.5, 0.8, 0.05, 0.95];
    const relay = await startWebhookRelay({ target: gateway.url, odds: { drop: 0.1, duplicate: 0.2, delay: 0.3, maxDelayMs: 1000 }, random: () => fates.shift() ?? 0.99 });
    closers.push(() => relay.close());
    const post = (n: number) => fetch(`${relay.url}/api/v1/webhooks/tracker`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature': `sha256=${n}` }, body: `{"n":${n}}` });
    // 1: forward (0.95). 2: delay (0.5, then 0.8 → 800 ms). 3: drop (0.05). 4: forward (0.95).
    expect((await post(1)).status).toBe(200);
    expect((await post(2)).status).toBe(202);
    expect((await post(3)).status).toBe(200);
    expect((await post(4)).status).toBe(200);
    await relay.drain();
    // The delayed delivery arrived after the one sent later: reordered. The dropped one never did.
    expect(gateway.bodies).toEqual(['{"n":1}', '{"n":4}', '{"n":2}']);
    expect(gateway.headers[0]!['x-hub-signature']).toBe('sha256=1');
    expect(relay.records.map((r) => r.fate)).toEqual(['forward', 'delay', 'drop', 'forward']);
    // 5: duplicate.
    relay.setOdds({ drop: 0, duplicate: 1, delay: 0, maxDelayMs: 0 });
    expect((await post(5)).status).toBe(200);
    await relay.drain();
    expect(gateway.bodies.filter((b) => b === '{"n":5}')).toHaveLength(2);
  });

  it('names each delivery\'s event as its provider does: GitHub\'s and GitLab\'s header, Jira\'s body', async () => {
    const gateway = await receiver();
    closers.push(() => gateway.close());
    const relay = await startWebhookRelay({ target: gateway.url, odds: { drop: 1, duplicate: 0, delay: 0, maxDelayMs: 0 }, random: () => 0 });
    closers.push(() => relay.close());
    const post = (path: string, headers: Record<string, string>, body: string) => fetch(`${relay.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    await post('/api/v1/webhooks/scmhost', { 'x-github-event': 'check_run' }, '{}');
    await post('/api/v1/webhooks/gitlab', { 'x-gitlab-event': 'Pipeline Hook' }, '{"object_kind":"pipeline"}');
    await post('/api/v1/webhooks/tracker', {}, '{"webhookEvent":"comment_created"}');
    expect(relay.records.map((r) => [r.path, r.event, r.fate])).toEqual([
      ['/api/v1/webhooks/scmhost', 'check_run', 'drop'], ['/api/v1/webhooks/gitlab', 'Pipeline Hook', 'drop'], ['/api/v1/webhooks/tracker', 'comment_created', 'drop'],
    ]);
    expect(gateway.bodies).toEqual([]);
  });
});

describe('faulty front', () => {
  it('passes requests through to a simulator without an injector, and applies the rules it is given', async () => {
    const upstream = await receiver();
    closers.push(() => upstream.close());
    const front = await startFaultyFront({ upstream: upstream.url, errorBody: (status, message) => ({ error: { message, code: status } }) });
    closers.push(() => front.close());
    const call = () => fetch(`${front.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m"}' });
    const passed = await call();
    expect(passed.status).toBe(200);
    expect(await passed.json()).toEqual({ ok: true });
    expect(upstream.bodies).toEqual(['{"model":"m"}']);
    front.faults.enqueue({ kind: 'rate-limit', retryAfterSeconds: 2, match: { path: '/chat/completions$' } });
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(upstream.bodies).toHaveLength(1);
  });
});
