import type { StationResult } from '../../workflows/runtime/station-types';

/**
 * The last line of defence behind the per-kind bounds (agent-output-bounds.ts): a station result that carries what
 * a container's agent wrote must stay far below Temporal's 2 MB payload limit, since a result over it is refused
 * ("Complete result exceeds size limit") and the ticket blocks. Escaped text is what makes the per-kind bounds not
 * enough on their own: a control character a hostile agent writes is one character and six bytes of JSON.
 */
export const STATION_RESULT_BUDGET_BYTES = 512 * 1024;

/**
 * The agent-derived parts of a result, in the order they go: diagnostics first, then what later stations may read,
 * then the outputs themselves. Within a tier the largest goes first.
 */
const TRIMMABLE_TIERS: ReadonlyArray<ReadonlyArray<readonly string[]>> = [
  [['data', 'review', 'cycles'], ['data', 'transcript'], ['data', 'model_calls'], ['data', 'tool_server_calls'], ['data', 'refused']],
  [['data', 'files'], ['data', 'findings'], ['data', 'analysis'], ['data', 'agent', 'final_text'], ['data', 'agent', 'message']],
  [['data', 'outputs'], ['artifacts']],
];

/** A part that was emptied, as `data.trimmed` lists it. */
export interface TrimmedPart {
  part: string;
  /** Its serialized size before it was emptied. */
  bytes: number;
  /** A list's length before it was emptied. */
  items?: number;
}

export interface BoundedStationResult {
  result: StationResult;
  /** The serialized size of `result`. */
  bytes: number;
  trimmed: TrimmedPart[];
}

export const serializedBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A copy of `root` with the value at `path` replaced, copying only the objects on the way. */
function replacedAt(root: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined) return root;
  return { ...root, [key]: rest.length === 0 ? value : replacedAt(root[key] as Record<string, unknown>, rest, value) };
}

/** The empty value of the same shape, so that a reader of the part finds no items rather than a wrong type. */
function emptied(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  if (typeof value === 'string') return '';
  return {};
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value) || typeof value === 'string') return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/**
 * The result when it fits `budgetBytes` serialized; otherwise a copy with the largest agent-derived parts emptied
 * one at a time until it fits, each listed in `data.trimmed` with its size. Parts the workflow routes on (outcome,
 * verdicts, repositories, commit) and effects are never touched; when what remains still does not fit, `bytes`
 * says so and the caller decides. Pure.
 */
export function boundStationResult(result: StationResult, budgetBytes: number = STATION_RESULT_BUDGET_BYTES): BoundedStationResult {
  let bytes = serializedBytes(result);
  if (bytes <= budgetBytes) return { result, bytes, trimmed: [] };
  let current = result as unknown as Record<string, unknown>;
  const trimmed: TrimmedPart[] = [];
  for (const tier of TRIMMABLE_TIERS) {
    const candidates = tier
      .map((path) => ({ path, value: valueAt(current, path) }))
      .filter(({ value }) => !isEmpty(value))
      .map((candidate) => ({ ...candidate, bytes: serializedBytes(candidate.value) }))
      .sort((a, b) => b.bytes - a.bytes);
    for (const candidate of candidates) {
      if (bytes <= budgetBytes) break;
      trimmed.push({ part: candidate.path.slice(candidate.path[0] === 'data' ? 1 : 0).join('.'), bytes: candidate.bytes, ...(Array.isArray(candidate.value) ? { items: candidate.value.length } : {}) });
      current = replacedAt(current, candidate.path, emptied(candidate.value));
      current = { ...current, data: { ...(current.data as Record<string, unknown> | undefined), trimmed: [...trimmed] } };
      bytes = serializedBytes(current);
    }
  }
  return { result: current as unknown as StationResult, bytes, trimmed };
}
