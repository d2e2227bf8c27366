/**
 * Typed errors for every call to an outside system. Each carries what an operator needs to act on a failure
 * (provider, method, path, status, retry-after, request id) with credentials already redacted, and says which way
 * the durable effect that made the call should go: retry, stop, wait for a fix, or reconcile an unknown outcome.
 *
 * The class names are stable: Temporal turns an error thrown by an activity into an ApplicationFailure whose `type`
 * is the error's `name`, so workflow code can branch on these names without importing this module.
 */
import { redactSecrets, secretValuesFromEnv } from '../redaction/redact-secrets';

export type ProviderName = 'tracker' | 'scmhost' | 'gitlab';

/** What a durable effect records for a failed attempt (DESIGN 5, SPEC 2.3). */
export type EffectFailureStatus = 'retryable_failure' | 'terminal_failure' | 'precondition_failure' | 'indeterminate';

export interface ProviderErrorDetails {
  provider: ProviderName;
  /** The client operation, e.g. `addComment`. */
  operation?: string;
  method: string;
  /** Request path without the query string (queries can carry tokens). */
  path: string;
  status?: number;
  /** The provider's own request id (Jira X-AREQUESTID, GitHub X-GitHub-Request-Id, GitLab X-Request-Id). */
  requestId?: string;
  /** How long the provider asked us to wait before trying again. */
  retryAfterMs?: number;
  /**
   * True when a write may or may not have been applied: it timed out or the connection dropped after the request
   * was sent, or the provider answered with an ambiguous 5xx. The effect journal must reconcile (find the write by
   * its idempotency key) before repeating it.
   */
  outcomeUnknown?: boolean;
  /** True when the connection failed before the request left this machine, so nothing can have been applied. */
  notSent?: boolean;
  /** The provider's error message(s), redacted. */
  providerMessage?: string;
  cause?: unknown;
  /** Extra secret values to redact from the message, e.g. the client's own token. */
  secrets?: readonly string[];
}

export abstract class ProviderError extends Error {
  readonly provider: ProviderName;
  readonly operation?: string;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly outcomeUnknown: boolean;
  readonly notSent: boolean;
  readonly providerMessage?: string;
  abstract readonly retryable: boolean;

  constructor(summary: string, details: ProviderErrorDetails) {
    const secrets = [...(details.secrets ?? []), ...secretValuesFromEnv()];
    const providerMessage = details.providerMessage === undefined ? undefined : redactSecrets(details.providerMessage, secrets);
    const path = redactSecrets(details.path, secrets);
    const parts = [
      `${details.provider} ${details.method} ${path}`,
      details.status === undefined ? undefined : `status ${details.status}`,
      details.operation ? `(${details.operation})` : undefined,
    ].filter(Boolean);
    const message = `${parts.join(' ')}: ${redactSecrets(summary, secrets)}${providerMessage ? ` - ${providerMessage}` : ''}`;
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.provider = details.provider;
    this.operation = details.operation;
    this.method = details.method;
    this.path = path;
    this.status = details.status;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
    this.notSent = details.notSent ?? false;
    this.providerMessage = providerMessage;
  }

  /** How an effect should record this failure. An unknown outcome always wins: the write must be reconciled first. */
  get effectStatus(): EffectFailureStatus {
    if (this.outcomeUnknown) return 'indeterminate';
    if (this instanceof PreconditionProviderError) return 'precondition_failure';
    return this.retryable ? 'retryable_failure' : 'terminal_failure';
  }

  /** A plain, redacted summary for logs, timelines and effect evidence. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      provider: this.provider,
      operation: this.operation,
      method: this.method,
      path: this.path,
      status: this.status,
      requestId: this.requestId,
      retryAfterMs: this.retryAfterMs,
      outcomeUnknown: this.outcomeUnknown,
      effectStatus: this.effectStatus,
    };
  }
}

/** 5xx, 429, network failures and timeouts: trying again later may succeed. */
export class RetryableProviderError extends ProviderError {
  readonly retryable = true;
}

/** A 4xx that will fail the same way every time (bad request, bad credentials, forbidden). */
export class TerminalProviderError extends ProviderError {
  readonly retryable = false;
}

/** 404. A terminal error, separated because callers often treat "not there" as an answer, not a failure. */
export class NotFoundProviderError extends TerminalProviderError {}

/**
 * 409, 412 and 422, and local checks with the same meaning (e.g. no transition leads to the requested status):
 * something must be fixed by a person or by the workflow before the call can succeed.
 */
export class PreconditionProviderError extends ProviderError {
  readonly retryable = false;
}

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError;
}

/** Maps any error to an effect failure status; errors that are not provider errors are treated as unknown outcomes. */
export function effectStatusOf(error: unknown): EffectFailureStatus {
  return isProviderError(error) ? error.effectStatus : 'indeterminate';
}

/** Builds the right error class for an HTTP status. */
export function providerErrorForStatus(status: number, details: Omit<ProviderErrorDetails, 'status'>): ProviderError {
  const withStatus = { ...details, status };
  if (status === 404) return new NotFoundProviderError('not found', withStatus);
  if (status === 409 || status === 412 || status === 422) return new PreconditionProviderError('precondition failed', withStatus);
  if (status === 429) return new RetryableProviderError('rate limited', withStatus);
  if (status === 408) return new RetryableProviderError('request timeout', withStatus);
  if (status >= 500) return new RetryableProviderError('provider error', withStatus);
  if (status === 401) return new TerminalProviderError('authentication failed', withStatus);
  if (status === 403) return new TerminalProviderError('forbidden', withStatus);
  return new TerminalProviderError('request rejected', withStatus);
}
