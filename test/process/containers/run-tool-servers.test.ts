/**
 * Credentials written literally in the tool-server file (a header value, a token in the URL's query) are secrets like
 * the ones read from the worker's environment: a tool server that echoes its request never hands them to the
 * container through the proxy, and no log line or error carries them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { unixSocketFetch } from '../../../src/agent/unix-socket-fetch';
import { loadMcpServers, parseMcpServers, resetMcpServersCache } from '../../../src/config/mcp-servers';
import { startModelProxy } from '../../../src/containers/model-proxy';
import { runToolServers } from '../../../src/containers/run-tool-servers';
import { createLogger } from '../../../src/logging/logger';
import { forgetRegisteredSecrets } from '../../../src/redaction/redact-secrets';

const API_KEY = 'literal-api-key-0123456789abcdef';
const BEARER = 'literal-bearer-9876543210zyxwvu';
const QUERY_KEY = 'query-key-abcdef0123456789';
const FROM_ENV = 'from-env-credential-55555555555';

/** A tool server that answers with everything it was sent: its URL and its headers. */
function startEcho(status = 200): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, headers: req.headers }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server })));
}

function fileFor(base: string) {
  return JSON.stringify({
    servers: {
      echo: {
        transport: 'http',
        url: `${base}/mcp?key=${QUERY_KEY}&team=platform`,
        headers: { 'X-Api-Key': API_KEY, Authorization: `Bearer ${BEARER}`, 'X-Team': 'platform', 'X-Extra': { env: 'ECHO_HEADER' } },
      },
    },
    stages: { implement_work: ['echo'] },
  });
}

describe('literal credentials of a tool server', () => {
  let dir: string;
  const env = { ECHO_HEADER: FROM_ENV };
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'mcp-literal-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => { resetMcpServersCache(); forgetRegisteredSecrets(); });

  it('never reach the container: an echoing server\'s answer (and an error answer\'s record) is redacted', async () => {
    for (const status of [200, 401]) {
      const echo = await startEcho(status);
      const { proxy: upstreams } = runToolServers(parseMcpServers(fileFor(echo.url), 'mcp-servers.json', env), 'implement_work', env);
      const proxy = await startModelProxy({
        socketPath: join(dir, `p${status}.sock`), tokenBudget: null, upstream: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', maxOutputTokens: 10 }, mcpServers: upstreams,
      });
      try {
        const answer = await unixSocketFetch(proxy.socketPath)('http://model-proxy/mcp/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        const text = await answer.text();
        expect(answer.status).toBe(status);
        // The server did get them: the proxy adds them on the host.
        expect(text).toContain('x-api-key');
        for (const secret of [API_KEY, BEARER, QUERY_KEY, FROM_ENV]) expect(text).not.toContain(secret);
        // What is not a credential is left alone.
        expect(text).toContain('platform');
        expect(JSON.stringify(proxy.mcpCalls)).not.toMatch(new RegExp([API_KEY, BEARER, QUERY_KEY, FROM_ENV].join('|')));
      } finally {
        await proxy.close();
        echo.server.close();
      }
    }
  });

  it('never reach a log line or an error of the worker once the file is loaded', () => {
    const path = join(dir, 'mcp-servers.json');
    writeFileSync(path, fileFor('https://tools.example.com'));
    loadMcpServers({ ...env, SERVICE_MCP_SERVERS_PATH: path }, dir);
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    logger.warn(`tool server answered ${API_KEY} and Bearer ${BEARER}`, { detail: `GET /mcp?key=${QUERY_KEY}`, header: FROM_ENV });
    logger.error('failed', { error: new Error(`upstream said ${API_KEY}`).message });
    expect(lines).toHaveLength(2);
    for (const secret of [API_KEY, BEARER, QUERY_KEY, FROM_ENV]) expect(lines.join('\n')).not.toContain(secret);
  });
});
