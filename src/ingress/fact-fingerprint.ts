import { createHash } from 'node:crypto';

/** JSON with sorted keys, so equal facts hash equally whatever order a provider or the poller built them in. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export function factFingerprint(content: unknown): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex').slice(0, 32);
}
