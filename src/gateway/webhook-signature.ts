import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** A signature header, checked for form before any of the body is read: a bad one is refused without reading. */
export function parseSignatureHeader(header: string | undefined): { ok: true; digest: Buffer } | { ok: false; reason: string } {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'signature header is missing' };
  const value = header.trim().replace(/^sha256=/i, '');
  // Two answers, because the operator's fix differs: a non-hex value is the wrong header or encoding; hex of the wrong
  // length is a truncated digest or another algorithm (SHA-1 is 40 digits).
  if (!/^[0-9a-fA-F]+$/.test(value)) return { ok: false, reason: 'signature is not hex (expected the hex HMAC-SHA256 digest of the raw body, optionally prefixed sha256=)' };
  if (value.length !== 64) return { ok: false, reason: `signature has ${value.length} hex digits; an HMAC-SHA256 digest has 64` };
  return { ok: true, digest: Buffer.from(value, 'hex') };
}

export interface HmacVerifier {
  /** Feeds the next bytes of the body as they arrive, so no single step hashes megabytes at once. */
  update(chunk: Buffer): void;
  verify(): SignatureCheck;
}

/**
 * Starts verifying an HMAC-SHA256 signature header over a body that is still to be read. Providers differ in
 * presentation, so the `sha256=` prefix is optional and hex case does not matter; the comparison is constant-time on
 * the decoded bytes.
 */
export function hmacSha256Verifier(header: string | undefined, secret: string): { ok: true; verifier: HmacVerifier } | { ok: false; reason: string } {
  const given = parseSignatureHeader(header);
  if (!given.ok) return given;
  const hmac = createHmac('sha256', secret);
  return {
    ok: true,
    verifier: {
      update: (chunk) => void hmac.update(chunk),
      verify: () => (timingSafeEqual(hmac.digest(), given.digest) ? { ok: true } : { ok: false, reason: 'signature does not match the body' }),
    },
  };
}

/** Verifies an HMAC-SHA256 signature header over a raw body already in memory. */
export function verifyHmacSha256(rawBody: Buffer, header: string | undefined, secret: string): SignatureCheck {
  const started = hmacSha256Verifier(header, secret);
  if (!started.ok) return started;
  started.verifier.update(rawBody);
  return started.verifier.verify();
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

/**
 * The names whose secret equals `token`. Every secret is compared, each in constant time and none skipped once one
 * matched, so the answer time says nothing about which secret (or how many) the token came close to.
 */
export function secretsMatching(token: string | undefined, secrets: ReadonlyArray<{ name: string; secret: string }>): string[] {
  const matched: string[] = [];
  for (const each of secrets) if (tokensEqual(token, each.secret)) matched.push(each.name);
  return matched;
}
