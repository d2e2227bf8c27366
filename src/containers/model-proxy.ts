import { chmod, lchown, lstat, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { ModelConnection } from '../config/model-configuration';
import { createLanguageModel } from '../models/language-model-factory';
import { secretValuesFromEnv } from '../redaction/redact-secrets';
import type { Tracing } from '../tracing/start-tracing';
import type { TraceContext } from '../tracing/tracing-config';
import type { ContentPolicy } from './proxy-content-policy';
import type { McpUpstream } from './mcp-route';
import { createProxyState, handleRequest, send } from './model-proxy-request';
import type { SpendLedgerWriter } from './spend-ledger';
import type { TranslatedUpstream } from './translated-upstream';

export type { McpUpstream } from './mcp-route';

export { budgetDecision, type BudgetDecision } from './proxy-request-policy';

/**
 * The per-run model proxy (SPEC 5 "Outbound credentials"): an OpenAI chat-completions endpoint on a unix socket that
 * is mounted into the container. It holds the credential, lets through only the one resolved model and the request
 * fields the agent needs, reserves the stage's token budget before each call and settles it after, bounds what it
 * reads both ways and how many calls run at once, records usage and latency per call (refusals too), and is closed
 * when the run ends. The container and everything it sends are treated as hostile.
 *
 * The agent always speaks chat completions. An openai-compatible connection gets the checked request as is; any other
 * backend gets it translated into an AI SDK call on the provider the host stations use (translated-upstream.ts), so
 * every backend is held to the same checks, caps, budget and records.
 */
export interface ForwardedUpstream {
  /** The OpenAI-compatible API root of the resolved connection. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  maxOutputTokens: number;
}

export type { TranslatedUpstream } from './translated-upstream';
export type ProxyUpstream = ForwardedUpstream | TranslatedUpstream;

export class ProxyUpstreamError extends Error {
  override readonly name = 'ProxyUpstreamError';
}

/**
 * The upstream of a resolved connection, for every backend host stations accept. What a provider needs is checked
 * here, so a station fails before its container starts rather than on the agent's first call.
 */
export function proxyUpstreamOf(connection: ModelConnection, model: string, env: NodeJS.ProcessEnv = process.env): ProxyUpstream {
  const where = `connection ${connection.name} (${connection.backend})`;
  switch (connection.backend) {
    case 'openai-compatible': {
      const baseUrl = connection.base_url ?? env.OPENAI_BASE_URL;
      if (!baseUrl) throw new ProxyUpstreamError(`connection ${connection.name}: no base_url and no OPENAI_BASE_URL`);
      return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: env.OPENAI_API_KEY, model, maxOutputTokens: connection.max_output_tokens };
    }
    case 'anthropic':
      if (!env.ANTHROPIC_API_KEY?.trim()) throw new ProxyUpstreamError(`${where}: ANTHROPIC_API_KEY is not set in the worker's environment`);
      break;
    case 'cloud-ai':
      // With an express-mode key the address needs no project; otherwise Vertex's address is built from both.
      if (!env.GOOGLE_VERTEX_API_KEY?.trim() && !(connection.project && connection.location)) {
        throw new ProxyUpstreamError(`${where}: needs "project" and "location" (or GOOGLE_VERTEX_API_KEY for express mode)`);
      }
      break;
  }
  return {
    backend: connection.backend, model, maxOutputTokens: connection.max_output_tokens,
    languageModel: (fetch) => createLanguageModel(connection, model, env, { fetch }),
    hostSecrets: () => secretValuesFromEnv(env),
  };
}

export interface ProxyCall {
  at: string;
  status: number;
  latency_ms: number;
  /** What the call was charged: the reported usage, or the reservation when `usage_estimated`. */
  input_tokens: number;
  output_tokens: number;
  /** The upstream reported no usage (or never answered), so the call was charged its reservation. */
  usage_estimated?: true;
  error?: string;
}

/** What a hostile container can make the worker hold, wait for or spend; each limit has a default. */
export interface ProxyLimits {
  /** A request body over this is refused with 413 and not read further. */
  maxBodyBytes: number;
  /** An upstream answer over this is cut off and answered with 502. */
  maxResponseBytes: number;
  /** A call whose estimated input is over this is refused with 413, budget or not. */
  maxInputTokens: number;
  /** Calls in flight at once; one more is refused at once with 429 `concurrency_limit` (no queue: a queue would hold bodies). */
  maxConcurrentCalls: number;
  /** Open connections at once; node drops further ones, so a container cannot use up the worker's file descriptors. */
  maxConnections: number;
  /** Headers, then the body, must each arrive within this, or the call is refused (408). */
  bodyTimeoutMs: number;
  /** An upstream call that takes longer is abandoned with 502 (and charged its reservation). */
  upstreamTimeoutMs: number;
}

export const DEFAULT_PROXY_LIMITS: Readonly<ProxyLimits> = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxResponseBytes: 8 * 1024 * 1024,
  maxInputTokens: 200_000,
  maxConcurrentCalls: 2,
  maxConnections: 32,
  bodyTimeoutMs: 30_000,
  upstreamTimeoutMs: 10 * 60_000,
};

