import type { ExecutionView } from './execution-view';
import type { TimelineEntry, TimelinePage, TimelineState } from './timeline';
import { MAX_TIMELINE_PAGE } from './timeline';

/**
 * The read model the workflow keeps in its memo, so that the read API answers `execution` and recent `timeline` pages
 * with DescribeWorkflowExecution: the server reads them from its own store, with no worker and no replay.
 *
 * Each field of the execution view is one memo key, and the newest timeline entries are kept in chunks of ten by
 * their offset. A delivery then rewrites only the keys it changed (a counter, the last observation, the newest chunk),
 * which keeps each memo event in the history small. Pure functions: the workflow publishes, the gateway reads.
 */

export const READ_MODEL_KEY = 'read_model';
export const READ_MODEL_VERSION = 1;
const EXECUTION_PREFIX = 'execution.';
const TIMELINE_PREFIX = 'timeline.';
export const TIMELINE_CHUNK_SIZE = 10;
/** Chunks kept: at least the newest 41 entries, so a default page of 50 of a short timeline is always in the memo. */
export const TIMELINE_CHUNKS_KEPT = 5;

export interface ReadModelHeader {
  version: number;
  /** The workflow is at work and its state changes at every task: the memo is not kept current, ask by query. */
  busy?: true;
  /** The timeline's offsets: all of them (`total`), those retention removed (`trimmed`), the first the memo holds. */
  timeline: { total: number; trimmed: number; first: number };
}

/** The header a busy workflow writes in place of the read model's (workflows/read-model/read-model-publisher.ts). */
export const BUSY_HEADER: ReadModelHeader = { version: READ_MODEL_VERSION, busy: true, timeline: { total: 0, trimmed: 0, first: 0 } };

/**
 * Every field of the execution view, with the value it has when its memo key is absent. The server removes a memo key
 * whose value is `null` or `[]` (a memo upsert cannot hold either), so such fields are restored here; a field
 * marked `required` must be present, or the memo is not a read model this code can serve.
 */
const EXECUTION_FIELDS: { [K in keyof ExecutionView]-?: 'required' | null | [] } = {
  schema_version: 'required', run_id: 'required', workflow_id: 'required', ticket_key: 'required', workflow_type: 'required',
  status: 'required', current_position: 'required', definition: null, permitted_commands: [], next_transitions: [],
  waiting: null, blocking: null, last_observation: null, observations_received: 'required', observation_decisions: 'required',
  recent_events: [], station_attempts: [], tokens_spent: 'required', tokens_by_stage: 'required', artifacts: 'required',
  effects: [], migration: null, retry_count: 'required', checkpoint: 'required', started_at: 'required',
};
const FIELD_NAMES = Object.keys(EXECUTION_FIELDS) as Array<keyof ExecutionView>;

/**
 * The memo as key → JSON text, the form the publisher compares to find what changed. Timeline chunks also keep a
 * signature (first event id and length): entries are append-only, so an equal signature is an equal chunk and the
 * chunk need not be serialised again.
 */
export interface MemoSnapshot {
  texts: Map<string, string>;
  chunkSignatures: Map<string, string>;
}

function timelineWindow(timeline: TimelineState): ReadModelHeader['timeline'] & { chunks: number[] } {
  const total = timeline.trimmed + timeline.entries.length;
  if (total === timeline.trimmed) return { total, trimmed: timeline.trimmed, first: total, chunks: [] };
  const last = Math.floor((total - 1) / TIMELINE_CHUNK_SIZE);
  const oldest = Math.max(last - TIMELINE_CHUNKS_KEPT + 1, Math.floor(timeline.trimmed / TIMELINE_CHUNK_SIZE));
  const chunks: number[] = [];
  for (let chunk = oldest; chunk <= last; chunk += 1) chunks.push(chunk);
  return { total, trimmed: timeline.trimmed, first: Math.max(oldest * TIMELINE_CHUNK_SIZE, timeline.trimmed), chunks };
}

function chunkEntries(timeline: TimelineState, chunk: number): TimelineEntry[] {
  const from = Math.max(chunk * TIMELINE_CHUNK_SIZE, timeline.trimmed) - timeline.trimmed;
  return timeline.entries.slice(from, (chunk + 1) * TIMELINE_CHUNK_SIZE - timeline.trimmed);
}

