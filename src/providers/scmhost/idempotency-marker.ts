/**
 * Source-host comments carry their effect's idempotency key in a hidden HTML comment, so a write whose outcome was
 * unknown can be found again. GitHub and GitLab both render Markdown and hide HTML comments.
 */

const MARKER = /<!--\s*service:idempotency-key=([^\s>]+)\s*-->/;

export function idempotencyMarker(key: string): string {
  if (!/^[^\s>]+$/.test(key)) throw new Error(`Idempotency key must not contain whitespace or '>': ${JSON.stringify(key)}`);
  return `<!-- service:idempotency-key=${key} -->`;
}

/** The body with the marker appended on its own line (a body that already carries one keeps it). */
export function withIdempotencyMarker(body: string, key: string): string {
  if (idempotencyKeyOf(body) === key) return body;
  return `${body.replace(/\s+$/, '')}\n\n${idempotencyMarker(key)}`;
}

export function idempotencyKeyOf(body: string | null | undefined): string | undefined {
  return body ? MARKER.exec(body)?.[1] : undefined;
}

/** The body without the marker, as a person sees it. */
export function stripIdempotencyMarker(body: string): string {
  return body.replace(MARKER, '').replace(/\s+$/, '');
}
