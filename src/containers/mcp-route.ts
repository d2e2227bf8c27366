import type { IncomingHttpHeaders } from 'node:http';

/**
 * How the run's proxy treats `/mcp/<name>` (issue 29, point 2): the container names a remote tool server, the proxy
 * knows its address and credentials. Pure decisions; the forwarding itself is in model-proxy.ts.
 */

/** An http tool server this run may use, with its headers already resolved on the host (credentials included). */
export interface McpUpstream {
  url: string;
  headers: Record<string, string>;
  /** The server's credentials (from the worker's environment or written in the file): never passed back to the container. */
  secrets: string[];
}

export type McpRoute =
  | { kind: 'forward'; server: string; upstream: McpUpstream }
  | { kind: 'refuse'; status: number; type: string; message: string };

/** Whether a request path is for the tool-server route at all. */
export function isMcpPath(path: string): boolean {
  return path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * The tool server a request goes to, or why not. POST (messages) and DELETE (ending a session) are forwarded. GET
 * (a stream the server keeps open to push messages) is refused with 405, which the streamable HTTP transport takes
 * as "no such stream": the agent's socket fetch reads whole answers, and a held-open stream would hold a proxy slot.
 */
export function mcpRoute(method: string | undefined, path: string, allowed: ReadonlyMap<string, McpUpstream>): McpRoute {
  const match = /^\/mcp\/([^/]+)\/?$/.exec(path);
  let name: string | undefined;
  try {
    name = match ? decodeURIComponent(match[1]!) : undefined;
  } catch { /* a malformed escape names no server */ }
  if (!name) return { kind: 'refuse', status: 404, type: 'invalid_request_error', message: `the proxy serves tool servers at /mcp/<name>, not ${path}` };
  const upstream = allowed.get(name);
  if (!upstream) {
    return { kind: 'refuse', status: 403, type: 'permission_error', message: `tool server "${name}" is not allowed for this run${allowed.size ? ` (allowed: ${[...allowed.keys()].join(', ')})` : ''}` };
  }
  if (method === 'GET') return { kind: 'refuse', status: 405, type: 'invalid_request_error', message: 'the proxy does not keep server-to-agent streams open: GET is not forwarded' };
  if (method !== 'POST' && method !== 'DELETE') return { kind: 'refuse', status: 405, type: 'invalid_request_error', message: `the proxy forwards POST and DELETE to tool servers, not ${method}` };
  return { kind: 'forward', server: name, upstream };
}

/** What of the container's request headers the protocol needs; everything else (its own Authorization too) stays behind. */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
/** What of the server's answer headers the agent's transport needs; nothing else goes back (cookies, auth challenges). */
const RETURNED_ANSWER_HEADERS = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'retry-after'];

/** The headers sent to the tool server: the protocol's own from the container, then the configured ones on top. */
export function mcpRequestHeaders(incoming: IncomingHttpHeaders, upstream: McpUpstream): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = incoming[name];
    if (typeof value === 'string') headers[name] = value;
  }
  for (const [name, value] of Object.entries(upstream.headers)) headers[name.toLowerCase()] = value;
  return headers;
}

/** The headers passed back to the container. */
export function mcpAnswerHeaders(answer: Pick<Headers, 'get'>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of RETURNED_ANSWER_HEADERS) {
    const value = answer.get(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}
