import { createHash } from 'node:crypto';
import type { PinnedDefinition, WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';

/** JSON with object keys sorted at every level: the same definition always serialises to the same bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** sha256 of the canonical JSON (DESIGN 6); workflow code has no crypto, so it is computed here and pinned. */
export function definitionDigest(definition: WorkflowDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

export function pinDefinition(definition: WorkflowDefinition): PinnedDefinition {
  return { name: definition.name, revision: definition.revision, digest: definitionDigest(definition), body: definition };
}
