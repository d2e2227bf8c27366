/**
 * Merge request discussions as GitLab keeps them: every note belongs to a discussion. A plain comment is a
 * discussion of its own (`individual_note`, note type null, not resolvable); "Start a thread" makes a DiscussionNote,
 * a comment on a line of the diff a DiffNote with its position; replies join the discussion with its type (and
 * position). On a merge request the notes of a thread are resolvable, and the thread is resolved when all of them
 * are. Pure helpers over the simulator's notes; GitLabState applies them and sends the webhooks.
 */
import { createHash } from 'node:crypto';

/** GitLab's text position of a diff note (what the Discussions API takes and answers). */
export interface SimPosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  old_path: string;
  new_path: string;
  position_type: 'text';
  old_line: number | null;
  new_line: number | null;
  /** null when the API was given none; GitLab's UI sends the commented lines (start = end for one line). */
  line_range: null | { start: SimLinePoint; end: SimLinePoint };
}
export interface SimLinePoint { line_code: string; type: 'new' | 'old' | null; old_line: number | null; new_line: number | null }

export type SimNoteType = null | 'DiscussionNote' | 'DiffNote';

export interface SimNote {
  id: number;
  body: string;
  author: string;
  system: boolean;
  createdAt: string;
  updatedAt: string;
  discussionId: string;
  type: SimNoteType;
  position?: SimPosition;
  resolvedBy?: string;
  resolvedAt?: string;
}

export interface SimDiscussion {
  id: string;
  individualNote: boolean;
  notes: SimNote[];
}

/** GitLab's discussion ids are 40 hex digits. */
export function discussionId(seed: string): string {
  return createHash('sha1').update(`discussion:${seed}`).digest('hex');
}

/** A note of a thread on a merge request can be resolved; plain comments and system notes cannot. */
export function isResolvable(note: SimNote): boolean {
  return note.type !== null && !note.system;
}

export function isResolved(discussion: SimDiscussion): boolean {
  const resolvable = discussion.notes.filter(isResolvable);
  return resolvable.length > 0 && resolvable.every((note) => note.resolvedAt !== undefined);
}

/** The discussions of a merge request, in the order of their first notes. */
export function discussionsOf(notes: readonly SimNote[]): SimDiscussion[] {
  const byId = new Map<string, SimDiscussion>();
  for (const note of notes) {
    const discussion = byId.get(note.discussionId) ?? { id: note.discussionId, individualNote: note.type === null, notes: [] };
    discussion.notes.push(note);
    byId.set(note.discussionId, discussion);
  }
  return [...byId.values()];
}

/**
 * The note a reply in `discussion` becomes: a DiscussionNote, or a DiffNote at the thread's position. Replying to a
 * plain comment turns it into a thread (`convert` lists the notes whose type changes), as GitLab does for merge
 * requests; a reply to a resolved thread is created resolved, so answering does not reopen it. A system note's
 * discussion cannot be replied to.
 */
export function replyShape(discussion: SimDiscussion, author: string, time: string): { type: Exclude<SimNoteType, null>; position?: SimPosition; resolvedBy?: string; resolvedAt?: string; convert: SimNote[] } | { refused: string } {
  const first = discussion.notes[0]!;
  if (first.system) return { refused: 'Discussion can not be replied to.' };
  const type = first.type ?? 'DiscussionNote';
  const resolved = isResolved(discussion);
  return {
    type,
    ...(first.position ? { position: first.position } : {}),
    ...(resolved ? { resolvedBy: author, resolvedAt: time } : {}),
    convert: discussion.notes.filter((note) => note.type === null),
  };
}

/** Why the user may not resolve the discussion (GitLab answers 403 for both), or undefined when they may. */
export function resolveRefusal(discussion: SimDiscussion, forbidden: boolean): string | undefined {
  if (!discussion.notes.some(isResolvable)) return 'the discussion is not resolvable';
  if (forbidden) return 'the user may not resolve threads in this project';
  return undefined;
}
