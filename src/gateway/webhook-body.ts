import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/**
 * Reading a webhook body without trusting it. Webhook routes read the body themselves (no body parser in front), so
 * that authentication is decided on the headers before any of the body is read, and the signature is computed on
 * the bytes as they arrive; the body is parsed only once it is authenticated.
 */

/**
 * The largest webhook body accepted. GitHub and GitLab cap their own payloads at 25 MB, but those are push events
 * with thousands of commits, which the service ignores. The deliveries it uses carry one comment or review (GitHub:
 * at most 65,536 characters), one merge request description (GitLab: at most 1,048,576 characters) or one Jira issue
 * with its fields and changelog: 8 MiB holds several times the largest of them, even in 4-byte UTF-8.
 */
export const WEBHOOK_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * The largest GitHub delivery accepted. Its HMAC covers the body, so until the last byte the body is unauthenticated
 * and held: the smaller the limit, the fewer bytes one forged request holds. The events the service uses carry at
 * most two texts of 65,536 characters (a pull request and a comment or review; a check run's summary and text), at
 * most 512 KiB in 4-byte UTF-8 with the repository objects around them, and form-encoding triples that at worst:
 * 4 MiB holds it.
 */
export const SCMHOST_WEBHOOK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * How deeply a webhook body may nest. JSON.parse of deeply nested input is slow (a 24 MB body of brackets took
 * 10 s here) and blocks the event loop; provider payloads nest a few levels, Jira's rich text (ADF) a few dozen.
 */
export const WEBHOOK_JSON_MAX_DEPTH = 128;

export interface BodyRefusal {
  status: 400 | 413 | 415 | 503;
  code: string;
  message: string;
}

/** What the headers say about the body, decided before reading any of it: too large (413), or compressed (415). */
export function declaredBodyRefusal(headers: IncomingHttpHeaders, limitBytes: number): BodyRefusal | undefined {
  const encoding = String(headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    // Providers send webhooks uncompressed; accepting gzip would let a small body inflate into a huge one.
    return { status: 415, code: 'unsupported_encoding', message: `Content-Encoding "${encoding}" is not accepted: send the webhook uncompressed` };
  }
  const length = headers['content-length'];
  if (length !== undefined && Number(length) > limitBytes) {
    return { status: 413, code: 'body_too_large', message: `the body is ${length} bytes; webhooks over ${limitBytes} bytes are refused` };
  }
  return undefined;
}

export type ReadBody = { ok: true; raw: Buffer } | { ok: false; refusal: BodyRefusal };

/** The refusal of a body whose next chunk would take the unauthenticated bodies past their shared bytes. */
export const PENDING_BYTES_REFUSAL: BodyRefusal = {
  status: 503,
  code: 'pending_body_bytes_exhausted',
  message: 'webhook bodies not yet authenticated hold all the memory the gateway gives them (SERVICE_GATEWAY_MAX_PENDING_BODY_MIB); retry later',
};

/**
 * Reads a request body up to `limitBytes`, handing each chunk to `onChunk` as it arrives (the signature check). A
 * body that grows past the limit (chunked, without a Content-Length) is refused at the chunk that crosses it: the
 * rest is drained and discarded, never kept, and the connection is closed after the answer. `hold`, when given, is
 * asked before each chunk is kept (the budget of unauthenticated bodies); a chunk it refuses ends the read the same
 * way, with 503.
 */
export function readBody(req: IncomingMessage, limitBytes: number, onChunk?: (chunk: Buffer) => void, hold?: (bytes: number) => boolean): Promise<ReadBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: ReadBody) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        chunks.length = 0;
        settle({ ok: false, refusal: { status: 413, code: 'body_too_large', message: `the body grew past ${limitBytes} bytes; webhooks over that are refused` } });
        // Keep the stream flowing into nothing, so the answer can be written; the caller closes the connection.
        req.resume();
        return;
      }
      if (hold && !hold(chunk.length)) {
        chunks.length = 0;
        settle({ ok: false, refusal: PENDING_BYTES_REFUSAL });
        req.resume();
        return;
      }
      onChunk?.(chunk);
      chunks.push(chunk);
    };
    const onEnd = () => settle({ ok: true, raw: Buffer.concat(chunks, size) });
    const onError = (error: Error) => settle({ ok: false, refusal: { status: 400, code: 'body_unreadable', message: `the body could not be read: ${error.message}` } });
    const onClose = () => settle({ ok: false, refusal: { status: 400, code: 'body_unreadable', message: 'the client closed the connection before the body was complete' } });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Whether JSON text nests deeper than `maxDepth`: one linear pass over the bytes, counting brackets outside strings.
 * Cheap next to the parse it guards (multi-byte UTF-8 never contains the ASCII bytes looked at).
 */
export function jsonNestsDeeperThan(text: Buffer, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === 0x5c) i++; // a backslash escapes the next byte, which may be a quote
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
  return false;
}
