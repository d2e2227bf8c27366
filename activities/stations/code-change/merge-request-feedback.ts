import { stripIdempotencyMarker } from '../../../src/providers/scmhost/idempotency-marker';
import type { Discussion, DiscussionNote } from '../../../src/providers/gitlab/gitlab-client';
import { TEXT_LIMIT, type FeedbackItem } from './review-feedback';

/**
 * The open feedback of a GitLab merge request, from its discussions. Pure; the station reads them.
 *
 * - A thread (started with "Start a thread", on a line of the diff, or a reply that turned a comment into one) is
 *   answered in the thread, like a GitHub review thread: it is open while its last word is a person's and it is not
 *   resolved. Its key names the last note, so a new reply in an answered thread is seen again.
 * - A plain comment on the merge request is read like the text of a GitHub review: it is answered, with the others,
 *   in one note on the merge request.
 *
 * Not feedback: system notes, the service's own notes (by its account: a copied idempotency marker does not make a
 * note the service's, or anyone could end a reviewer's thread by replying with one), and `/service` commands.
 */
export function openMergeRequestFeedback(
  pull: { pull_request: string; repository: string; number: number },
  discussions: readonly Discussion[],
  options: { bot: string; answered: ReadonlySet<string> },
): FeedbackItem[] {
  const bot = options.bot.toLowerCase();
  const mine = (note: DiscussionNote) => (note.author ?? '').toLowerCase() === bot;
  const said = (note: DiscussionNote) => !note.system && note.body.trim() !== '' && !/^\s*\/service\b/i.test(note.body);
  const line = (note: DiscussionNote) => `${note.author ?? 'someone'}: ${stripIdempotencyMarker(note.body).slice(0, TEXT_LIMIT)}`;
  const items: FeedbackItem[] = [];
  for (const discussion of discussions) {
    const conversation = discussion.notes.filter(said);
    const last = conversation.at(-1);
    if (!last || mine(last)) continue;
    if (discussion.individualNote) {
      const key = `n${last.id}`;
      if (!options.answered.has(key)) items.push({ ...pull, id: key, key, kind: 'review', conversation: [line(last)] });
      continue;
    }
    if (discussion.resolved) continue;
    const root = discussion.notes[0]!;
    const key = `t${root.id}@${last.id}`;
    // Before threads were answered in place, each note was answered as `n<id>`: such an answer still counts.
    if (options.answered.has(key) || options.answered.has(`n${last.id}`)) continue;
    const place = root.position ?? last.position;
    items.push({
      ...pull, id: `t${root.id}`, key, kind: 'thread', comment_id: discussion.id, resolvable: discussion.resolvable,
      ...(place ? { path: place.path, ...(place.line ? { line: place.line } : {}) } : {}),
      conversation: conversation.map(line),
    });
  }
  return items;
}
