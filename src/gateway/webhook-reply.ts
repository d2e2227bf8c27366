import type { Response } from 'express';
import type { Logger } from '../logging/logger';
import type { ServiceMetrics } from '../metrics/service-metrics';
import type { DeliveryOutcome } from '../ingress/deliver-observation';
import { TemporalUnavailableError } from '../temporal/temporal-unavailable-error';
import { errorBody } from './http-errors';
import { jsonNestsDeeperThan, WEBHOOK_JSON_MAX_DEPTH } from './webhook-body';
import type { PendingBodyRefusalReason } from './pending-body-budget';
import type { RefusalLog } from './refusal-log';

export type WebhookSource = 'tracker' | 'scmhost' | 'gitlab';

/**
 * Refusals decided before the sender is authenticated, which anyone can provoke: a forged signature or token (401),
 * a body too large or compressed (413, 415), a full budget (503 with these codes; Temporal's unavailability, also
 * 503, comes only after the signature was checked, and is logged every time).
 */
function refusedUnauthenticated(status: number, code: string): boolean {
  return status === 401 || status === 413 || status === 415 || code === 'too_many_pending_bodies' || code === 'pending_body_bytes_exhausted';
}

/**
 * One way to answer a webhook, whatever its source, so every outcome is counted (received / processed / failed /
 * ignored by reason) and logged the same way, and nothing is answered 2xx before Temporal accepted it. The HTTP
 * status of the answer is counted by webhookResponseCounter in front of the route, which also sees the answers of
 * the gateway's error handler.
 */
export class WebhookReply {
  private event = 'unknown';

  constructor(
    private readonly source: WebhookSource,
    private readonly res: Response,
    private readonly metrics: ServiceMetrics,
    private readonly logger: Logger,
    private readonly acceptedStatus: 200 | 202 = 200,
    /** Where refusals anyone could provoke are logged, a line per kind per interval; without it, every one. */
    private readonly refusals?: RefusalLog,
  ) {}

  received(event: string): void {
    this.event = event;
    this.metrics.webhooksReceived.inc({ source: this.source, event });
  }

  /** After this answer the connection closes instead of reading the rest of a body nobody will use. */
  closeConnection(): void {
    this.res.set('Connection', 'close');
  }

  /** How long a refusal for capacity asks the sender to wait before it tries again. */
  retryAfter(seconds: number): void {
    this.res.set('Retry-After', String(seconds));
  }

  /** A body refused before it was authenticated, by why (a cap of the pending-body budget, or its size). */
  bodyRefused(reason: PendingBodyRefusalReason | 'too_large'): void {
    this.metrics.webhookBodiesRefused.inc({ source: this.source, reason });
  }

  fail(status: number, code: string, message: string): void {
    // Refused before its body was read to the end (a bad signature or token, a cap): Node would otherwise read the
    // rest of the body and throw it away, for as long as the sender keeps sending, to keep the connection alive.
    if (!this.res.req.complete) this.closeConnection();
    this.metrics.webhooksFailed.inc({ source: this.source, event: this.event });
    const fields = { status, code, event: this.event, reason: message };
    if (this.refusals && refusedUnauthenticated(status, code)) this.refusals.warn(`${this.source} ${code}`, `${this.source} webhook rejected`, fields);
    else this.logger.warn(`${this.source} webhook rejected`, fields);
    this.res.status(status).json(errorBody(code, message));
  }

  ignored(reasonCode: string, reason: string, extra: Record<string, unknown> = {}): void {
    this.metrics.webhooksIgnored.inc({ source: this.source, reason: reasonCode });
    this.metrics.webhooksProcessed.inc({ source: this.source, event: this.event });
    this.logger.info(`${this.source} webhook not forwarded`, { event: this.event, reason, ...extra });
    this.res.status(this.acceptedStatus).json({ ignored: reason, ...extra });
  }

  /**
   * The delivery is in the ticket workflow's queue. Only the ledger decides later whether it is a new fact, a
   * duplicate or stale, and that decision is on the ticket's timeline: the HTTP answer promises no more than queued.
   */
  queued(body: Record<string, unknown>): void {
    this.metrics.webhooksProcessed.inc({ source: this.source, event: this.event });
    this.res.status(this.acceptedStatus).json({ status: 'queued', ...body });
  }

  /** Runs the hand-over to Temporal; unavailability becomes 503 so the provider redelivers. */
  async handOver(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (error instanceof TemporalUnavailableError) {
        this.logger.error(`Temporal unavailable; ${this.source} webhook refused so the provider redelivers`, { event: this.event, error: error.message });
        this.fail(503, 'temporal_unavailable', 'the workflow store is unavailable; retry later');
        return;
      }
      // A dependency may reject with anything (undefined, a string); reading .message of that must not throw here.
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error(`${this.source} webhook failed`, { event: this.event, error: message });
      this.fail(500, 'internal_error', `the delivery could not be handed over: ${message}`);
    }
  }
}

/**
 * GitHub lets a webhook be sent as JSON or as `application/x-www-form-urlencoded` with the JSON in a `payload`
 * field. The signature covers the raw body as sent either way, so it is checked before this runs.
 */
export function parseWebhookBody(raw: Buffer, contentType: string | undefined): { ok: true; value: unknown } | { ok: false; message: string } {
  if (!/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) return parseJsonBody(raw);
  const payload = new URLSearchParams(raw.toString('utf8')).get('payload');
  if (payload === null) return { ok: false, message: 'a form-encoded webhook needs a payload field holding the JSON' };
  return parseJsonBody(Buffer.from(payload, 'utf8'));
}

/**
 * JSON.parse, bounded: the nesting is checked first in one cheap pass, because deeply nested input makes the parser
 * itself slow (seconds for megabytes of brackets) while the event loop waits. The size is bounded by the reader.
 */
export function parseJsonBody(raw: Buffer, maxDepth = WEBHOOK_JSON_MAX_DEPTH): { ok: true; value: unknown } | { ok: false; message: string } {
  if (jsonNestsDeeperThan(raw, maxDepth)) return { ok: false, message: `the body nests deeper than ${maxDepth} levels; no provider payload does` };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch (error) {
    return { ok: false, message: `the body is not valid JSON: ${(error as Error).message}` };
  }
}

export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`).join('; ');
}

/** Answers a webhook with what happened to its delivery. */
export function answerDelivery(reply: WebhookReply, result: DeliveryOutcome, deliveryIdentity: string): void {
  if (result.outcome === 'ignored' || result.outcome === 'answered') {
    reply.ignored(result.reason_code, result.reason, result.ticket_key ? { ticket_key: result.ticket_key } : {});
  } else if (result.outcome === 'started') {
    reply.queued({ ticket_key: result.ticket_key, workflow_id: result.workflow_id, delivery_identity: deliveryIdentity });
  } else {
    reply.queued({ ticket_key: result.ticket_key, ...(result.routed_by ? { routed_by: result.routed_by } : {}), delivery_identity: deliveryIdentity });
  }
}
