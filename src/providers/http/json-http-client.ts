/**
 * The small fetch-based HTTP layer shared by the tracker and GitLab clients: JSON in and out, a timeout per
 * attempt, typed errors with redacted messages, a latency hook for metrics, and a bounded retry that is only
 * applied where repeating the request cannot apply a write twice.
 */
import {
  ProviderError,
  ProviderName,
  RetryableProviderError,
  TerminalProviderError,
  providerErrorForStatus,
} from '../provider-errors';
import { DEFAULT_RETRY_POLICY, RetryPolicy, backoffDelayMs, parseRetryAfterMs, sleep } from '../retry-policy';

export type LatencyService = 'tracker' | 'scmhost';
export type LatencyHook = (service: LatencyService, seconds: number) => void;

export interface JsonHttpClientOptions {
  provider: ProviderName;
  /** Root all request paths are appended to, e.g. `https://acme.atlassian.net` or `https://gitlab.example/api/v4`. */
  baseUrl: string;
  /** Sent with every request (authentication, accept). */
  headers: Record<string, string>;
  /** Per attempt. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  onLatency?: LatencyHook;
  /** Credential values to redact from error messages in addition to the environment's secrets. */
  secrets?: readonly string[];
  /** For tests. */
  fetch?: typeof fetch;
}

export interface JsonRequest {
  /** Client operation name, for error messages. */
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /**
   * Whether repeating the request is harmless. Defaults to true for GET, PUT and DELETE. Non-idempotent requests are
   * retried only when the provider certainly did not apply them (429, connection refused).
   */
  idempotent?: boolean;
}

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const REQUEST_ID_HEADERS = ['x-arequestid', 'x-github-request-id', 'x-request-id'];

/** Error codes undici reports when the request never left this machine, so no write can have happened. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

export class JsonHttpClient {
  readonly provider: ProviderName;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly onLatency?: LatencyHook;
  private readonly secrets: readonly string[];
  private readonly fetchImpl: typeof fetch;

  constructor(options: JsonHttpClientOptions) {
    this.provider = options.provider;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.headers = options.headers;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.onLatency = options.onLatency;
    this.secrets = options.secrets ?? [];
    this.fetchImpl = options.fetch ?? fetch;
  }

  async request<T = unknown>(request: JsonRequest): Promise<JsonResponse<T>> {
    const idempotent = request.idempotent ?? (request.method !== 'POST' && request.method !== 'PATCH');
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt<T>(request, idempotent);
      } catch (error) {
        const wait = this.retryWait(error, idempotent, attempt);
        if (wait === undefined) throw error;
        await sleep(wait);
      }
    }
  }

  /** How long to wait before the next attempt, or undefined to give up and surface the error. */
  private retryWait(error: unknown, idempotent: boolean, attempt: number): number | undefined {
    if (!(error instanceof RetryableProviderError) || attempt >= this.retry.maxAttempts) return undefined;
    // A write whose outcome is unknown must be reconciled by the effect journal, never repeated blindly.
    if (!idempotent && error.outcomeUnknown) return undefined;
    // Other retryable write failures (5xx) are only safe to repeat when the provider told us it did nothing: 429.
    if (!idempotent && error.status !== 429 && !error.notSent) return undefined;
    if (error.retryAfterMs !== undefined) {
      return error.retryAfterMs <= this.retry.maxRetryAfterMs ? error.retryAfterMs : undefined;
    }
    return backoffDelayMs(this.retry, attempt);
  }

  private async attempt<T>(request: JsonRequest, idempotent: boolean): Promise<JsonResponse<T>> {
    const url = new URL(this.baseUrl + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const base = { provider: this.provider, operation: request.operation, method: request.method, path: request.path, secrets: this.secrets };
    const started = performance.now();
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      this.reportLatency(started);
      throw networkError(error, base, idempotent, this.timeoutMs);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      this.reportLatency(started);
      throw networkError(error, base, idempotent, this.timeoutMs);
    }
    this.reportLatency(started);
    const requestId = REQUEST_ID_HEADERS.map((name) => response.headers.get(name)).find((value) => value) ?? undefined;
    if (!response.ok) {
      const writeAmbiguous = !idempotent && [500, 502, 504].includes(response.status);
      throw providerErrorForStatus(response.status, {
        ...base,
        requestId,
        retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after')),
        providerMessage: providerMessageOf(text),
        outcomeUnknown: writeAmbiguous,
      });
    }
    let body: unknown = undefined;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw new TerminalProviderError('response is not JSON', { ...base, status: response.status, requestId, cause: error, outcomeUnknown: !idempotent });
      }
    }
    return { status: response.status, headers: response.headers, body: body as T };
  }

  private reportLatency(started: number): void {
    if (!this.onLatency) return;
    // GitLab is a source host too; the metric's label has two values for hosts (SPEC 4.5).
    this.onLatency(this.provider === 'tracker' ? 'tracker' : 'scmhost', (performance.now() - started) / 1000);
  }
}

function networkError(
  error: unknown,
  base: { provider: ProviderName; operation: string; method: string; path: string; secrets: readonly string[] },
  idempotent: boolean,
  timeoutMs: number,
): ProviderError {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new RetryableProviderError(`timed out after ${timeoutMs} ms`, { ...base, cause: error, outcomeUnknown: !idempotent });
  }
  const code = errorCode(error);
  const notSent = code !== undefined && NOT_SENT_CODES.has(code);
  return new RetryableProviderError(`network error${code ? ` ${code}` : ''}`, {
    ...base,
    cause: error,
    notSent,
    outcomeUnknown: !idempotent && !notSent,
  });
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Pulls the human-readable message out of Jira, GitHub and GitLab error bodies. */
export function providerMessageOf(text: string): string | undefined {
  if (!text.trim()) return undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const messages: string[] = [];
    if (Array.isArray(body.errorMessages)) messages.push(...body.errorMessages.map(String));
    if (body.errors && typeof body.errors === 'object' && !Array.isArray(body.errors)) {
      for (const [field, message] of Object.entries(body.errors)) messages.push(`${field}: ${String(message)}`);
    }
    if (typeof body.message === 'string') messages.push(body.message);
    else if (body.message && typeof body.message === 'object') messages.push(JSON.stringify(body.message));
    if (typeof body.error === 'string') messages.push(body.error);
    if (messages.length > 0) return messages.join('; ').slice(0, 1000);
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.slice(0, 500);
}
