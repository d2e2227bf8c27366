import { preview, truncateStrings } from '../runtime/bounded-json';

/**
 * The execution timeline: an append-only list of what happened to a ticket, explained for operators. Pure functions
 * over plain data so the workflow stays deterministic and the paging rules are unit-testable.
 */

export type TimelineKind =
  | 'workflow_started'
  | 'workflow_continued'
  | 'observation_received'
  | 'observation_decision'
  | 'command_decision'
  | 'transition'
  | 'station_attempt'
  | 'effect'
  | 'operator_action';

export interface TimelineEntry {
  /** Sequence number, unique within the ticket and stable across continue-as-new. */
  event_id: number;
  kind: TimelineKind;
  occurred_at: string;
  status: string;
  summary: string;
  details: Record<string, unknown>;
}

export interface TimelineState {
  entries: TimelineEntry[];
  /** The event_id of the next entry; never reused, also after older entries are trimmed. */
  next_event_id: number;
  /** How many entries retention removed from the front; cursors stay offsets into the full history. */
  trimmed: number;
}

export interface TimelinePage {
  schema_version: '1.0';
  entries: TimelineEntry[];
  next_cursor: number | null;
  total: number;
}

export const MAX_TIMELINE_PAGE = 200;

export function emptyTimeline(): TimelineState {
  return { entries: [], next_event_id: 1, trimmed: 0 };
}

/** Longest string kept in a timeline entry's details: comment bodies and artifacts are previewed, never stored whole. */
export const TIMELINE_STRING_LIMIT = 500;

export function appendTimeline(
  timeline: TimelineState,
  entry: Omit<TimelineEntry, 'event_id'>,
): TimelineEntry {
  const full: TimelineEntry = {
    event_id: timeline.next_event_id,
    ...entry,
    summary: preview(entry.summary, TIMELINE_STRING_LIMIT),
    details: truncateStrings(entry.details, TIMELINE_STRING_LIMIT),
  };
  timeline.entries.push(full);
  timeline.next_event_id += 1;
  return full;
}

/**
 * A page starting at `cursor` (an offset into the whole history). Entries removed by retention are skipped: a cursor
 * that points before the retained window starts at the oldest retained entry.
 */
export function pageTimeline(timeline: TimelineState, cursor: number, limit: number): TimelinePage {
  const size = Math.max(1, Math.min(MAX_TIMELINE_PAGE, Math.floor(limit)));
  const total = timeline.trimmed + timeline.entries.length;
  const start = Math.max(cursor, timeline.trimmed);
  const entries = timeline.entries.slice(start - timeline.trimmed, start - timeline.trimmed + size);
  const end = start + entries.length;
  return { schema_version: '1.0', entries, next_cursor: end < total ? end : null, total };
}
