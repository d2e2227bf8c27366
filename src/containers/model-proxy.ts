import { chmod, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ModelConnection } from '../config/model-configuration';
import { redactSecrets } from '../redaction/redact-secrets';
import type { Tracing } from '../tracing/start-tracing';
import type { TraceContext } from '../tracing/tracing-config';

/**
 * The per-run model proxy (SPEC 5 "Outbound credentials"): an OpenAI chat-completions endpoint on a unix socket that
 * is mounted into the container. It holds the credential, lets through only the one resolved model, enforces the
 * stage's token budget, records usage and latency per call, and is closed when the run ends.
 */
export interface ProxyUpstream {
  /** The OpenAI-compatible API root of the resolved connection. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  maxOutputTokens: number;
}

export class ProxyUpstreamError extends Error {
  override readonly name = 'ProxyUpstreamError';
}

/** The upstream of a resolved connection; container stations speak the chat-completions wire format only. */
export function proxyUpstreamOf(connection: ModelConnection, model: string, env: NodeJS.ProcessEnv = process.env): ProxyUpstream {
  if (connection.backend !== 'openai-compatible') {
    throw new ProxyUpstreamError(`connection ${connection.name} uses the ${connection.backend} backend; the container model proxy forwards to openai-compatible connections only: point this stage's policy key at an openai-compatible connection`);
  }
  const baseUrl = connection.base_url ?? env.OPENAI_BASE_URL;
  if (!baseUrl) throw new ProxyUpstreamError(`connection ${connection.name}: no base_url and no OPENAI_BASE_URL`);
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: env.OPENAI_API_KEY, model, maxOutputTokens: connection.max_output_tokens };
}

export interface ProxyCall {
  at: string;
  status: number;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  error?: string;
}

export type BudgetDecision = { allow: true; maxTokens: number } | { allow: false; reason: string };

/** Whether one more call fits the budget, and how many output tokens it may ask for. Null budget = no limit. */
export function budgetDecision(used: number, budget: number | null, requested: number | undefined, connectionMax: number): BudgetDecision {
  const wanted = Math.min(requested ?? connectionMax, connectionMax);
  if (budget === null) return { allow: true, maxTokens: wanted };
  const remaining = budget - used;
  if (remaining <= 0) return { allow: false, reason: `the stage's token budget of ${budget} is spent (${used} used)` };
  return { allow: true, maxTokens: Math.max(1, Math.min(wanted, remaining)) };
}

export interface ModelProxyOptions {
  socketPath: string;
  upstream: ProxyUpstream;
  tokenBudget: number | null;
  /** Makes the socket connectable by the container's account (a root worker runs containers as another user). */
  socketMode?: number;
  /** LLM tracing (TRACING_ENABLED): each forwarded call becomes a generation span with these trace attributes. */
  tracing?: Tracing;
  trace?: TraceContext;
}

export interface ModelProxy {
  socketPath: string;
  readonly calls: ProxyCall[];
  usage(): { input_tokens: number; output_tokens: number };
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, message: string, type: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: { message, type } }));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
  return parsed as Record<string, unknown>;
}

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const { upstream } = options;
  const calls: ProxyCall[] = [];
  const usage = { input_tokens: 0, output_tokens: 0 };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) return send(res, 404, `the model proxy serves POST /v1/chat/completions only, not ${req.method} ${path}`, 'invalid_request_error');
    let body: Record<string, unknown>;
    try {
      body = await readBody(req);
    } catch {
      return send(res, 400, 'request body is not a JSON object', 'invalid_request_error');
    }
    if (body.model !== upstream.model) return send(res, 403, `model ${String(body.model)} is not allowed; this run may use ${upstream.model} only`, 'permission_error');
    if (body.stream) return send(res, 400, 'the model proxy answers non-streaming requests only', 'invalid_request_error');
    const requested = typeof body.max_tokens === 'number' ? body.max_tokens : typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : undefined;
    const decision = budgetDecision(usage.input_tokens + usage.output_tokens, options.tokenBudget, requested, upstream.maxOutputTokens);
    if (!decision.allow) {
      calls.push({ at: new Date().toISOString(), status: 429, latency_ms: 0, input_tokens: 0, output_tokens: 0, error: decision.reason });
      return send(res, 429, decision.reason, 'budget_exhausted');
    }
    delete body.max_completion_tokens;
    body.max_tokens = decision.maxTokens;
    if (options.tracing?.config.enabled) {
      const messages = Array.isArray(body.messages) ? body.messages as Array<{ role?: string; content?: unknown }> : [];
      const system = messages.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : '')).join('');
      return options.tracing.span(`llm proxy ${upstream.model}`, { llm_model: upstream.model, system_prompt_length: system.length, ...options.trace }, async (span) => {
        span?.setAttributes({ 'langfuse.observation.type': 'generation', 'gen_ai.request.model': upstream.model, 'gen_ai.request.max_tokens': decision.maxTokens, 'langfuse.observation.input': JSON.stringify(messages).slice(0, 100_000) });
        const call = await forward(body, res);
        span?.setAttributes({ 'gen_ai.usage.input_tokens': call.input_tokens, 'gen_ai.usage.output_tokens': call.output_tokens, 'http.response.status_code': call.status, ...(call.output ? { 'langfuse.observation.output': call.output.slice(0, 100_000) } : {}) });
        if (call.error) span?.setStatus({ code: 2, message: call.error });
      });
    }
    await forward(body, res);
  }

  /** Forwards one call upstream and answers the container; returns the call's record (and the answer, for a trace). */
  async function forward(body: Record<string, unknown>, res: ServerResponse): Promise<ProxyCall & { output?: string }> {
    const started = performance.now();
    const call: ProxyCall = { at: new Date().toISOString(), status: 0, latency_ms: 0, input_tokens: 0, output_tokens: 0 };
    calls.push(call);
    let output: string | undefined;
    try {
      const answer = await fetch(`${upstream.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(upstream.apiKey ? { authorization: `Bearer ${upstream.apiKey}` } : {}) },
        body: JSON.stringify(body),
      });
      const text = await answer.text();
      call.status = answer.status;
      call.latency_ms = Math.round(performance.now() - started);
      try {
        const parsed = JSON.parse(text) as { usage?: { prompt_tokens?: number; completion_tokens?: number } };
        call.input_tokens = parsed.usage?.prompt_tokens ?? 0;
        call.output_tokens = parsed.usage?.completion_tokens ?? 0;
        output = JSON.stringify((parsed as { choices?: unknown }).choices ?? null);
      } catch { /* not JSON: passed on as is */ }
      usage.input_tokens += call.input_tokens;
      usage.output_tokens += call.output_tokens;
      if (!answer.ok) call.error = redactSecrets(text.slice(0, 300));
      res.statusCode = answer.status;
      res.setHeader('content-type', answer.headers.get('content-type') ?? 'application/json');
      // Never pass on anything that could carry the credential back (a provider echoing headers).
      res.end(redactSecrets(text));
    } catch (error) {
      call.status = 502;
      call.latency_ms = Math.round(performance.now() - started);
      call.error = redactSecrets((error as Error).message);
      send(res, 502, `model proxy could not reach the model: ${call.error}`, 'server_error');
    }
    return { ...call, ...(output ? { output } : {}) };
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => send(res, 500, `model proxy: ${redactSecrets((error as Error).message)}`, 'server_error'));
  });
  await rm(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  await chmod(options.socketPath, options.socketMode ?? 0o666);
  return {
    socketPath: options.socketPath,
    calls,
    usage: () => ({ ...usage }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(options.socketPath, { force: true });
    },
  };
}
