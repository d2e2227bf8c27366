import { chmod, lchown, lstat, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ModelConnection } from '../config/model-configuration';
import { createLanguageModel } from '../models/language-model-factory';
import { redactSecrets, secretValuesFromEnv } from '../redaction/redact-secrets';
import type { Tracing } from '../tracing/start-tracing';
import type { TraceContext } from '../tracing/tracing-config';
import { checkContentPolicy, TEXT_ONLY, type ContentPolicy } from './proxy-content-policy';
import {
  budgetDecision, checkChatRequest, estimateInputTokens, reportedUsage, settledCharge,
  type BudgetLedger, type Refusal, type TokenUsage, type UpstreamOutcome,
} from './proxy-request-policy';
import { isMcpPath, mcpAnswerHeaders, mcpRequestHeaders, mcpRoute, type McpUpstream } from './mcp-route';
import type { SpendLedgerWriter } from './spend-ledger';
import { createTranslator, type TranslatedUpstream, type Translator } from './translated-upstream';
import { readAnswer, type UpstreamAnswer } from './upstream-answer';

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

function isTranslated(upstream: ProxyUpstream): upstream is TranslatedUpstream {
  return 'languageModel' in upstream;
}

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

/** Refusals past this many are counted by kind only (the first of each kind is always kept), so a loop of refused calls cannot grow the worker's memory. */
const MAX_REFUSAL_RECORDS = 200;

function send(res: ServerResponse, status: number, message: string, type: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: { message, type } }));
}

/**
 * The rest of a refused body is never read: the connection is closed once the answer is out (or after a grace
 * period, when the container does not read the answer), so the worker holds nothing of it however much is sent.
 */
function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  const close = () => socket.destroy();
  res.setHeader('connection', 'close');
  res.once('finish', close);
  setTimeout(close, 5_000).unref();
}

type BodyRead = { ok: true; text: string } | { ok: false; refusal: Refusal };

function tooLarge(limit: number, declared?: number): BodyRead {
  return { ok: false, refusal: { status: 413, type: 'request_too_large', message: `the request body is over the model proxy's limit of ${limit} bytes${declared ? ` (content-length ${declared})` : ''}: send a shorter conversation` } };
}

