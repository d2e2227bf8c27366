import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { AgentMcpServer } from './agent-task';
import { unixSocketFetch } from './unix-socket-fetch';

/** What a tool result may put into the conversation; the rest is cut (a server's answer is not ours to size). */
export const MAX_MCP_RESULT_CHARS = 16_000;
const CONNECT_TIMEOUT_MS = 30_000;
/** Chat-completions tool names: `^[A-Za-z0-9_-]{1,64}$`. */
const MAX_TOOL_NAME = 64;

/**
 * The name the model sees for a server's tool: `<server>__<tool>`, with characters a model API refuses replaced and
 * the whole cut to 64. Pure.
 */
export function mcpToolName(server: string, toolName: string): string {
  return `${server}__${toolName.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, MAX_TOOL_NAME);
}

interface ResultPart { type: string; text?: unknown; mimeType?: unknown; uri?: unknown; resource?: { uri?: unknown; text?: unknown } }

/** A tool result as text for the model, bounded; an error result says so. Pure. */
export function mcpResultText(result: { content?: unknown; isError?: unknown; structuredContent?: unknown; toolResult?: unknown }, limit = MAX_MCP_RESULT_CHARS): string {
  const parts = Array.isArray(result.content) ? (result.content as ResultPart[]) : [];
  const lines = parts.map((part) => {
    if (part.type === 'text' && typeof part.text === 'string') return part.text;
    if (part.type === 'resource' && typeof part.resource?.text === 'string') return part.resource.text;
    if (part.type === 'resource' || part.type === 'resource_link') return `[resource ${String(part.resource?.uri ?? part.uri ?? '')}]`;
    return `[${part.type}${typeof part.mimeType === 'string' ? ` ${part.mimeType}` : ''} content not shown]`;
  });
  if (lines.length === 0 && result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent));
  if (lines.length === 0 && result.toolResult !== undefined) lines.push(JSON.stringify(result.toolResult));
  const text = `${result.isError === true ? 'tool error: ' : ''}${lines.join('\n') || '(no content)'}`;
  return text.length <= limit ? text : `${text.slice(0, limit)}\n... [${text.length - limit} more characters cut]`;
}

export interface McpConnections {
  tools: ToolSet;
  /** Servers that could not be started or listed, with why; the agent goes on without them. */
  failures: Array<{ server: string; message: string; ms: number }>;
  close(): Promise<void>;
}

function transportFor(server: AgentMcpServer, paths: { workspace: string; socketPath: string }): { transport: Transport; stderr?: () => string } {
  if (server.transport === 'http') {
    // Over the proxy socket: the proxy knows the server's address and adds its credentials on the host.
    return { transport: new StreamableHTTPClientTransport(new URL(`http://model-proxy/mcp/${encodeURIComponent(server.name)}`), { fetch: unixSocketFetch(paths.socketPath) }) };
  }
  const transport = new StdioClientTransport({
    command: server.command, args: server.args, cwd: paths.workspace, stderr: 'pipe',
    env: { ...getDefaultEnvironment(), ...server.env },
  });
  // The server's own complaints explain a failed start better than "connection closed".
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => { stderr = `${stderr}${chunk.toString('utf8')}`.slice(-2000); });
  return { transport, stderr: () => stderr };
}

/**
 * Connects to each tool server, lists its tools and offers them as `<server>__<tool>` tools whose calls go to the
 * server. `reserved` are names already taken (the agent's own tools). Tool calls time out after `callTimeoutMs`.
 */
export async function connectMcpServers(servers: AgentMcpServer[], paths: { workspace: string; socketPath: string }, options: { reserved: string[]; callTimeoutMs: number }): Promise<McpConnections> {
  const tools: ToolSet = {};
  const failures: McpConnections['failures'] = [];
  const clients: Client[] = [];
  const taken = new Set(options.reserved);
  for (const server of servers) {
    const started = Date.now();
    let stderr: (() => string) | undefined;
    const client = new Client({ name: 'service-agent', version: '1.0.0' });
    try {
      const made = transportFor(server, paths);
      stderr = made.stderr;
      await client.connect(made.transport, { timeout: CONNECT_TIMEOUT_MS });
      clients.push(client);
      const listed: Array<{ name: string; description?: string; inputSchema: unknown }> = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: CONNECT_TIMEOUT_MS });
        listed.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && listed.length < 500);
      for (const listedTool of listed) {
        const name = mcpToolName(server.name, listedTool.name);
        if (taken.has(name)) continue;
        taken.add(name);
        tools[name] = tool({
          description: `${listedTool.description ?? listedTool.name} (tool server ${server.name})`.slice(0, 2000),
          inputSchema: jsonSchema<Record<string, unknown>>(listedTool.inputSchema as Parameters<typeof jsonSchema>[0]),
          execute: async (input: Record<string, unknown>) => {
            try {
              const result = await client.callTool({ name: listedTool.name, arguments: input }, undefined, { timeout: options.callTimeoutMs });
              return mcpResultText(result);
            } catch (error) {
              return `error: tool server ${server.name}: ${(error as Error).message}`.slice(0, 2000);
            }
          },
        });
      }
    } catch (error) {
      const said = stderr?.().trim();
      failures.push({ server: server.name, message: `${(error as Error).message}${said ? `; stderr: ${said}` : ''}`.slice(0, 2000), ms: Date.now() - started });
      await client.close().catch(() => undefined);
    }
  }
  return {
    tools, failures,
    close: async () => {
      await Promise.allSettled(clients.map((client) => client.close()));
    },
  };
}
