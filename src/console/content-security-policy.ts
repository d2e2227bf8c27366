import { randomBytes } from 'node:crypto';

/** A fresh nonce per page: only the console's own inline script and style carry it. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Nothing from elsewhere, nothing inline but what carries the nonce: ticket text that slipped past escaping still
 * could not run a script, load an image or post a form to another site. `connect-src 'self'` is the refresh poll.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The headers of every console answer, pages and errors alike. */
export function consoleSecurityHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(nonce),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
  };
}
