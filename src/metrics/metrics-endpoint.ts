import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * Who may read /metrics (the gateway's and the worker's). The families name tickets' states, providers' latencies
 * and the process's memory: when SERVICE_METRICS_TOKEN is set, a scrape needs `Authorization: Bearer <token>`
 * (Prometheus: `authorization` in the scrape config). A token in the query string is never looked at, so it cannot
 * end up in access logs.
 */

export const METRICS_TOKEN_VARIABLE = 'SERVICE_METRICS_TOKEN';

export type MetricsAccess = { allowed: true } | { allowed: false; message: string };

/** Compared through an HMAC of each side, so neither a prefix nor the length shows in the time taken. */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHmac('sha256', 'metrics-token').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Pure: anyone when no token is configured; otherwise the bearer token, in constant time. */
export function metricsAccess(authorization: string | undefined, token: string | undefined): MetricsAccess {
  if (!token) return { allowed: true };
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization.trim()) : null;
  if (!match) return { allowed: false, message: `missing Authorization: Bearer header: ${METRICS_TOKEN_VARIABLE} is set, so /metrics needs that token (a token in the query string is not accepted)` };
  if (!sameToken(match[1]!, token)) return { allowed: false, message: `the bearer token is not the one of ${METRICS_TOKEN_VARIABLE}` };
  return { allowed: true };
}

export interface MetricsEndpointOptions {
  registry: Registry;
  token?: string;
  /** Sets the gauges read at scrape time, once the scrape is allowed. */
  beforeCollect?: () => void;
}

/** Answers a /metrics request (plain Node or Express): 401 with the reason, or the registry's text. */
export async function answerMetrics(req: IncomingMessage, res: ServerResponse, options: MetricsEndpointOptions): Promise<void> {
  const access = metricsAccess(req.headers.authorization, options.token);
  if (!access.allowed) {
    res.statusCode = 401;
    res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ error: { code: 'unauthorized', message: access.message } }));
    return;
  }
  options.beforeCollect?.();
  const text = await options.registry.metrics();
  res.setHeader('Content-Type', options.registry.contentType);
  res.end(text);
}
