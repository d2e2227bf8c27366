import { describe, expect, it } from 'vitest';
import { decisionsFor, type FeedbackItem } from '../../../../activities/stations/code-change/review-feedback';
import { reviewAnswers } from '../../../../activities/stations/code-change/review-stations';

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

describe('answers in GitLab discussions', () => {
  const mr = { pull_request: 'platform/billing!1', repository: 'platform/billing', number: 1 };
  const accepted: FeedbackItem = { ...mr, id: 't10', key: 't10@10', kind: 'thread', comment_id: 'a'.repeat(40), resolvable: true, path: 'src/export.ts', line: 12, conversation: ['lead: Say which invoices.'] };
  const asked: FeedbackItem = { ...mr, id: 't20', key: 't20@20', kind: 'thread', comment_id: 'b'.repeat(40), resolvable: true, conversation: ['lead: Why CSV?'] };
  const comment: FeedbackItem = { ...mr, id: 'n30', key: 'n30', kind: 'review', conversation: ['lead: Name the file invoices.csv.'] };
  const pushed = new Map([['platform/billing', 'abcdef0123456789']]);

  it('replies in each thread, resolves the one whose change was pushed, and answers plain comments in one note', () => {
    const decided = decisionsFor([accepted, asked, comment], [
      { id: 't10', decision: 'accept', change: 'listed the invoices' }, { id: 't20', decision: 'contest', reply: 'CSV opens anywhere.' }, { id: 'n30', decision: 'accept', change: 'renamed the file' },
    ]);
    const effects = reviewAnswers(decided, pushed);
    expect(effects.map((e) => [e.name, e.operation])).toEqual([
      [`reply_${'a'.repeat(40)}`, { kind: 'scmhost.review_reply', repository: 'platform/billing', number: 1, comment_id: 'a'.repeat(40), body: 'Done in abcdef0: listed the invoices', resolve: true }],
      [`reply_${'b'.repeat(40)}`, { kind: 'scmhost.review_reply', repository: 'platform/billing', number: 1, comment_id: 'b'.repeat(40), body: 'CSV opens anywhere.' }],
      ['answer_reviews_platform_billing_1', { kind: 'scmhost.pr_comment', repository: 'platform/billing', number: 1, body: 'On the review:\n- lead: Done in abcdef0: renamed the file' }],
    ]);
  });

  it('does not resolve a thread that cannot be resolved, or whose change was not pushed', () => {
    const decided = decisionsFor([{ ...accepted, resolvable: false }], [{ id: 't10', decision: 'accept', change: 'listed the invoices' }]);
    expect(reviewAnswers(decided, pushed)[0]!.operation).not.toHaveProperty('resolve');
    expect(reviewAnswers(decisionsFor([accepted], []), new Map())[0]!.operation).not.toHaveProperty('resolve');
  });
});
