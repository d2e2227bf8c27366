import { stripIdempotencyMarker } from '../../../src/providers/scmhost/idempotency-marker';
import type { Review, ReviewThread } from '../../../src/providers/scmhost/scmhost-types';

/**
 * What implement_review answers (REFERENCE "Source host conventions", review response): the review threads whose
 * last word is not the service's, and the bodies of reviews that asked for changes or commented. Each item has a
 * key that changes when a person writes again, so an answered item is not answered twice and a new reply in the
 * same thread is seen. Pure; the station reads the pull requests and runs the model.
 */
export interface FeedbackItem {
  /** Stable within one visit and shown to the model: `t<root comment id>` or `r<review id>` (GitLab: `n<note id>`). */
  id: string;
  /** `t<root>@<last comment id>` or `r<review id>`: remembered once answered. */
  key: string;
  pull_request: string;
  repository: string;
  number: number;
  kind: 'thread' | 'review';
  /** For a thread: the comment to reply to (GitLab: the discussion id). */
  comment_id?: number | string;
  /** GitLab: the thread can be resolved (once its change is made). */
  resolvable?: boolean;
  path?: string;
  line?: number;
  /** The conversation, oldest first, as `author: text`. */
  conversation: string[];
}

/** How much of one comment the model reads. */
export const TEXT_LIMIT = 2000;

export function openFeedback(pull: { pull_request: string; repository: string; number: number }, reviews: readonly Review[], threads: readonly ReviewThread[], options: { bot: string; answered: ReadonlySet<string> }): FeedbackItem[] {
  const bot = options.bot.toLowerCase();
  const mine = (author: string | undefined) => (author ?? '').toLowerCase() === bot;
  const items: FeedbackItem[] = [];
  for (const review of reviews) {
    const key = `r${review.id}`;
    if (mine(review.author) || options.answered.has(key) || !review.body.trim()) continue;
    if (review.state !== 'CHANGES_REQUESTED' && review.state !== 'COMMENTED') continue;
    items.push({ ...pull, id: key, key, kind: 'review', conversation: [`${review.author ?? 'someone'}: ${stripIdempotencyMarker(review.body).slice(0, TEXT_LIMIT)}`] });
  }
  for (const thread of threads) {
    const last = thread.comments.at(-1);
    if (!last || mine(last.author)) continue;
    const key = `t${thread.rootId}@${last.id}`;
    if (options.answered.has(key)) continue;
    items.push({
      ...pull, id: `t${thread.rootId}`, key, kind: 'thread', comment_id: thread.rootId, path: thread.path, ...(thread.line ? { line: thread.line } : {}),
      conversation: thread.comments.map((c) => `${c.author ?? 'someone'}: ${stripIdempotencyMarker(c.body).slice(0, TEXT_LIMIT)}`),
    });
  }
  return items;
}

/** The items as the analysis model and the fix agent read them. */
export function feedbackText(items: readonly FeedbackItem[]): string {
  return items.map((item) => [
    `### ${item.id} (${item.pull_request}${item.path ? `, ${item.path}${item.line ? `:${item.line}` : ''}` : item.kind === 'thread' ? ', thread' : ', review'})`,
    ...item.conversation.map((line) => `> ${line.replace(/\n/g, '\n> ')}`),
  ].join('\n')).join('\n\n');
}

export type Decision = 'accept' | 'contest' | 'clarify' | 'ignore';

/**
 * The model's decision for every item. An item the model left out is accepted: a reviewer's request is done unless
 * there is a reason not to, and the reason must be said in a reply.
 */
export function decisionsFor(items: readonly FeedbackItem[], answers: ReadonlyArray<{ id: string; decision: Decision; reply?: string; change?: string }>): Array<FeedbackItem & { decision: Decision; reply: string; change: string }> {
  const byId = new Map(answers.map((a) => [a.id.trim(), a]));
  return items.map((item) => {
    const answer = byId.get(item.id);
    const decision = answer?.decision ?? 'accept';
    // A contest or a question without words would leave the reviewer with nothing: it is accepted instead.
    const silent = (decision === 'contest' || decision === 'clarify') && !answer?.reply?.trim();
    return { ...item, decision: silent ? 'accept' : decision, reply: answer?.reply?.trim() ?? '', change: answer?.change?.trim() ?? '' };
  });
}

