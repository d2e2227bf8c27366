import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactSecrets, secretValuesFromEnv } from '../redaction/redact-secrets';
import type { Tracing } from '../tracing/start-tracing';
import { checkContentPolicy, TEXT_ONLY, type ContentPolicy } from './proxy-content-policy';
import {
  budgetDecision, checkChatRequest, estimateInputTokens, reportedUsage, settledCharge,
  type BudgetLedger, type Refusal, type TokenUsage, type UpstreamOutcome,
} from './proxy-request-policy';
import { isMcpPath, mcpAnswerHeaders, mcpRequestHeaders, mcpRoute, type McpUpstream } from './mcp-route';
import type { ForwardedUpstream, McpProxyCall, ModelProxyOptions, ProxyCall, ProxyLimits, ProxyUpstream } from './model-proxy';
import { createTranslator, type TranslatedUpstream, type Translator } from './translated-upstream';
import { readAnswer, type UpstreamAnswer } from './upstream-answer';

function isTranslated(upstream: ProxyUpstream): upstream is TranslatedUpstream {
  return 'languageModel' in upstream;
}

type UpstreamRoute = { translator: Translator; forwarded?: undefined } | { translator?: undefined; forwarded: ForwardedUpstream };

/**
 * What one proxy holds across its requests (model-proxy.ts starts and stops the server; this file handles each
 * request): the budget ledger, the call slots and the records are the proxy's, not a request's.
 */
export interface ProxyState {
  readonly options: ModelProxyOptions;
  readonly upstream: ProxyUpstream;
  readonly limits: ProxyLimits;
  readonly content: ContentPolicy;
  readonly route: UpstreamRoute;
  readonly mcpServers: ReadonlyMap<string, McpUpstream>;
  readonly redact: (text: string) => string;
  readonly calls: ProxyCall[];
  readonly mcpCalls: McpProxyCall[];
  readonly usage: TokenUsage;
  readonly ledger: BudgetLedger;
  readonly refusalKinds: Set<string>;
  refusalsRecorded: number;
  /** Model and tool-server calls together, so both together stay bounded. */
  active: number;
  readonly closing: AbortController;
}

export function createProxyState(options: ModelProxyOptions, limits: ProxyLimits): ProxyState {
  const { upstream } = options;
  const content = checkContentPolicy(options.content ?? TEXT_ONLY);
  const route: UpstreamRoute = isTranslated(upstream)
    ? { translator: createTranslator(upstream, limits.maxResponseBytes, content) }
    : { forwarded: upstream };
  // The worker's own secret values, plus the ones of the environment the upstream was built from (a test's or a
  // deployment's env may not be process.env): nothing that reaches the container may carry them.
  const hostSecrets = isTranslated(upstream) ? upstream.hostSecrets() : upstream.apiKey ? [upstream.apiKey] : [];
  // Tool-server credentials are host secrets too: a server echoing its request headers must not hand them over.
  const mcpServers = options.mcpServers ?? new Map<string, McpUpstream>();
  for (const server of mcpServers.values()) hostSecrets.push(...server.secrets);
  return {
    options, upstream, limits, content, route, mcpServers,
    redact: (text: string) => redactSecrets(text, [...secretValuesFromEnv(), ...hostSecrets]),
    calls: [],
    mcpCalls: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    ledger: { budget: options.tokenBudget, spent: 0, reserved: 0 },
    refusalKinds: new Set<string>(),
    refusalsRecorded: 0,
    active: 0,
    closing: new AbortController(),
  };
}

/** Refusals past this many are counted by kind only (the first of each kind is always kept), so a loop of refused calls cannot grow the worker's memory. */
const MAX_REFUSAL_RECORDS = 200;

export function send(res: ServerResponse, status: number, message: string, type: string): void {
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

function refuse(state: ProxyState, req: IncomingMessage, res: ServerResponse, refusal: Refusal, unread: boolean): void {
  const kind = `${refusal.status} ${refusal.type}`;
  if (state.refusalsRecorded < MAX_REFUSAL_RECORDS || !state.refusalKinds.has(kind)) {
    state.refusalKinds.add(kind);
    state.refusalsRecorded += 1;
    state.calls.push({ at: new Date().toISOString(), status: refusal.status, latency_ms: 0, input_tokens: 0, output_tokens: 0, error: refusal.message });
  }
  if (unread) closeAfterAnswer(req, res);
  send(res, refusal.status, refusal.message, refusal.type);
}

/** Ends a call when the run ends or the call takes too long. */
function upstreamSignal(state: ProxyState): AbortSignal {
  return AbortSignal.any([state.closing.signal, AbortSignal.timeout(state.limits.upstreamTimeoutMs)]);
}

/** Routes one request: a tool-server request, or a model call once it has a call slot. */
export async function handleRequest(state: ProxyState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (isMcpPath(path)) return handleMcp(state, req, res, path);
  if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) {
    return refuse(state, req, res, { status: 404, type: 'invalid_request_error', message: `the model proxy serves POST /v1/chat/completions only, not ${req.method} ${path}` }, true);
  }
  // The slot is taken before the body is read: reading is what holds memory.
  if (state.active >= state.limits.maxConcurrentCalls) {
    return refuse(state, req, res, { status: 429, type: 'concurrency_limit', message: `the model proxy takes at most ${state.limits.maxConcurrentCalls} calls at a time and ${state.active} are in flight: wait for an answer before the next call` }, true);
  }
  state.active += 1;
  try {
    await serve(state, req, res);
  } finally {
    state.active -= 1;
  }
}