export interface ModelProxyOptions {
  socketPath: string;
  upstream: ProxyUpstream;
  tokenBudget: number | null;
  /**
   * The container's account on the host (a root worker runs podman as another user): the socket is handed to it
   * with mode 0600. Without it the socket stays the worker's own, mode 0600: a rootless podman run as the worker's
   * own user maps container root to the worker's user.
   */
  socketOwner?: { uid: number; gid: number };
  /** Overrides of DEFAULT_PROXY_LIMITS. */
  limits?: Partial<ProxyLimits>;
  /** LLM tracing (TRACING_ENABLED): each forwarded call becomes a generation span with these trace attributes. */
  tracing?: Tracing;
  trace?: TraceContext;
  /** Each call's charge is appended here as it settles, so it outlives a worker that dies mid-run (spend-ledger.ts). */
  spendLedger?: SpendLedgerWriter;
  /** The http tool servers this run may use, by name (mcp-route.ts); any other `/mcp/<name>` is refused with 403. */
  mcpServers?: ReadonlyMap<string, McpUpstream>;
  /**
   * The content parts calls may carry besides text, and what an image costs (proxy-content-policy.ts). Text only when
   * left out, which is what every station runs with: the agent in src/agent sends no images.
   */
  content?: ContentPolicy;
}

/** One request to a tool server through the proxy (refusals too). */
export interface McpProxyCall {
  at: string;
  server: string;
  method: string;
  status: number;
  latency_ms: number;
  error?: string;
}

export interface ModelProxy {
  socketPath: string;
  readonly calls: ProxyCall[];
  /** Tool-server requests, kept apart from model calls: they cost no tokens. */
  readonly mcpCalls: McpProxyCall[];
  usage(): { input_tokens: number; output_tokens: number };
  close(): Promise<void>;
}

/**
 * Makes the socket connectable by its owner only. The run folder may belong to the container's account, so the path
 * is checked to still be a socket first (chmod follows a symlink; lchown does not).
 */
async function restrictSocket(path: string, owner: ModelProxyOptions['socketOwner']): Promise<void> {
  if (!(await lstat(path)).isSocket()) throw new Error(`${path} is no longer the proxy's socket`);
  await chmod(path, 0o600);
  if (owner) await lchown(path, owner.uid, owner.gid);
}

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const limits: ProxyLimits = { ...DEFAULT_PROXY_LIMITS, ...options.limits };
  const state = createProxyState(options, limits);
  const inFlight = new Set<Promise<void>>();
  const server = createServer({ headersTimeout: limits.bodyTimeoutMs, requestTimeout: limits.bodyTimeoutMs * 2 }, (req, res) => {
    const handled = handleRequest(state, req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else send(res, 500, `model proxy: ${state.redact((error as Error).message)}`, 'server_error');
    }).finally(() => inFlight.delete(handled));
    inFlight.add(handled);
  });
  server.maxConnections = limits.maxConnections;
  await listenOnSocket(server, options);
  return {
    socketPath: options.socketPath,
    calls: state.calls,
    mcpCalls: state.mcpCalls,
    usage: () => ({ ...state.usage }),
    close: async () => {
      // Calls in flight are abandoned and settled (charged their reservation) before usage() is read.
      state.closing.abort(new Error('the model proxy was closed: the run ended'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
      await rm(options.socketPath, { force: true });
    },
  };
}

/** Listens on the socket path and restricts the socket; a socket that cannot be restricted is closed and removed. */
async function listenOnSocket(server: Server, options: ModelProxyOptions): Promise<void> {
  await rm(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  try {
    await restrictSocket(options.socketPath, options.socketOwner);
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(options.socketPath, { force: true });
    const hint = options.socketOwner ? `; handing it to uid ${options.socketOwner.uid} needs a worker running as root (leave socketOwner out for a rootless worker)` : '';
    throw new Error(`could not restrict the model proxy socket ${options.socketPath}: ${(error as Error).message}${hint}`);
  }
}