/** The memo that describes this view and timeline; `previous` spares serialising the unchanged timeline chunks. */
export function readModelSnapshot(view: ExecutionView, timeline: TimelineState, previous?: MemoSnapshot): MemoSnapshot {
  const texts = new Map<string, string>();
  const chunkSignatures = new Map<string, string>();
  for (const field of FIELD_NAMES) texts.set(EXECUTION_PREFIX + field, JSON.stringify(view[field]));
  const { chunks, ...window } = timelineWindow(timeline);
  const header: ReadModelHeader = { version: READ_MODEL_VERSION, timeline: window };
  texts.set(READ_MODEL_KEY, JSON.stringify(header));
  for (const chunk of chunks) {
    const key = TIMELINE_PREFIX + chunk;
    const entries = chunkEntries(timeline, chunk);
    const signature = `${entries[0]?.event_id}:${entries.length}`;
    const before = previous?.chunkSignatures.get(key) === signature ? previous.texts.get(key) : undefined;
    texts.set(key, before ?? JSON.stringify(entries));
    chunkSignatures.set(key, signature);
  }
  return { texts, chunkSignatures };
}

/**
 * What to upsert to turn the memo `before` into `after`: the changed keys with their values, and the keys that went
 * away as undefined (upsertMemo removes those). Undefined when nothing changed.
 */
export function memoChanges(before: MemoSnapshot | undefined, after: MemoSnapshot): Record<string, unknown> | undefined {
  const changes: Record<string, unknown> = {};
  let changed = false;
  for (const [key, text] of after.texts) {
    if (before?.texts.get(key) === text) continue;
    changes[key] = JSON.parse(text);
    changed = true;
  }
  for (const key of before?.texts.keys() ?? []) {
    if (after.texts.has(key)) continue;
    changes[key] = undefined;
    changed = true;
  }
  return changed ? changes : undefined;
}

/** The keys a memo carried over from elsewhere (an earlier run) holds, as a snapshot to diff against. */
export function snapshotOfMemoKeys(memo: Record<string, unknown> | undefined): MemoSnapshot | undefined {
  const keys = Object.keys(memo ?? {}).filter((key) => key === READ_MODEL_KEY || key.startsWith(EXECUTION_PREFIX) || key.startsWith(TIMELINE_PREFIX));
  if (keys.length === 0) return undefined;
  // An empty text never equals a serialised value, so every key is written again or removed.
  return { texts: new Map(keys.map((key) => [key, ''])), chunkSignatures: new Map() };
}

/** The memo keys `executionViewFromMemo` reads (the header and the view's fields; not the timeline's chunks). */
export function isExecutionViewKey(key: string): boolean {
  return key === READ_MODEL_KEY || key.startsWith(EXECUTION_PREFIX);
}

/** The execution view held in a described workflow's memo; undefined when the memo holds no complete read model. */
export function executionViewFromMemo(memo: Record<string, unknown> | undefined): ExecutionView | undefined {
  if (!isCurrentHeader(memo?.[READ_MODEL_KEY])) return undefined;
  const view: Record<string, unknown> = {};
  for (const field of FIELD_NAMES) {
    const value = memo![EXECUTION_PREFIX + field];
    const absent = EXECUTION_FIELDS[field];
    if (value !== undefined && value !== null) view[field] = value;
    else if (absent === 'required') return undefined;
    else view[field] = Array.isArray(absent) ? [] : null;
  }
  return view as unknown as ExecutionView;
}

/**
 * The timeline page the read API would answer, taken from the memo, with the paging rules of `pageTimeline`.
 * Undefined when the page starts before the entries the memo keeps (the query answers those).
 */
export function timelinePageFromMemo(memo: Record<string, unknown> | undefined, cursor: number, limit: number): TimelinePage | undefined {
  const header = memo?.[READ_MODEL_KEY];
  if (!isCurrentHeader(header)) return undefined;
  const { total, trimmed, first } = header.timeline;
  const size = Math.max(1, Math.min(MAX_TIMELINE_PAGE, Math.floor(limit)));
  const start = Math.max(cursor, trimmed);
  if (start < first) return undefined;
  const entries: TimelineEntry[] = [];
  for (let offset = start; offset < Math.min(total, start + size); offset += 1) {
    const chunk = memo![TIMELINE_PREFIX + Math.floor(offset / TIMELINE_CHUNK_SIZE)];
    const entry = Array.isArray(chunk) ? (chunk[offset - Math.max(Math.floor(offset / TIMELINE_CHUNK_SIZE) * TIMELINE_CHUNK_SIZE, trimmed)] as TimelineEntry | undefined) : undefined;
    if (!entry) return undefined;
    entries.push(entry);
  }
  const end = start + entries.length;
  return { schema_version: '1.0', entries, next_cursor: end < total ? end : null, total };
}

function isCurrentHeader(value: unknown): value is ReadModelHeader {
  const header = value as ReadModelHeader | undefined;
  return typeof header === 'object' && header !== null && header.version === READ_MODEL_VERSION && header.busy !== true && typeof header.timeline?.total === 'number';
}
