import { describe, expect, it } from 'vitest';
import { checkCredential, cookieValue, sameSecret, sessionValue } from '../../../src/console/console-session';
import { safeNext } from '../../../src/console/console-router';
import { githubWebUrl } from '../../../src/console/pages/ticket-links';
import { ageText } from '../../../src/console/pages/page-shell';

describe('console credentials', () => {
  it('accept the token as a bearer header or the session cookie made from it, and nothing else', () => {
    const token = 'the-operator-token';
    expect(checkCredential({ authorization: `Bearer ${token}` }, token)).toEqual({ ok: true });
    expect(checkCredential({ cookie: `a=b; service_console=${sessionValue(token)}` }, token)).toEqual({ ok: true });
    expect(checkCredential({ cookie: `service_console=${token}` }, token).ok).toBe(false);
    expect(checkCredential({ cookie: `service_console=${sessionValue('old-token')}` }, token)).toEqual({ ok: false, reason: 'the console session is no longer valid: sign in again' });
    expect(checkCredential({ authorization: 'Basic abc' }, token).ok).toBe(false);
    expect(checkCredential({}, token).ok).toBe(false);
  });

  it('compare secrets of any length', () => {
    expect(sameSecret('a', 'a')).toBe(true);
    expect(sameSecret('a', 'a'.repeat(1000))).toBe(false);
    expect(cookieValue('x=1; service_console=abc=; y=2', 'service_console')).toBe('abc=');
  });

  it('send a signed-in person back only to a console address of this host', () => {
    expect(safeNext('/console/tickets/A-1')).toBe('/console/tickets/A-1');
    for (const bad of ['https://evil.example/console/', '//evil.example', '/console//evil', '/api/v1/x', '/console/"><x', 42]) expect(safeNext(bad)).toBe('/console/');
  });
});

describe('addresses and ages', () => {
  it('derive the GitHub web address from its API address', () => {
    expect(githubWebUrl(undefined)).toBe('https://github.com');
    expect(githubWebUrl('https://api.github.com')).toBe('https://github.com');
    expect(githubWebUrl('https://ghe.example/api/v3')).toBe('https://ghe.example');
    expect(githubWebUrl('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000');
  });

  it('say how long ago in the unit people read', () => {
    const now = new Date('2026-12-01T12:00:00Z');
    expect(ageText('2026-12-01T11:59:30Z', now)).toBe('30 s');
    expect(ageText('2026-12-01T11:30:00Z', now)).toBe('30 min');
    expect(ageText('2026-12-01T07:00:00Z', now)).toBe('5 h');
    expect(ageText('2026-11-27T12:00:00Z', now)).toBe('4 d');
    expect(ageText(null, now)).toBe('');
  });
});