/** Reads a request body up to the limit and the deadline; past either it stops reading (the stream stays paused). */
function readBody(req: IncomingMessage, limits: ProxyLimits): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) return Promise.resolve(tooLarge(limits.maxBodyBytes, declared));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyRead) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      if (!result.ok) req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBodyBytes) return finish(tooLarge(limits.maxBodyBytes));
      chunks.push(chunk);
    };
    const timer = setTimeout(() => finish({ ok: false, refusal: { status: 408, type: 'request_timeout', message: `the request body did not arrive within ${limits.bodyTimeoutMs} ms; the model proxy does not wait for slow bodies` } }), limits.bodyTimeoutMs);
    req.on('data', onData);
    req.once('end', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    const ended = () => finish({ ok: false, refusal: { status: 400, type: 'invalid_request_error', message: 'the request body ended before it was complete' } });
    req.once('error', ended);
    req.once('close', ended);
  });
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
  const { upstream } = options;
  const limits: ProxyLimits = { ...DEFAULT_PROXY_LIMITS, ...options.limits };
  const content = checkContentPolicy(options.content ?? TEXT_ONLY);
  const route: { translator: Translator; forwarded?: undefined } | { translator?: undefined; forwarded: ForwardedUpstream } = isTranslated(upstream)
    ? { translator: createTranslator(upstream, limits.maxResponseBytes, content) }
    : { forwarded: upstream };
  // The worker's own secret values, plus the ones of the environment the upstream was built from (a test's or a
  // deployment's env may not be process.env): nothing that reaches the container may carry them.
  const hostSecrets = isTranslated(upstream) ? upstream.hostSecrets() : upstream.apiKey ? [upstream.apiKey] : [];
  // Tool-server credentials are host secrets too: a server echoing its request headers must not hand them over.
  const mcpServers = options.mcpServers ?? new Map<string, McpUpstream>();
  for (const server of mcpServers.values()) hostSecrets.push(...server.secrets);
  const redact = (text: string) => redactSecrets(text, [...secretValuesFromEnv(), ...hostSecrets]);
  const calls: ProxyCall[] = [];
  const mcpCalls: McpProxyCall[] = [];
  const usage = { input_tokens: 0, output_tokens: 0 };
  const ledger: BudgetLedger = { budget: options.tokenBudget, spent: 0, reserved: 0 };
  const refusalKinds = new Set<string>();
  let refusalsRecorded = 0;
  let active = 0;
  const inFlight = new Set<Promise<void>>();
  const closing = new AbortController();

  function refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal, unread: boolean): void {
    const kind = `${refusal.status} ${refusal.type}`;
    if (refusalsRecorded < MAX_REFUSAL_RECORDS || !refusalKinds.has(kind)) {
      refusalKinds.add(kind);
      refusalsRecorded += 1;
      calls.push({ at: new Date().toISOString(), status: refusal.status, latency_ms: 0, input_tokens: 0, output_tokens: 0, error: refusal.message });
    }
    if (unread) closeAfterAnswer(req, res);
    send(res, refusal.status, refusal.message, refusal.type);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (isMcpPath(path)) return handleMcp(req, res, path);
    if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) {
      return refuse(req, res, { status: 404, type: 'invalid_request_error', message: `the model proxy serves POST /v1/chat/completions only, not ${req.method} ${path}` }, true);
    }
    // The slot is taken before the body is read: reading is what holds memory.
    if (active >= limits.maxConcurrentCalls) {
      return refuse(req, res, { status: 429, type: 'concurrency_limit', message: `the model proxy takes at most ${limits.maxConcurrentCalls} calls at a time and ${active} are in flight: wait for an answer before the next call` }, true);
    }
    active += 1;
    try {
      await serve(req, res);
    } finally {
      active -= 1;
    }
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const read = await readBody(req, limits);
    if (!read.ok) return refuse(req, res, read.refusal, true);
    let request: unknown;
    try {
      request = JSON.parse(read.text || '{}');
    } catch { /* refused below */ }
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return refuse(req, res, { status: 400, type: 'invalid_request_error', message: 'request body is not a JSON object' }, false);
    }
    const checked = checkChatRequest(request as Record<string, unknown>, upstream.model, content);
    if (!checked.ok) return refuse(req, res, checked.refusal, false);
    // How the call goes upstream is settled before anything is reserved: what cannot be translated is refused here.
    let send: (maxTokens: number) => Promise<UpstreamAnswer>;
    if (route.translator) {
      const { translator } = route;
      const translated = translator.translate(checked.body);
      if (!translated.ok) return refuse(req, res, translated.refusal, false);
      send = (maxTokens) => translator.ask(translated.prompt, maxTokens, upstreamSignal());
    } else {
      const { forwarded } = route;
      send = (maxTokens) => askUpstream(forwarded, { ...checked.body, max_tokens: maxTokens });
    }
    const inputTokens = estimateInputTokens(checked.body, content.images?.tokensPerImage);
    const decision = budgetDecision(ledger, { inputTokens, requestedMaxTokens: checked.requestedMaxTokens, connectionMaxTokens: upstream.maxOutputTokens, maxInputTokens: limits.maxInputTokens });
    if (!decision.allow) return refuse(req, res, decision.refusal, false);
    // Reserved in the same synchronous run as the decision: no other call can see the budget between the two.
    ledger.reserved += decision.reserve;
    const reservation: TokenUsage = { input_tokens: inputTokens, output_tokens: decision.maxTokens };
    const ask = () => send(decision.maxTokens);
    if (!options.tracing?.config.enabled) {
      await forward(ask, reservation, res);
      return;
    }
    const messages = checked.body.messages as Array<{ role?: string; content?: unknown }>;
    const system = messages.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : '')).join('');
    return options.tracing.span(`llm proxy ${upstream.model}`, { llm_model: upstream.model, system_prompt_length: system.length, ...options.trace }, async (span) => {
      span?.setAttributes({ 'langfuse.observation.type': 'generation', 'gen_ai.request.model': upstream.model, 'gen_ai.request.max_tokens': decision.maxTokens, 'langfuse.observation.input': JSON.stringify(messages).slice(0, 100_000) });
      const call = await forward(ask, reservation, res);
      span?.setAttributes({ 'gen_ai.usage.input_tokens': call.input_tokens, 'gen_ai.usage.output_tokens': call.output_tokens, 'http.response.status_code': call.status, ...(call.output ? { 'langfuse.observation.output': call.output.slice(0, 100_000) } : {}) });
      if (call.error) span?.setStatus({ code: 2, message: call.error });
    });
  }

  /**
   * A tool-server request: checked against this run's servers, forwarded with the configured headers added on the
   * host, the answer bounded and redacted. Takes a call slot like a model call, so both together stay bounded.
   */
  async function handleMcp(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const started = performance.now();
    const route = mcpRoute(req.method, path, mcpServers);
    const record = (server: string, status: number, error?: string) => {
      if (mcpCalls.length < MAX_REFUSAL_RECORDS * 5) mcpCalls.push({ at: new Date().toISOString(), server, method: req.method ?? '', status, latency_ms: Math.round(performance.now() - started), ...(error ? { error } : {}) });
    };
    if (route.kind === 'refuse') {
      record(path.slice('/mcp/'.length, 100), route.status, route.message);
      closeAfterAnswer(req, res);
      return send(res, route.status, route.message, route.type);
    }
    if (active >= limits.maxConcurrentCalls) {
      record(route.server, 429, 'concurrency_limit');
      closeAfterAnswer(req, res);
      return send(res, 429, `the proxy takes at most ${limits.maxConcurrentCalls} calls at a time and ${active} are in flight`, 'concurrency_limit');
    }
    active += 1;
    try {
      const read = await readBody(req, limits);
      if (!read.ok) {
        record(route.server, read.refusal.status, read.refusal.message);
        closeAfterAnswer(req, res);
        return send(res, read.refusal.status, read.refusal.message, read.refusal.type);
      }
      let answer: Response;
      let text: string;
      try {
        // No redirects: the configured headers (credentials) go to the configured address only.
        answer = await fetch(route.upstream.url, {
          method: req.method, headers: mcpRequestHeaders(req.headers, route.upstream), redirect: 'manual', signal: upstreamSignal(),
          ...(req.method === 'POST' ? { body: read.text } : {}),
        });
        text = await readAnswer(answer, limits.maxResponseBytes);
      } catch (error) {
        const message = redact((error as Error).message);
        record(route.server, 502, message);
        return send(res, 502, `the proxy could not reach tool server ${route.server}: ${message}`, 'server_error');
      }
      record(route.server, answer.status, answer.status >= 400 ? redact(text.slice(0, 300)) : undefined);
      res.statusCode = answer.status;
      for (const [name, value] of Object.entries(mcpAnswerHeaders(answer.headers))) res.setHeader(name, value);
      res.end(redact(text));
    } finally {
      active -= 1;
    }
  }

  /** Ends a call when the run ends or the call takes too long. */
  function upstreamSignal(): AbortSignal {
    return AbortSignal.any([closing.signal, AbortSignal.timeout(limits.upstreamTimeoutMs)]);
  }

  /** Forwards a checked body to an openai-compatible connection as is. */
  async function askUpstream(forwarded: ForwardedUpstream, body: Record<string, unknown>): Promise<UpstreamAnswer> {
    const answer = await fetch(`${forwarded.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(forwarded.apiKey ? { authorization: `Bearer ${forwarded.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: upstreamSignal(),
    });
    const text = await readAnswer(answer, limits.maxResponseBytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch { /* not JSON: passed on as is */ }
    const choices = typeof parsed === 'object' && parsed !== null ? (parsed as { choices?: unknown }).choices : undefined;
    const retryAfter = answer.status >= 400 ? answer.headers.get('retry-after') : null;
    return {
      status: answer.status, contentType: answer.headers.get('content-type') ?? 'application/json', text, usage: reportedUsage(parsed),
      ...(parsed !== undefined ? { output: JSON.stringify(choices ?? null) } : {}),
      ...(retryAfter ? { retryAfter } : {}),
    };
  }

  /** Releases a call's reservation and charges what it cost (see settledCharge). */
  function settle(call: ProxyCall, reservation: TokenUsage, outcome: UpstreamOutcome): void {
    const charge = settledCharge(reservation, outcome);
    ledger.reserved -= reservation.input_tokens + reservation.output_tokens;
    ledger.spent += charge.input_tokens + charge.output_tokens;
    usage.input_tokens += charge.input_tokens;
    usage.output_tokens += charge.output_tokens;
    call.input_tokens = charge.input_tokens;
    call.output_tokens = charge.output_tokens;
    if (charge.estimated) call.usage_estimated = true;
    if (charge.input_tokens + charge.output_tokens > 0) {
      options.spendLedger?.append({ at: call.at, input_tokens: charge.input_tokens, output_tokens: charge.output_tokens, ...(charge.estimated ? { estimated: true } : {}) });
    }
  }

  /** Makes one call upstream and answers the container; returns the call's record (and the answer, for a trace). */
  async function forward(ask: () => Promise<UpstreamAnswer>, reservation: TokenUsage, res: ServerResponse): Promise<ProxyCall & { output?: string }> {
    const started = performance.now();
    const call: ProxyCall = { at: new Date().toISOString(), status: 0, latency_ms: 0, input_tokens: 0, output_tokens: 0 };
    calls.push(call);
    let answer: UpstreamAnswer | undefined;
    let failure = '';
    try {
      answer = await ask();
    } catch (error) {
      failure = redact((error as Error).message);
    } finally {
      settle(call, reservation, answer ? { answered: true, status: answer.status, usage: answer.usage } : { answered: false });
      call.latency_ms = Math.round(performance.now() - started);
    }
    if (!answer) {
      call.status = 502;
      call.error = failure;
      send(res, 502, `model proxy could not get an answer from the model: ${failure}`, 'server_error');
      return call;
    }
    call.status = answer.status;
    if (answer.status >= 400) call.error = redact(answer.text.slice(0, 300));
    res.statusCode = answer.status;
    res.setHeader('content-type', answer.contentType);
    if (answer.retryAfter) res.setHeader('retry-after', answer.retryAfter);
    // Never pass on anything that could carry the credential back (a provider echoing headers).
    res.end(redact(answer.text));
    return { ...call, ...(answer.output ? { output: answer.output } : {}) };
  }

  const server = createServer({ headersTimeout: limits.bodyTimeoutMs, requestTimeout: limits.bodyTimeoutMs * 2 }, (req, res) => {
    const handled = handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else send(res, 500, `model proxy: ${redact((error as Error).message)}`, 'server_error');
    }).finally(() => inFlight.delete(handled));
    inFlight.add(handled);
  });
  server.maxConnections = limits.maxConnections;
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
  return {
    socketPath: options.socketPath,
    calls,
    mcpCalls,
    usage: () => ({ ...usage }),
    close: async () => {
      // Calls in flight are abandoned and settled (charged their reservation) before usage() is read.
      closing.abort(new Error('the model proxy was closed: the run ended'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
      await rm(options.socketPath, { force: true });
    },
  };
}
