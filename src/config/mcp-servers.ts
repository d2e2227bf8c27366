/**
 * The tool-server file (issue 29, point 2): named Model Context Protocol servers the container agents may use, and
 * which stages (model policy keys) may use which. Kept in a file, not the environment: SERVICE_MCP_SERVERS_PATH, or
 * `mcp-servers.json` in the working directory when that exists. No file means no tool servers.
 *
 * A stdio server runs inside the task container (the agent starts it from the image), so everything it is given is
 * the container's to read: its env holds literal values only, and one that looks like a credential is refused (no
 * secret is handed to a container). An http server is reached through the run's proxy; its headers may name a worker
 * environment variable, whose value the proxy adds on the host. Every credential of an http server, from the
 * environment or written in the file (a header value, a token in the URL's query), is a secret: redacted from what
 * the proxy hands back and, once the file is loaded, from every log line and error of the process. A user name or
 * password in the URL is refused (fetch would not send it; a header carries it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { isModelPolicyKey, type ModelPolicyKey } from './model-policy-keys';
import { argumentsCarryCredential, credentialParts, isCredentialName, isCredentialQueryName, looksLikeCredentialValue } from '../redaction/credential-looking';
import { registerSecretValues } from '../redaction/redact-secrets';

export const DEFAULT_MCP_SERVERS_FILE = 'mcp-servers.json';

/** No `_`: tools are offered as `<server>__<tool>`, so a server name must never contain the separator. */
const serverName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/, 'must be 1-32 letters, digits or dashes, starting with a letter or digit');
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');
const headerName = z.string().regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name');

