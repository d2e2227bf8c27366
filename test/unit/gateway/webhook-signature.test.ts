import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256Verifier, secretsMatching, signHmacSha256, tokensEqual, verifyHmacSha256 } from '../../../src/gateway/webhook-signature';

const body = Buffer.from('{"webhookEvent":"jira:issue_created"}');
const secret = 'webhook-secret-xyz';
const hex = createHmac('sha256', secret).update(body).digest('hex');

describe('verifyHmacSha256', () => {
  it('accepts the digest with or without the sha256= prefix and in either hex case', () => {
    for (const header of [hex, `sha256=${hex}`, hex.toUpperCase(), `SHA256=${hex.toUpperCase()}`]) {
      expect(verifyHmacSha256(body, header, secret)).toEqual({ ok: true });
    }
  });

  it('rejects a missing header, a malformed one and a digest of another body', () => {
    expect(verifyHmacSha256(body, undefined, secret)).toEqual({ ok: false, reason: 'signature header is missing' });
    expect(verifyHmacSha256(body, 'sha256=abc', secret)).toEqual({ ok: false, reason: 'signature has 3 hex digits; an HMAC-SHA256 digest has 64' });
    expect(verifyHmacSha256(body, `sha256=${hex.slice(0, 40)}`, secret)).toEqual({ ok: false, reason: 'signature has 40 hex digits; an HMAC-SHA256 digest has 64' });
    expect(verifyHmacSha256(body, 'sha256=not-a-digest', secret)).toMatchObject({ ok: false, reason: expect.stringMatching(/^signature is not hex/) });
    expect(verifyHmacSha256(Buffer.from('{}'), `sha256=${hex}`, secret)).toEqual({ ok: false, reason: 'signature does not match the body' });
  });

  it('rejects a digest made with another secret', () => {
    expect(verifyHmacSha256(body, signHmacSha256(body, 'other-secret'), secret).ok).toBe(false);
  });

  it('signs in the form it verifies', () => {
    expect(signHmacSha256(body, secret)).toBe(`sha256=${hex}`);
  });
});

describe('tokensEqual', () => {
  it('compares shared tokens exactly', () => {
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abcd')).toBe(false);
    expect(tokensEqual(undefined, 'abc')).toBe(false);
  });
});

describe('hmacSha256Verifier', () => {
  it('refuses a bad header before any byte of the body, and verifies a body fed in pieces', () => {
    expect(hmacSha256Verifier(undefined, secret)).toEqual({ ok: false, reason: 'signature header is missing' });
    expect(hmacSha256Verifier('sha1=abc', secret)).toMatchObject({ ok: false });
    const started = hmacSha256Verifier(`sha256=${hex}`, secret);
    if (!started.ok) throw new Error(started.reason);
    for (let i = 0; i < body.length; i += 5) started.verifier.update(body.subarray(i, i + 5));
    expect(started.verifier.verify()).toEqual({ ok: true });
    const other = hmacSha256Verifier(`sha256=${hex}`, secret);
    if (!other.ok) throw new Error(other.reason);
    other.verifier.update(Buffer.from('{}'));
    expect(other.verifier.verify()).toEqual({ ok: false, reason: 'signature does not match the body' });
  });
});

describe('secretsMatching', () => {
  it('names every secret the token equals, and none for a missing or wrong token', () => {
    const secrets = [{ name: 'a', secret: 's1' }, { name: 'b', secret: 's2' }, { name: 'c', secret: 's1' }];
    expect(secretsMatching('s1', secrets)).toEqual(['a', 'c']);
    expect(secretsMatching('s3', secrets)).toEqual([]);
    expect(secretsMatching(undefined, secrets)).toEqual([]);
  });
});
