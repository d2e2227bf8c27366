import type { Request } from 'express';
import { declaredBodyRefusal, readBody, type BodyRefusal } from './webhook-body';
import type { PendingBodyBudget, PendingBodyRefusalReason } from './pending-body-budget';
import { hmacSha256Verifier, type HmacVerifier } from './webhook-signature';
import type { WebhookReply } from './webhook-reply';
import { ALLOW_UNSIGNED_WEBHOOKS_ENV } from '../config/webhook-secrets';

/**
 * Authenticate, then read, then parse: the order every webhook route follows. Whatever an unauthenticated sender
 * puts in a body costs the gateway nothing beyond reading its headers.
 */

export interface SignedWebhookOptions {
  /** The HMAC-SHA256 secret; unset only with the explicit opt-in (SERVICE_ALLOW_UNSIGNED_WEBHOOKS). */
  secret?: string;
  allowUnsigned: boolean;
  /** The signature header, e.g. `X-Hub-Signature-256`. */
  header: string;
  /** The variable the secret comes from, for the answer when it is unset. */
  secretVariable: string;
  limitBytes: number;
  /**
   * The budget of bodies not yet authenticated, shared by the routes whose signature covers the body, and this
   * route's name in it. Without it the body is read with no cap but its limit (a route built on its own, in a test).
   */
  pending?: { budget: PendingBodyBudget; route: string };
}

/**
 * What a refusal for capacity asks the sender to wait. A pending body lasts milliseconds for a real delivery and at
 * most the request timeout (60 s) for one trickled; providers that redeliver do so on their own schedule anyway.
 */
export const PENDING_BODY_RETRY_AFTER_SECONDS = 5;

/** The answer to a body refused before any of it is read, naming the cap and the variable that sets it. */
export function admissionRefusalAnswer(reason: PendingBodyRefusalReason, budget: PendingBodyBudget, route: string, declaredBytes?: number): BodyRefusal {
  switch (reason) {
    case 'route_pending_bodies':
      return { status: 503, code: 'too_many_pending_bodies', message: `${budget.limits.maxBodiesPerRoute} ${route} webhook bodies are already being read before their signature can be checked (SERVICE_GATEWAY_MAX_PENDING_BODIES_PER_ROUTE); retry later` };
    case 'pending_bodies':
      return { status: 503, code: 'too_many_pending_bodies', message: `${budget.limits.maxBodies} webhook bodies are already being read before their signature can be checked (SERVICE_GATEWAY_MAX_PENDING_BODIES); retry later` };
    case 'pending_bytes':
      return { status: 503, code: 'pending_body_bytes_exhausted', message: `the body's ${declaredBytes} bytes do not fit in the memory left for webhook bodies not yet authenticated (SERVICE_GATEWAY_MAX_PENDING_BODY_MIB); retry later` };
  }
}

/**
 * The size checks and the read, for a sender already authenticated by its headers (or a signature computed while
 * reading): a declared size over the limit is refused at once, a body that grows past it as soon as it does. Answers
 * a refusal itself and returns undefined.
 */
export async function readWebhookBody(req: Request, reply: WebhookReply, limitBytes: number, onChunk?: (chunk: Buffer) => void): Promise<Buffer | undefined> {
  const declared = declaredBodyRefusal(req.headers, limitBytes);
  if (declared) return void reply.fail(declared.status, declared.code, declared.message);
  return readRefusing(req, reply, limitBytes, onChunk);
}

/** The read itself; a body cut off is answered, and the connection closed after the answer. */
async function readRefusing(req: Request, reply: WebhookReply, limitBytes: number, onChunk?: (chunk: Buffer) => void, hold?: (bytes: number) => boolean): Promise<Buffer | undefined> {
  const read = await readBody(req, limitBytes, onChunk, hold);
  if (read.ok) return read.raw;
  // A body cut off would otherwise be drained to its end, however long the sender keeps sending.
  if (read.refusal.status === 413 || read.refusal.status === 503) reply.closeConnection();
  if (read.refusal.status === 413 && hold) reply.bodyRefused('too_large');
  if (read.refusal.status === 503) {
    reply.bodyRefused('pending_bytes');
    reply.retryAfter(PENDING_BODY_RETRY_AFTER_SECONDS);
  }
  return void reply.fail(read.refusal.status, read.refusal.code, read.refusal.message);
}

/**
 * An HMAC-signed webhook (tracker, GitHub): a missing or malformed signature header is refused (401) before any of
 * the body is read; then the body is read up to the limit with the HMAC computed on the bytes as they arrive, and
 * verified in constant time. Answers a refusal itself and returns undefined; returns the authentic raw body.
 */
export async function readSignedWebhook(req: Request, reply: WebhookReply, options: SignedWebhookOptions): Promise<Buffer | undefined> {
  let verifier: HmacVerifier | undefined;
  if (options.secret) {
    const started = hmacSha256Verifier(req.get(options.header), options.secret);
    if (!started.ok) return void reply.fail(401, 'invalid_signature', `${options.header} rejected: ${started.reason}`);
    verifier = started.verifier;
  } else if (!options.allowUnsigned) {
    // The gateway refuses to start like this; a route built without a secret still fails closed.
    return void reply.fail(401, 'webhook_secret_unset', `${options.secretVariable} is not set, so no delivery can be authenticated; set it (${ALLOW_UNSIGNED_WEBHOOKS_ENV}=true accepts unsigned deliveries, for local testing only)`);
  }
  const onChunk = verifier && ((chunk: Buffer) => verifier.update(chunk));
  if (!options.pending) return verified(await readWebhookBody(req, reply, options.limitBytes, onChunk), verifier, reply, options.header);
  const declared = declaredBodyRefusal(req.headers, options.limitBytes);
  if (declared) {
    if (declared.status === 413) reply.bodyRefused('too_large');
    return void reply.fail(declared.status, declared.code, declared.message);
  }
  // Until its last byte is checked the body is anyone's: it is read only within the budget, and gives it back after.
  const { budget, route } = options.pending;
  const length = req.headers['content-length'];
  const declaredBytes = length === undefined ? undefined : Number(length);
  const admission = budget.admit(route, declaredBytes);
  if (!admission.ok) {
    reply.bodyRefused(admission.reason);
    reply.retryAfter(PENDING_BODY_RETRY_AFTER_SECONDS);
    // Nothing of the body is read: the connection closes after the answer instead of draining it.
    reply.closeConnection();
    const refusal = admissionRefusalAnswer(admission.reason, budget, route, declaredBytes);
    return void reply.fail(refusal.status, refusal.code, refusal.message);
  }
  try {
    return verified(await readRefusing(req, reply, options.limitBytes, onChunk, admission.body.hold), verifier, reply, options.header);
  } finally {
    admission.body.release();
  }
}

/** The signature check once the whole body is read; the raw body only when it is authentic (or nothing is checked). */
function verified(raw: Buffer | undefined, verifier: HmacVerifier | undefined, reply: WebhookReply, header: string): Buffer | undefined {
  if (raw === undefined || !verifier) return raw;
  const check = verifier.verify();
  if (!check.ok) return void reply.fail(401, 'invalid_signature', `${header} rejected: ${check.reason}`);
  return raw;
}
