import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Who may read the console: the holder of SERVICE_OPERATOR_TOKEN, as for the read API. A browser cannot send an
 * Authorization header from a link, so `POST /console/login` checks the token once and sets an HttpOnly,
 * SameSite=Strict cookie. The cookie holds an HMAC of the token, not the token: it is useless against the API, and
 * every cookie stops working when the token is changed.
 */
export const SESSION_COOKIE = 'service_console';

/** The cookie value that stands for `token`. */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('service console session v1').digest('base64url');
}

/** Constant-time equality of two strings of any length (both are hashed first, so their lengths leak nothing). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHmac('sha256', 'service console compare').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** One cookie's value from a Cookie header; undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

export type Credential = { ok: true } | { ok: false; reason: string };

/** Whether a request carries the operator token as a bearer header or the session cookie made from it. */
export function checkCredential(request: { authorization?: string; cookie?: string }, token: string): Credential {
  const bearer = request.authorization ? /^Bearer\s+(.+)$/i.exec(request.authorization.trim()) : null;
  if (bearer) return sameSecret(bearer[1]!.trim(), token) ? { ok: true } : { ok: false, reason: 'the bearer token is not valid for the console' };
  const session = cookieValue(request.cookie, SESSION_COOKIE);
  if (session) return sameSecret(session, sessionValue(token)) ? { ok: true } : { ok: false, reason: 'the console session is no longer valid: sign in again' };
  return { ok: false, reason: 'sign in with the operator token (SERVICE_OPERATOR_TOKEN), or send it as Authorization: Bearer' };
}

/** The Set-Cookie header of a session; `secure` when the console is reached over https. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${sessionValue(token)}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=43200${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0`;
}
