import type { AgentMcpServer } from '../agent/agent-task';
import { resolveMcpHeaders, stageMcpServers, type McpServers } from '../config/mcp-servers';
import type { McpUpstream } from './mcp-route';

/**
 * One run's tool servers, split by who gets what: the agent's task lists them (a stdio server with its command, an
 * http server by name only), the proxy gets the http servers' addresses and credential headers, read from `env` on
 * the host. Nothing of an http server but its name reaches the container. Pure but for reading `env`.
 */
export function runToolServers(config: McpServers | undefined, policyKey: string, env: NodeJS.ProcessEnv): { task: AgentMcpServer[]; proxy: Map<string, McpUpstream> } {
  const task: AgentMcpServer[] = [];
  const proxy = new Map<string, McpUpstream>();
  for (const { name, server } of stageMcpServers(config, policyKey)) {
    if (server.transport === 'stdio') {
      task.push({ name, transport: 'stdio', command: server.command, args: server.args, env: server.env });
      continue;
    }
    task.push({ name, transport: 'http' });
    proxy.set(name, { url: server.url, ...resolveMcpHeaders(server, env) });
  }
  return { task, proxy };
}
