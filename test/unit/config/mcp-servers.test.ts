import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { literalMcpCredentials, loadMcpServers, mcpServersPath, McpServersError, parseMcpServers, resetMcpServersCache, resolveMcpHeaders, stageMcpServers } from '../../../src/config/mcp-servers';

const file = {
  servers: {
    docs: { transport: 'http', url: 'https://docs.example.com/mcp', headers: { Authorization: { env: 'DOCS_TOKEN', prefix: 'Bearer ' }, 'X-Team': 'platform' } },
    tickets: { transport: 'stdio', command: 'node', args: ['/workspace/tools/tickets.cjs'], env: { LOG_LEVEL: 'warn' } },
  },
  stages: { implement_work: ['docs', 'tickets'], ci_fix: ['tickets'] },
};

function problems(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseMcpServers(text, 'mcp-servers.json', env);
  } catch (error) {
    if (error instanceof McpServersError) return error.problems;
    throw error;
  }
  return [];
}

describe('the tool-server file', () => {
  afterEach(() => resetMcpServersCache());

  it('reads named servers and the stages that may use them, with defaults for args, env and headers', () => {
    const parsed = parseMcpServers(JSON.stringify(file), 'f', { DOCS_TOKEN: 'secret-docs-token' });
    expect(parsed.servers.tickets).toEqual({ transport: 'stdio', command: 'node', args: ['/workspace/tools/tickets.cjs'], env: { LOG_LEVEL: 'warn' } });
    expect(stageMcpServers(parsed, 'implement_work').map((s) => s.name)).toEqual(['docs', 'tickets']);
    expect(stageMcpServers(parsed, 'code_review')).toEqual([]);
    expect(stageMcpServers(parsed, 'not_a_key')).toEqual([]);
    expect(stageMcpServers(undefined, 'implement_work')).toEqual([]);
    const minimal = parseMcpServers('{"servers":{"a":{"transport":"stdio","command":"x"}}}', 'f');
    expect(minimal.servers.a).toEqual({ transport: 'stdio', command: 'x', args: [], env: {} });
    expect(minimal.stages).toEqual({});
  });

  it('reports every problem, one line each: shape, names, unknown stages and servers, unset header variables', () => {
    expect(problems('{not json')[0]).toMatch(/^not valid JSON/);
    expect(problems('{"servers":{"a":{"transport":"ftp"}}}')).toEqual([expect.stringMatching(/^servers\.a\.transport: /)]);
    expect(problems('{"servers":{"a":{"transport":"http","url":"file:///etc/passwd"}}}')).toEqual(['servers.a.url: must be an http(s) URL']);
    expect(problems('{"servers":{"a":{"transport":"stdio","command":"x","cwd":"/"}},"extra":1}')).toHaveLength(2);
    const found = problems(JSON.stringify({
      servers: { 'bad__name': { transport: 'stdio', command: 'x' }, docs: file.servers.docs },
      stages: { implement_work: ['docs', 'missing'], implement: ['docs'] },
    }));
    expect(found).toEqual([
      expect.stringMatching(/^servers\.bad__name: the name must be/),
      "servers.docs.headers.Authorization: DOCS_TOKEN is not set in the worker's environment",
      'stages.implement_work: unknown server "missing" (known: bad__name, docs)',
      'stages.implement: not a model policy key',
    ]);
  });

  it('resolves header values on the host and says which are secrets', () => {
    const parsed = parseMcpServers(JSON.stringify(file), 'f', { DOCS_TOKEN: 'secret-docs-token' });
    const docs = parsed.servers.docs!;
    if (docs.transport !== 'http') throw new Error('http expected');
    expect(resolveMcpHeaders(docs, { DOCS_TOKEN: ' secret-docs-token ' })).toEqual({ headers: { authorization: 'Bearer secret-docs-token', 'x-team': 'platform' }, secrets: ['secret-docs-token'] });
    expect(() => resolveMcpHeaders(docs, {})).toThrow(/DOCS_TOKEN \(header Authorization\) is not set/);
  });

  it('refuses a credential handed to a stdio server (it runs in the container) and one in the URL\'s user part', () => {
    const stdio = (env: Record<string, string>) => problems(JSON.stringify({ servers: { t: { transport: 'stdio', command: 'x', env } } }));
    expect(stdio({ LOG_LEVEL: 'warn', REGION: 'eu-west-1', PROJECT: 'platform' })).toEqual([]);
    const credentials: Array<Record<string, string>> = [{ GITHUB_TOKEN: 'x' }, { DB_PASSWORD: 'hunter2' }, { BASIC_AUTH: 'a:b' }, { HEADER: 'Bearer abc' }, { KEY: 'glpat-abcdefghijklmnopqrst' }, { OPAQUE: 'a1b2c3d4e5f6g7h8i9j0k1' }];
    for (const env of credentials) {
      const [variable] = Object.keys(env);
      expect(stdio(env)).toEqual([`servers.t.env.${variable}: looks like a credential, and a stdio server runs inside the task container, where the agent reads everything it is given: serve the tool over http through the proxy (a header may name a worker variable), or leave the credential out`]);
    }
    expect(problems(JSON.stringify({ servers: { t: { transport: 'stdio', command: 'x', args: ['--api-key', 'abc'] } } }))).toEqual([expect.stringMatching(/^servers\.t\.args: carries a credential, and a stdio server runs inside the task container/)]);
    const withUser = problems(JSON.stringify({ servers: { r: { transport: 'http', url: 'https://bot:s3cret-pass@tools.example.com/mcp' } } }));
    expect(withUser).toEqual(['servers.r.url: carries a user name or password, which is never sent from a URL: put the credential in a header (it may name a worker variable)']);
    expect(withUser.join()).not.toContain('s3cret-pass');
  });

  it('counts literal credentials of an http server as secrets: credential header names and shapes, credential query values', () => {
    const basic = Buffer.from('bot:basic-password-1').toString('base64');
    const parsed = parseMcpServers(JSON.stringify({
      servers: {
        r: {
          transport: 'http', url: 'https://tools.example.com/mcp?team=platform&sig=abc%2Bdef123&page=2',
          headers: { 'X-Api-Key': 'k-1', Cookie: 'sid=abcdef', Authorization: `Basic ${basic}`, 'X-Opaque': 'Zx81kq0Pq8nq2m3L0aa9W', 'X-Team': 'platform', Accept: 'application/json' },
        },
      },
    }), 'f');
    const server = parsed.servers.r!;
    if (server.transport !== 'http') throw new Error('http expected');
    expect(literalMcpCredentials(server).sort()).toEqual(['k-1', 'sid=abcdef', `Basic ${basic}`, basic, 'bot:basic-password-1', 'basic-password-1', 'Zx81kq0Pq8nq2m3L0aa9W', 'abc+def123', 'abc%2Bdef123'].sort());
  });

  it('is found at SERVICE_MCP_SERVERS_PATH or as mcp-servers.json in the working directory; no file, no servers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-servers-'));
    try {
      expect(mcpServersPath({}, dir)).toBeUndefined();
      expect(loadMcpServers({}, dir)).toBeUndefined();
      writeFileSync(join(dir, 'mcp-servers.json'), JSON.stringify({ servers: { a: { transport: 'stdio', command: 'x' } } }));
      expect(mcpServersPath({}, dir)).toBe(join(dir, 'mcp-servers.json'));
      expect(Object.keys(loadMcpServers({}, dir)!.servers)).toEqual(['a']);
      expect(() => loadMcpServers({ SERVICE_MCP_SERVERS_PATH: 'elsewhere.json' }, dir)).toThrow(/cannot read file: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
