import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signHmacSha256, tokensEqual, verifyHmacSha256 } from '../../../src/gateway/webhook-signature';

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
