import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { declaredBodyRefusal, jsonNestsDeeperThan, readBody, WEBHOOK_BODY_LIMIT_BYTES } from '../../../src/gateway/webhook-body';
import { parseJsonBody } from '../../../src/gateway/webhook-reply';

const nested = (depth: number) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('jsonNestsDeeperThan', () => {
  it('counts brackets outside strings only, escaped quotes included', () => {
    expect(jsonNestsDeeperThan(nested(3), 3)).toBe(false);
    expect(jsonNestsDeeperThan(nested(4), 3)).toBe(true);
    expect(jsonNestsDeeperThan(Buffer.from('{"a":"[[[[[[{{{{"}'), 2)).toBe(false);
    expect(jsonNestsDeeperThan(Buffer.from('{"a":"\\"[[[[[[", "b": [1]}'), 2)).toBe(false);
    expect(jsonNestsDeeperThan(Buffer.from('{"a":"\\\\", "b": [[[1]]]}'), 3)).toBe(true);
    expect(jsonNestsDeeperThan(Buffer.from('{"é":"ü[[[[", "b": {"c": 1}}'), 2)).toBe(false);
  });

  it('gives up on a hostile body at once and scans a large flat one in one short pass', () => {
    const hostile = nested(12 * 1024 * 1024);
    let started = performance.now();
    expect(jsonNestsDeeperThan(hostile, 128)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
    const flat = Buffer.from(JSON.stringify({ items: Array.from({ length: 200_000 }, (_, i) => ({ id: i, text: 'a "quoted" [value]' })) }));
    started = performance.now();
    expect(jsonNestsDeeperThan(flat, 128)).toBe(false);
    // Generous for a shared 2-core machine; the point is one linear pass, not the parse it guards.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('keeps parseJsonBody from handing deeply nested input to JSON.parse', () => {
    expect(parseJsonBody(nested(129))).toEqual({ ok: false, message: 'the body nests deeper than 128 levels; no provider payload does' });
    expect(parseJsonBody(nested(128))).toMatchObject({ ok: true });
    expect(parseJsonBody(Buffer.from('{"a":'))).toMatchObject({ ok: false, message: expect.stringContaining('not valid JSON') });
  });
});

describe('declaredBodyRefusal', () => {
  it('refuses a declared size over the limit and a compressed body before reading', () => {
    expect(declaredBodyRefusal({ 'content-length': String(24 * 1024 * 1024) }, WEBHOOK_BODY_LIMIT_BYTES)).toMatchObject({ status: 413, code: 'body_too_large' });
    expect(declaredBodyRefusal({ 'content-length': '100', 'content-encoding': 'gzip' }, WEBHOOK_BODY_LIMIT_BYTES)).toMatchObject({ status: 415 });
    expect(declaredBodyRefusal({ 'content-length': '100', 'content-encoding': 'identity' }, WEBHOOK_BODY_LIMIT_BYTES)).toBeUndefined();
    expect(declaredBodyRefusal({}, WEBHOOK_BODY_LIMIT_BYTES)).toBeUndefined();
  });
});

describe('readBody', () => {
  const stream = () => new PassThrough() as unknown as IncomingMessage & PassThrough;

  it('hands every chunk to the signature check as it arrives and returns the whole body', async () => {
    const req = stream();
    const seen: string[] = [];
    const reading = readBody(req, 100, (chunk) => seen.push(chunk.toString()));
    req.write('{"a":');
    req.end('1}');
    expect(await reading).toEqual({ ok: true, raw: Buffer.from('{"a":1}') });
    expect(seen.join('')).toBe('{"a":1}');
  });

  it('refuses a body that grows past the limit as soon as it does, keeping none of it', async () => {
    const req = stream();
    const seen: Buffer[] = [];
    const reading = readBody(req, 10, (chunk) => seen.push(chunk));
    req.write('0123456789');
    req.write('abc');
    expect(await reading).toMatchObject({ ok: false, refusal: { status: 413, code: 'body_too_large' } });
    expect(Buffer.concat(seen).toString()).toBe('0123456789');
    req.end('more that nobody reads');
  });

  it('asks the budget before keeping each chunk and ends the read with 503 at the first it refuses', async () => {
    const req = stream();
    let left = 12;
    const reading = readBody(req, 100, undefined, (bytes) => { if (bytes > left) return false; left -= bytes; return true; });
    req.write('0123456789');
    req.write('abc');
    expect(await reading).toMatchObject({ ok: false, refusal: { status: 503, code: 'pending_body_bytes_exhausted' } });
    req.end();
  });
});
