import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServers } from '../../../src/agent/mcp-tools';
import { unixSocketFetch } from '../../../src/agent/unix-socket-fetch';
import { startModelProxy, type ModelProxy } from '../../../src/containers/model-proxy';
import { LOOKUP_ANSWER, startLookupHttpServer, type LookupHttpServer } from '../../fixtures/mcp/lookup-server';

const TOKEN = 'mcp-host-token-0123456789abcdef';

describe('tool servers through the model proxy (/mcp/<name>)', () => {
  let dir: string;
  let server: LookupHttpServer;
  let proxy: ModelProxy;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'proxy-mcp-'));
    server = await startLookupHttpServer(TOKEN);
    proxy = await startModelProxy({
      socketPath: join(dir, 'model.sock'), tokenBudget: null,
      upstream: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', maxOutputTokens: 10 },
      mcpServers: new Map([['docs', { url: server.url, headers: { authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] }]]),
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets the agent\'s MCP client list and call an allowed server\'s tools, the credential added on the host', async () => {
    const mcp = await connectMcpServers([{ name: 'docs', transport: 'http' }], { workspace: dir, socketPath: proxy.socketPath }, { reserved: [], callTimeoutMs: 10_000 });
    try {
      expect(mcp.failures).toEqual([]);
      expect(Object.keys(mcp.tools)).toEqual(['docs__lookup']);
      const answer = await (mcp.tools.docs__lookup!.execute as (i: unknown, o: unknown) => Promise<unknown>)({ query: 'q' }, {});
      expect(answer).toBe(`${LOOKUP_ANSWER} (query: q)`);
    } finally {
      await mcp.close();
    }
    expect(server.seen.length).toBeGreaterThan(0);
    expect(server.seen.every((headers) => headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(proxy.mcpCalls.some((call) => call.server === 'docs' && call.status === 200)).toBe(true);
    // No model call was made or charged.
    expect(proxy.calls).toEqual([]);
  });

  it('refuses a server not allowed for the run (403) and the server-push stream (405); drops the container\'s own Authorization', async () => {
    const fetchOverSocket = unixSocketFetch(proxy.socketPath);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const other = await fetchOverSocket('http://model-proxy/mcp/tickets', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(other.status).toBe(403);
    expect(await other.text()).toContain('tool server \\"tickets\\" is not allowed for this run');
    expect((await fetchOverSocket('http://model-proxy/mcp/docs', { method: 'GET' })).status).toBe(405);
    const before = server.seen.length;
    await fetchOverSocket('http://model-proxy/mcp/docs', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer from-the-container' }, body });
    expect(server.seen.slice(before).map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it('never hands the credential back: a server echoing it is redacted', async () => {
    const { createServer } = await import('node:http');
    const echo = createServer((req, res) => res.end(JSON.stringify({ echoed: req.headers.authorization })));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
    const echoProxy = await startModelProxy({
      socketPath: join(dir, 'echo.sock'), tokenBudget: null, upstream: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', maxOutputTokens: 10 },
      mcpServers: new Map([['echo', { url: `http://127.0.0.1:${(echo.address() as { port: number }).port}/`, headers: { authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] }]]),
    });
    try {
      const answer = await unixSocketFetch(echoProxy.socketPath)('http://model-proxy/mcp/echo', { method: 'POST', body: '{}' });
      const text = await answer.text();
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('echoed');
    } finally {
      await echoProxy.close();
      echo.close();
    }
  });
});
