import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Verifies an HMAC-SHA256 signature header over the raw body. Providers differ in presentation, so the `sha256=`
 * prefix is optional and hex case does not matter; the comparison is constant-time on the decoded bytes.
 */
export function verifyHmacSha256(rawBody: Buffer, header: string | undefined, secret: string): SignatureCheck {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'signature header is missing' };
  const value = header.trim().replace(/^sha256=/i, '');
  // Two answers, because the operator's fix differs: a non-hex value is the wrong header or encoding; hex of the wrong
  // length is a truncated digest or another algorithm (SHA-1 is 40 digits).
  if (!/^[0-9a-fA-F]+$/.test(value)) return { ok: false, reason: 'signature is not hex (expected the hex HMAC-SHA256 digest of the raw body, optionally prefixed sha256=)' };
  if (value.length !== 64) return { ok: false, reason: `signature has ${value.length} hex digits; an HMAC-SHA256 digest has 64` };
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(value, 'hex');
  return timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: 'signature does not match the body' };
}

export function signHmacSha256(rawBody: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** Equality of shared tokens (e.g. GitLab's X-Gitlab-Token) without leaking the length-prefix timing. */
export function tokensEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHmac('sha256', 'token-compare').update(given).digest();
  const b = createHmac('sha256', 'token-compare').update(expected).digest();
  return timingSafeEqual(a, b);
}
