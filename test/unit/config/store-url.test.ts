import { describe, expect, it } from 'vitest';
import { parseStoreUrl } from '../../../src/config/store-url';

describe('parseStoreUrl', () => {
  it.each([
    ['temporal://127.0.0.1:7233', { address: '127.0.0.1:7233', namespace: 'default' }],
    ['temporal://temporal:7233/tickets', { address: 'temporal:7233', namespace: 'tickets' }],
    ['localhost:7233', { address: 'localhost:7233', namespace: 'default' }],
    ['temporal://[::1]:7233/ns/', { address: '[::1]:7233', namespace: 'ns' }],
  ])('accepts %s', (value, store) => {
    expect(parseStoreUrl(value)).toEqual({ ok: true, store });
  });

  it.each([
    ['localhost', 'expected host:port'],
    ['temporal://host:99999', 'out of range'],
    ['temporal://host:7233/a/b', 'single path segment'],
    ['postgres://db:5432/x', 'postgres://'],
  ])('rejects %s', (value, message) => {
    const result = parseStoreUrl(value);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problem).toContain(message);
  });
});
