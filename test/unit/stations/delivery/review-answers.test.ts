import { describe, expect, it } from 'vitest';
import { decisionsFor, type FeedbackItem } from '../../../../activities/stations/delivery/review-feedback';
import { reviewAnswers } from '../../../../activities/stations/delivery/review-stations';

const pull = { pull_request: 'github:acme/app#7', repository: 'acme/app', number: 7 };
const review: FeedbackItem = { ...pull, id: 'r1', key: 'r1', kind: 'review', conversation: ['lead: Please see the comment on the code.'] };
const thread: FeedbackItem = { ...pull, id: 't11', key: 't11@11', kind: 'thread', comment_id: 11, path: 'src/a.ts', line: 3, conversation: ['lead: Name the rows exported'] };
const commits = new Map([['acme/app', 'abcdef0123456789']]);

describe('answers to review feedback', () => {
  it('answers a review that only points at its line comment once, in the thread', () => {
    const decided = decisionsFor([review, thread], [{ id: 'r1', decision: 'accept', change: 'named the rows' }, { id: 't11', decision: 'accept', change: 'named the rows' }]);
    const effects = reviewAnswers(decided, commits);
    expect(effects.map((e) => e.operation.kind)).toEqual(['scmhost.review_reply']);
    expect(effects[0]!.operation).toMatchObject({ comment_id: 11, body: 'Done in abcdef0: named the rows' });
  });

  it('still answers a review body that says something else, in one pull request comment', () => {
    const decided = decisionsFor([review, thread], [{ id: 'r1', decision: 'clarify', reply: 'Which rows do you mean?' }, { id: 't11', decision: 'accept', change: 'named the rows' }]);
    const effects = reviewAnswers(decided, commits);
    expect(effects.map((e) => e.operation.kind)).toEqual(['scmhost.review_reply', 'scmhost.pr_comment']);
    expect(effects[1]!.operation).toMatchObject({ number: 7, body: 'On the review:\n- lead: Which rows do you mean?' });
  });
});