async function serve(state: ProxyState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const read = await readBody(req, state.limits);
  if (!read.ok) return refuse(state, req, res, read.refusal, true);
  const admitted = admitChatCall(state, read.text);
  if (!admitted.ok) return refuse(state, req, res, admitted.refusal, false);
  if (!state.options.tracing?.config.enabled) {
    await forward(state, admitted.ask, admitted.reservation, res);
    return;
  }
  return forwardTraced(state, state.options.tracing, admitted, res);
}

/** A model call let through, its tokens reserved. */
interface AdmittedCall {
  ok: true;
  ask: () => Promise<UpstreamAnswer>;
  reservation: TokenUsage;
  maxTokens: number;
  body: Record<string, unknown>;
}

/**
 * Applies the request policy and the budget to a read body, and reserves the call's tokens. Synchronous on purpose,
 * from the decision to the reservation (see below).
 */
function admitChatCall(state: ProxyState, text: string): AdmittedCall | { ok: false; refusal: Refusal } {
  const request = parseObject(text);
  if (!request) return { ok: false, refusal: { status: 400, type: 'invalid_request_error', message: 'request body is not a JSON object' } };
  const { upstream } = state;
  const checked = checkChatRequest(request, upstream.model, state.content);
  if (!checked.ok) return { ok: false, refusal: checked.refusal };
  // How the call goes upstream is settled before anything is reserved: what cannot be translated is refused here.
  const sender = upstreamSender(state, checked.body);
  if (!sender.ok) return { ok: false, refusal: sender.refusal };
  const inputTokens = estimateInputTokens(checked.body, state.content.images?.tokensPerImage);
  const decision = budgetDecision(state.ledger, { inputTokens, requestedMaxTokens: checked.requestedMaxTokens, connectionMaxTokens: upstream.maxOutputTokens, maxInputTokens: state.limits.maxInputTokens });
  if (!decision.allow) return { ok: false, refusal: decision.refusal };
  // Reserved in the same synchronous run as the decision: no other call can see the budget between the two.
  state.ledger.reserved += decision.reserve;
  return {
    ok: true,
    ask: () => sender.send(decision.maxTokens),
    reservation: { input_tokens: inputTokens, output_tokens: decision.maxTokens },
    maxTokens: decision.maxTokens,
    body: checked.body,
  };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  let request: unknown;
  try {
    request = JSON.parse(text || '{}');
  } catch { /* refused by the caller */ }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return undefined;
  return request as Record<string, unknown>;
}

type UpstreamSender = { ok: true; send: (maxTokens: number) => Promise<UpstreamAnswer> } | { ok: false; refusal: Refusal };

function upstreamSender(state: ProxyState, body: Record<string, unknown>): UpstreamSender {
  if (state.route.translator) {
    const { translator } = state.route;
    const translated = translator.translate(body);
    if (!translated.ok) return { ok: false, refusal: translated.refusal };
    return { ok: true, send: (maxTokens) => translator.ask(translated.prompt, maxTokens, upstreamSignal(state)) };
  }
  const { forwarded } = state.route;
  return { ok: true, send: (maxTokens) => askUpstream(state, forwarded, { ...body, max_tokens: maxTokens }) };
}

/** Forwards an admitted call inside a generation span (LLM tracing). */
function forwardTraced(state: ProxyState, tracing: Tracing, admitted: AdmittedCall, res: ServerResponse): Promise<void> {
  const { model } = state.upstream;
  const messages = admitted.body.messages as Array<{ role?: string; content?: unknown }>;
  const system = messages.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : '')).join('');
  return tracing.span(`llm proxy ${model}`, { llm_model: model, system_prompt_length: system.length, ...state.options.trace }, async (span) => {
    span?.setAttributes({ 'langfuse.observation.type': 'generation', 'gen_ai.request.model': model, 'gen_ai.request.max_tokens': admitted.maxTokens, 'langfuse.observation.input': JSON.stringify(messages).slice(0, 100_000) });
    const call = await forward(state, admitted.ask, admitted.reservation, res);
    span?.setAttributes({ 'gen_ai.usage.input_tokens': call.input_tokens, 'gen_ai.usage.output_tokens': call.output_tokens, 'http.response.status_code': call.status, ...(call.output ? { 'langfuse.observation.output': call.output.slice(0, 100_000) } : {}) });
    if (call.error) span?.setStatus({ code: 2, message: call.error });
  });
}

