/**
 * The bounded, in-process retry used by provider clients. It exists for short blips on reads; long waits and
 * retries of writes belong to the durable effect, which can sleep for hours and reconciles before repeating.
 */

export interface RetryPolicy {
  /** Total attempts including the first; 1 disables retries. */
  maxAttempts: number;
  /** First backoff delay when the provider gives no Retry-After. Doubles per attempt. */
  initialDelayMs: number;
  maxDelayMs: number;
  /**
   * A Retry-After longer than this is not waited for in-process: the error is surfaced with its retryAfterMs so the
   * workflow can wait durably instead of holding an activity slot.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** Parses Retry-After (delta seconds or an HTTP date) into milliseconds; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Exponential backoff with full jitter for attempt n (1-based: the wait before attempt n+1). */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
