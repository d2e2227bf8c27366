import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { connectMcpServers, mcpResultText, mcpToolName } from '../../../src/agent/mcp-tools';

describe('tool-server tools for the agent', () => {
  it('names a server\'s tool <server>__<tool>, as a model API accepts it', () => {
    expect(mcpToolName('docs', 'lookup')).toBe('docs__lookup');
    expect(mcpToolName('docs', 'search.pages v2')).toBe('docs__search_pages_v2');
    expect(mcpToolName('docs', 'x'.repeat(100))).toHaveLength(64);
  });

  it('turns a result into bounded text for the model, marking errors', () => {
    expect(mcpResultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', mimeType: 'image/png', data: '...' }] })).toBe('a\n[image image/png content not shown]');
    expect(mcpResultText({ content: [{ type: 'text', text: 'no such page' }], isError: true })).toBe('tool error: no such page');
    expect(mcpResultText({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}');
    expect(mcpResultText({})).toBe('(no content)');
    const long = mcpResultText({ content: [{ type: 'text', text: 'y'.repeat(50) }] }, 10);
    expect(long).toBe(`${'y'.repeat(10)}\n... [40 more characters cut]`);
  });

  it('reports a server that does not start and goes on without it', async () => {
    const mcp = await connectMcpServers(
      [{ name: 'broken', transport: 'stdio', command: 'node', args: ['-e', 'console.error("no config"); process.exit(3)'], env: {} }],
      { workspace: tmpdir(), socketPath: '/nonexistent.sock' }, { reserved: [], callTimeoutMs: 1000 },
    );
    expect(mcp.tools).toEqual({});
    expect(mcp.failures).toEqual([{ server: 'broken', message: expect.stringContaining('no config'), ms: expect.any(Number) }]);
    await mcp.close();
  });
});