/**
 * A tool-server request: checked against this run's servers, forwarded with the configured headers added on the
 * host, the answer bounded and redacted. Takes a call slot like a model call, so both together stay bounded.
 */
async function handleMcp(state: ProxyState, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const { limits, redact } = state;
  const started = performance.now();
  const route = mcpRoute(req.method, path, state.mcpServers);
  const record = (server: string, status: number, error?: string) => {
    if (state.mcpCalls.length < MAX_REFUSAL_RECORDS * 5) state.mcpCalls.push({ at: new Date().toISOString(), server, method: req.method ?? '', status, latency_ms: Math.round(performance.now() - started), ...(error ? { error } : {}) });
  };
  if (route.kind === 'refuse') {
    record(path.slice('/mcp/'.length, 100), route.status, route.message);
    closeAfterAnswer(req, res);
    return send(res, route.status, route.message, route.type);
  }
  if (state.active >= limits.maxConcurrentCalls) {
    record(route.server, 429, 'concurrency_limit');
    closeAfterAnswer(req, res);
    return send(res, 429, `the proxy takes at most ${limits.maxConcurrentCalls} calls at a time and ${state.active} are in flight`, 'concurrency_limit');
  }
  state.active += 1;
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
        method: req.method, headers: mcpRequestHeaders(req.headers, route.upstream), redirect: 'manual', signal: upstreamSignal(state),
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
    state.active -= 1;
  }
}

/** Forwards a checked body to an openai-compatible connection as is. */
async function askUpstream(state: ProxyState, forwarded: ForwardedUpstream, body: Record<string, unknown>): Promise<UpstreamAnswer> {
  const answer = await fetch(`${forwarded.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwarded.apiKey ? { authorization: `Bearer ${forwarded.apiKey}` } : {}) },
    body: JSON.stringify(body),
    signal: upstreamSignal(state),
  });
  const text = await readAnswer(answer, state.limits.maxResponseBytes);
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
function settle(state: ProxyState, call: ProxyCall, reservation: TokenUsage, outcome: UpstreamOutcome): void {
  const { ledger, usage } = state;
  const charge = settledCharge(reservation, outcome);
  ledger.reserved -= reservation.input_tokens + reservation.output_tokens;
  ledger.spent += charge.input_tokens + charge.output_tokens;
  usage.input_tokens += charge.input_tokens;
  usage.output_tokens += charge.output_tokens;
  call.input_tokens = charge.input_tokens;
  call.output_tokens = charge.output_tokens;
  if (charge.estimated) call.usage_estimated = true;
  if (charge.input_tokens + charge.output_tokens > 0) {
    state.options.spendLedger?.append({ at: call.at, input_tokens: charge.input_tokens, output_tokens: charge.output_tokens, ...(charge.estimated ? { estimated: true } : {}) });
  }
}

/** Makes one call upstream and answers the container; returns the call's record (and the answer, for a trace). */
async function forward(state: ProxyState, ask: () => Promise<UpstreamAnswer>, reservation: TokenUsage, res: ServerResponse): Promise<ProxyCall & { output?: string }> {
  const started = performance.now();
  const call: ProxyCall = { at: new Date().toISOString(), status: 0, latency_ms: 0, input_tokens: 0, output_tokens: 0 };
  state.calls.push(call);
  let answer: UpstreamAnswer | undefined;
  let failure = '';
  try {
    answer = await ask();
  } catch (error) {
    failure = state.redact((error as Error).message);
  } finally {
    settle(state, call, reservation, answer ? { answered: true, status: answer.status, usage: answer.usage } : { answered: false });
    call.latency_ms = Math.round(performance.now() - started);
  }
  if (!answer) {
    call.status = 502;
    call.error = failure;
    send(res, 502, `model proxy could not get an answer from the model: ${failure}`, 'server_error');
    return call;
  }
  call.status = answer.status;
  if (answer.status >= 400) call.error = state.redact(answer.text.slice(0, 300));
  res.statusCode = answer.status;
  res.setHeader('content-type', answer.contentType);
  if (answer.retryAfter) res.setHeader('retry-after', answer.retryAfter);
  // Never pass on anything that could carry the credential back (a provider echoing headers).
  res.end(state.redact(answer.text));
  return { ...call, ...(answer.output ? { output: answer.output } : {}) };
}
