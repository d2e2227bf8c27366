import { signHmacSha256 } from '../../src/gateway/webhook-signature';

export interface PostResult {
  status: number;
  body: Record<string, any>;
}

/** Posts a body as a provider would: raw JSON bytes, signed over exactly those bytes when a secret is given. */
export async function postWebhook(
  url: string,
  payload: unknown,
  options: { secret?: string; signatureHeader?: string; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<PostResult> {
  const body = options.rawBody ?? JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.secret) headers[options.signatureHeader ?? 'x-hub-signature'] = signHmacSha256(body, options.secret);
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) as Record<string, any> : {} };
}

export async function getJson(url: string, token?: string): Promise<PostResult> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) as Record<string, any> : {} };
}

/** Polls until `probe` returns a value (not undefined) or the time is up; eventual consistency without sleeps. */
/** Thrown by a probe of `eventually` to stop waiting at once: what it waits for can no longer happen. */
export class WaitAborted extends Error {
  override readonly name = 'WaitAborted';
}

export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof WaitAborted) throw new Error(`gave up waiting for ${what}: ${error.message}`);
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}
