import { describe, expect, it } from 'vitest';
import { isMcpPath, mcpAnswerHeaders, mcpRequestHeaders, mcpRoute, type McpUpstream } from '../../../src/containers/mcp-route';
import { runToolServers } from '../../../src/containers/run-tool-servers';
import { parseMcpServers } from '../../../src/config/mcp-servers';

const docs: McpUpstream = { url: 'https://docs.example.com/mcp', headers: { authorization: 'Bearer host-secret-token' }, secrets: ['host-secret-token'] };
const allowed = new Map([['docs', docs]]);

describe('the proxy route to tool servers', () => {
  it('forwards POST and DELETE to an allowed server only; 403 for any other, 405 for GET', () => {
    expect(isMcpPath('/mcp/docs')).toBe(true);
    expect(isMcpPath('/v1/chat/completions')).toBe(false);
    expect(mcpRoute('POST', '/mcp/docs', allowed)).toEqual({ kind: 'forward', server: 'docs', upstream: docs });
    expect(mcpRoute('DELETE', '/mcp/docs/', allowed)).toMatchObject({ kind: 'forward' });
    expect(mcpRoute('POST', '/mcp/tickets', allowed)).toMatchObject({ kind: 'refuse', status: 403, message: 'tool server "tickets" is not allowed for this run (allowed: docs)' });
    expect(mcpRoute('POST', '/mcp/docs', new Map())).toMatchObject({ kind: 'refuse', status: 403 });
    expect(mcpRoute('GET', '/mcp/docs', allowed)).toMatchObject({ kind: 'refuse', status: 405 });
    expect(mcpRoute('PUT', '/mcp/docs', allowed)).toMatchObject({ kind: 'refuse', status: 405 });
    expect(mcpRoute('POST', '/mcp', allowed)).toMatchObject({ kind: 'refuse', status: 404 });
    expect(mcpRoute('POST', '/mcp/docs/../x', allowed)).toMatchObject({ kind: 'refuse', status: 404 });
    expect(mcpRoute('POST', '/mcp/%E0%A4%A', allowed)).toMatchObject({ kind: 'refuse', status: 404 });
  });

  it('sends the protocol headers of the container and the configured ones, never the container\'s own credentials', () => {
    const headers = mcpRequestHeaders({
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-06-18',
      authorization: 'Bearer from-the-container', cookie: 'a=b', host: 'model-proxy',
    }, docs);
    expect(headers).toEqual({
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-06-18',
      authorization: 'Bearer host-secret-token',
    });
    expect(mcpAnswerHeaders(new Headers({ 'content-type': 'text/event-stream', 'mcp-session-id': 's1', 'set-cookie': 'x=y', 'www-authenticate': 'Bearer' })))
      .toEqual({ 'content-type': 'text/event-stream', 'mcp-session-id': 's1' });
  });

  it('gives the container a stdio server\'s command and an http server\'s name only; the proxy gets the address and credential', () => {
    const config = parseMcpServers(JSON.stringify({
      servers: {
        docs: { transport: 'http', url: 'https://docs.example.com/mcp', headers: { Authorization: { env: 'DOCS_TOKEN', prefix: 'Bearer ' } } },
        tickets: { transport: 'stdio', command: 'node', args: ['t.cjs'], env: { A: 'b' } },
      },
      stages: { implement_work: ['docs', 'tickets'] },
    }), 'f', { DOCS_TOKEN: 'host-secret-token' });
    const run = runToolServers(config, 'implement_work', { DOCS_TOKEN: 'host-secret-token' });
    expect(run.task).toEqual([{ name: 'docs', transport: 'http' }, { name: 'tickets', transport: 'stdio', command: 'node', args: ['t.cjs'], env: { A: 'b' } }]);
    expect(JSON.stringify(run.task)).not.toContain('host-secret-token');
    expect(JSON.stringify(run.task)).not.toContain('docs.example.com');
    expect([...run.proxy.entries()]).toEqual([['docs', { url: 'https://docs.example.com/mcp', headers: { authorization: 'Bearer host-secret-token' }, secrets: ['host-secret-token'] }]]);
    expect(runToolServers(config, 'code_review', {})).toEqual({ task: [], proxy: new Map() });
  });
});
