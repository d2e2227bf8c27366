import type { Request } from 'express';
import { declaredBodyRefusal, readBody } from './webhook-body';
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
}

/**
 * The size checks and the read, for a sender already authenticated by its headers (or a signature computed while
 * reading): a declared size over the limit is refused at once, a body that grows past it as soon as it does. Answers
 * a refusal itself and returns undefined.
 */
export async function readWebhookBody(req: Request, reply: WebhookReply, limitBytes: number, onChunk?: (chunk: Buffer) => void): Promise<Buffer | undefined> {
  const declared = declaredBodyRefusal(req.headers, limitBytes);
  if (declared) return void reply.fail(declared.status, declared.code, declared.message);
  const read = await readBody(req, limitBytes, onChunk);
  if (!read.ok) {
    // A body cut off at the limit would otherwise be drained to its end, however long the sender keeps sending.
    if (read.refusal.status === 413) reply.closeConnection();
    return void reply.fail(read.refusal.status, read.refusal.code, read.refusal.message);
  }
  return read.raw;
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
  const raw = await readWebhookBody(req, reply, options.limitBytes, verifier && ((chunk) => verifier.update(chunk)));
  if (raw === undefined || !verifier) return raw;
  const check = verifier.verify();
  if (!check.ok) return void reply.fail(401, 'invalid_signature', `${options.header} rejected: ${check.reason}`);
  return raw;
}