const stdioSchema = z.object({
  transport: z.literal('stdio'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(envName, z.string()).default({}),
}).strict();

/** A header is a literal value or a worker environment variable (with an optional prefix such as `Bearer `). */
const headerValue = z.union([z.string(), z.object({ env: envName, prefix: z.string().optional() }).strict()]);

const httpSchema = z.object({
  transport: z.literal('http'),
  url: z.string().url('must be an absolute URL').refine((url) => /^https?:\/\//i.test(url), 'must be an http(s) URL'),
  headers: z.record(headerName, headerValue).default({}),
}).strict();

const fileSchema = z.object({
  servers: z.record(z.string(), z.discriminatedUnion('transport', [stdioSchema, httpSchema])),
  stages: z.record(z.string(), z.array(z.string())).default({}),
}).strict();

export type StdioMcpServer = z.infer<typeof stdioSchema>;
export type HttpMcpServer = z.infer<typeof httpSchema>;
export type McpServerConfig = StdioMcpServer | HttpMcpServer;

export interface McpServers {
  source: string;
  servers: Record<string, McpServerConfig>;
  stages: Partial<Record<ModelPolicyKey, string[]>>;
}

export class McpServersError extends Error {
  override readonly name = 'McpServersError';
  constructor(readonly source: string, readonly problems: string[]) {
    super(`invalid tool-server file ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Parses and checks the file. Every problem is collected (one line each), including header variables the worker's
 * environment does not set: a server that could only fail at run time is refused at startup.
 */
export function parseMcpServers(text: string, source: string, env: NodeJS.ProcessEnv = {}): McpServers {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new McpServersError(source, [`not valid JSON: ${(error as Error).message}`]);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw new McpServersError(source, parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  const problems: string[] = [];
  for (const [name, server] of Object.entries(parsed.data.servers)) {
    const named = serverName.safeParse(name);
    if (!named.success) problems.push(`servers.${name}: the name ${named.error.issues[0]!.message}`);
    if (server.transport !== 'http') {
      for (const [variable, value] of Object.entries(server.env)) {
        if (isCredentialName(variable) || looksLikeCredentialValue(value)) {
          problems.push(`servers.${name}.env.${variable}: looks like a credential, and a stdio server runs inside the task container, where the agent reads everything it is given: serve the tool over http through the proxy (a header may name a worker variable), or leave the credential out`);
        }
      }
      if (argumentsCarryCredential(server.args)) {
        problems.push(`servers.${name}.args: carries a credential, and a stdio server runs inside the task container, where the agent reads its command line: serve the tool over http through the proxy (a header may name a worker variable), or leave the credential out`);
      }
      continue;
    }
    const url = new URL(server.url);
    if (url.username || url.password) problems.push(`servers.${name}.url: carries a user name or password, which is never sent from a URL: put the credential in a header (it may name a worker variable)`);
    for (const [header, value] of Object.entries(server.headers)) {
      if (typeof value !== 'string' && !env[value.env]?.trim()) problems.push(`servers.${name}.headers.${header}: ${value.env} is not set in the worker's environment`);
    }
  }
  const stages: McpServers['stages'] = {};
  for (const [key, names] of Object.entries(parsed.data.stages)) {
    if (!isModelPolicyKey(key)) {
      problems.push(`stages.${key}: not a model policy key`);
      continue;
    }
    for (const name of names) if (!parsed.data.servers[name]) problems.push(`stages.${key}: unknown server "${name}" (known: ${Object.keys(parsed.data.servers).join(', ') || 'none'})`);
    stages[key] = [...new Set(names)];
  }
  if (problems.length) throw new McpServersError(source, problems);
  return { source, servers: parsed.data.servers, stages };
}

/** Where the file is: SERVICE_MCP_SERVERS_PATH (must exist), else `mcp-servers.json` in `cwd` when present. */
export function mcpServersPath(env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  const configured = env.SERVICE_MCP_SERVERS_PATH?.trim();
  if (configured) return resolve(cwd, configured);
  const fallback = resolve(cwd, DEFAULT_MCP_SERVERS_FILE);
  return existsSync(fallback) ? fallback : undefined;
}

let cached: { path: string; servers: McpServers } | undefined;

/**
 * The tool servers of this process, read once (restart the worker after editing the file); undefined when there is
 * no file. A named file that is missing or invalid throws McpServersError.
 */
export function loadMcpServers(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): McpServers | undefined {
  const path = mcpServersPath(env, cwd);
  if (!path) return undefined;
  if (cached?.path === path) return cached.servers;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new McpServersError(path, [`cannot read file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
  const servers = parseMcpServers(text, path, env);
  // From now on every log line and error of this process leaves them out, whatever variable a value came from.
  registerSecretValues(mcpServerSecrets(servers, env));
  cached = { path, servers };
  return servers;
}

/** For tests only. */
export function resetMcpServersCache(): void {
  cached = undefined;
}

/** The servers a stage may use, by name, in the file's order; none when the stage is not listed. */
export function stageMcpServers(config: McpServers | undefined, key: string): Array<{ name: string; server: McpServerConfig }> {
  if (!config || !isModelPolicyKey(key)) return [];
  return (config.stages[key] ?? []).map((name) => ({ name, server: config.servers[name]! }));
}

/**
 * The credentials written literally for an http server: header values that a credential's name or shape gives
 * away, and query-string values of credential names or shapes (with what a server may echo of each alone). Pure.
 */
export function literalMcpCredentials(server: HttpMcpServer): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(server.headers)) {
    if (typeof value === 'string' && (isCredentialName(name) || looksLikeCredentialValue(value))) found.push(...credentialParts(value));
  }
  for (const [name, value] of new URL(server.url).searchParams) {
    if (value && (isCredentialQueryName(name) || looksLikeCredentialValue(value))) found.push(value, encodeURIComponent(value));
  }
  return [...new Set(found)];
}

/**
 * An http server's headers with their values, read from `env` on the host, and its secrets: every value read from
 * the environment and every literal credential; throws naming a variable that is unset.
 */
export function resolveMcpHeaders(server: HttpMcpServer, env: NodeJS.ProcessEnv): { headers: Record<string, string>; secrets: string[] } {
  const headers: Record<string, string> = {};
  const secrets: string[] = literalMcpCredentials(server);
  for (const [name, value] of Object.entries(server.headers)) {
    if (typeof value === 'string') {
      headers[name.toLowerCase()] = value;
      continue;
    }
    const secret = env[value.env]?.trim();
    if (!secret) throw new McpServersError('environment', [`${value.env} (header ${name}) is not set in the worker's environment`]);
    headers[name.toLowerCase()] = `${value.prefix ?? ''}${secret}`;
    secrets.push(secret);
  }
  return { headers, secrets: [...new Set(secrets)] };
}

/** Every secret of the file's http servers, the environment's values included (any variable name). */
export function mcpServerSecrets(config: McpServers, env: NodeJS.ProcessEnv): string[] {
  return Object.values(config.servers).flatMap((server) => (server.transport === 'http' ? resolveMcpHeaders(server, env).secrets : []));
}
