/**
 * Keeping workflow state small (DESIGN 5): the whole state is one continue-as-new payload, and Temporal refuses
 * payloads over 2 MB. Deterministic helpers (no crypto in workflow code): previews instead of bodies, a stable
 * 32-bit FNV-1a fingerprint to tell texts apart, and a byte estimate of a JSON value.
 */

/** FNV-1a over UTF-16 code units, as 8 hex digits: stable across runs and replays, not a security digest. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The text itself when short, else its beginning with how long it was and its fingerprint. */
export function preview(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length} characters, fnv1a ${fnv1a(text)}]`;
}

/** A copy of a JSON value with every string longer than `max` replaced by its preview. */
export function truncateStrings<T>(value: T, max: number): T {
  if (typeof value === 'string') return preview(value, max) as T;
  if (Array.isArray(value)) return value.map((item) => truncateStrings(item, max)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) out[key] = truncateStrings(item, max);
    return out as T;
  }
  return value;
}

/** Size of a JSON value in UTF-8 bytes, as a payload would carry it (close enough for budgets). */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? '');
}

/**
 * Whether a JSON value is over `limit` bytes, as `jsonBytes(value) > limit` decides it. The workflow asks this after
 * every step, so the bytes are counted only when the text's length cannot tell: each UTF-16 unit is 1 to 3 bytes.
 */
export function jsonBytesExceed(value: unknown, limit: number): boolean {
  const text = JSON.stringify(value) ?? '';
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return utf8Bytes(text) > limit;
}

function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) bytes += code > 0x7ff ? 2 : 1;
  }
  return bytes;
}
