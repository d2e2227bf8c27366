import { describe, expect, it } from 'vitest';
import { decisionsFor, feedbackText, openFeedback } from '../../../../activities/stations/code-change/review-feedback';
import { replyFor } from '../../../../activities/stations/code-change/review-stations';
import type { Review, ReviewComment, ReviewThread } from '../../../../src/providers/scmhost/scmhost-types';

const pr = { pull_request: 'acme/api#3', repository: 'acme/api', number: 3 };
const review = (id: number, state: Review['state'], body: string, author = 'octo'): Review => ({ id, state, body, author, htmlUrl: '' });
const comment = (id: number, body: string, author: string, inReplyToId?: number): ReviewComment => ({ id, body, author, path: 'src/a.ts', line: 4, commitId: 'c', createdAt: '', updatedAt: '', htmlUrl: '', ...(inReplyToId ? { inReplyToId } : {}) });
const thread = (...comments: ReviewComment[]): ReviewThread => ({ rootId: comments[0]!.id, path: 'src/a.ts', line: 4, comments });

describe('openFeedback', () => {
  it('takes review texts that ask for changes or comment, and threads whose last word is not the service\'s', () => {
    const items = openFeedback(pr, [
      review(1, 'CHANGES_REQUESTED', 'Please rename the export.'),
      review(2, 'APPROVED', 'LGTM'),
      review(3, 'COMMENTED', ''),
      review(4, 'COMMENTED', 'My own summary', 'service-bot'),
    ], [
      thread(comment(10, 'use a const', 'octo')),
      thread(comment(20, 'why this?', 'octo'), comment(21, 'Because…<!-- service:idempotency-key=k -->', 'Service-Bot')),
    ], { bot: 'service-bot', answered: new Set() });
    expect(items.map((i) => [i.id, i.key, i.kind])).toEqual([['r1', 'r1', 'review'], ['t10', 't10@10', 'thread']]);
    expect(items[1]).toMatchObject({ comment_id: 10, path: 'src/a.ts', line: 4, conversation: ['octo: use a const'] });
  });

  it('does not answer an item twice, but sees a new reply in an answered thread', () => {
    const threads = [thread(comment(20, 'why this?', 'octo'), comment(21, 'Because.', 'service-bot'), comment(22, 'Not convinced.', 'octo'))];
    const answered = new Set(['r1', 't20@21']);
    const items = openFeedback(pr, [review(1, 'CHANGES_REQUESTED', 'Rename it.')], threads, { bot: 'service-bot', answered });
    expect(items.map((i) => i.key)).toEqual(['t20@22']);
    expect(items[0]!.conversation).toEqual(['octo: why this?', 'service-bot: Because.', 'octo: Not convinced.']);
    expect(openFeedback(pr, [], threads, { bot: 'service-bot', answered: new Set(['t20@22']) })).toEqual([]);
  });

  it('shows each item with its place and conversation', () => {
    const text = feedbackText(openFeedback(pr, [], [thread(comment(10, 'use a const\nplease', 'octo'))], { bot: 'b', answered: new Set() }));
    expect(text).toBe('### t10 (acme/api#3, src/a.ts:4)\n> octo: use a const\n> please');
  });
});

describe('decisionsFor and replyFor', () => {
  const items = openFeedback(pr, [review(1, 'CHANGES_REQUESTED', 'Rename it.')], [thread(comment(10, 'use a const', 'octo')), thread(comment(11, 'drop this', 'octo'))], { bot: 'b', answered: new Set() });

  it('accepts what the model left out, and a contest without a reason', () => {
    const decided = decisionsFor(items, [{ id: 't10', decision: 'contest', reply: '' }, { id: 't11', decision: 'contest', reply: 'The spec requires it.' }]);
    expect(decided.map((d) => [d.id, d.decision])).toEqual([['r1', 'accept'], ['t10', 'accept'], ['t11', 'contest']]);
  });

  it('replies with the commit for accepted items, the reason for contested ones, nothing for ignored ones', () => {
    const [r1, t10, t11] = decisionsFor(items, [{ id: 'r1', decision: 'ignore' }, { id: 't10', decision: 'accept', change: 'Made it a const.' }, { id: 't11', decision: 'clarify', reply: 'Drop the whole function?' }]);
    expect(replyFor(r1!, 'abcdef123')).toBeUndefined();
    expect(replyFor(t10!, 'abcdef123')).toBe('Done in abcdef1: Made it a const.');
    expect(replyFor(t11!, 'abcdef123')).toBe('Drop the whole function?');
  });
});
