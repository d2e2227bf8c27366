import { describe, expect, it } from 'vitest';
import { openMergeRequestFeedback } from '../../../../activities/stations/code-change/merge-request-feedback';
import { feedbackText } from '../../../../activities/stations/code-change/review-feedback';
import type { Discussion, DiscussionNote } from '../../../../src/providers/gitlab/gitlab-client';

const pull = { pull_request: 'platform/billing!1', repository: 'platform/billing', number: 1 };
const note = (id: number, body: string, extra: Partial<DiscussionNote> = {}): DiscussionNote => ({
  id, body, author: 'alice', system: false, createdAt: '', updatedAt: '', type: null, resolvable: false, resolved: false, ...extra,
});
const plain = (n: DiscussionNote): Discussion => ({ id: `d${n.id}`, individualNote: true, notes: [n], resolvable: false, resolved: false });
const thread = (id: string, notes: DiscussionNote[], resolved = false): Discussion => ({
  id, individualNote: false, notes: notes.map((n) => ({ ...n, type: n.type ?? 'DiscussionNote', resolvable: !n.system, resolved })), resolvable: true, resolved,
});
const none = { bot: 'service-bot', answered: new Set<string>() };

describe('GitLab merge request discussions as review feedback', () => {
  it('takes each person\'s plain comment once, leaving out system notes, the service\'s own notes, commands and answered ones', () => {
    const items = openMergeRequestFeedback(pull, [
      plain(note(1, 'Rename the column.')),
      plain(note(2, 'added 1 commit', { system: true })),
      plain(note(3, 'Automated review by the service', { author: 'service-bot', idempotencyKey: 'K:1' })),
      plain(note(4, 'a copied marker', { author: 'mallory', idempotencyKey: 'K:2' })),
      plain(note(5, '/service rebase')),
      plain(note(6, 'Already answered.')),
      plain(note(7, 'by the bot login', { author: 'Service-Bot' })),
    ], { bot: 'service-bot', answered: new Set(['n6']) });
    expect(items).toEqual([
      { ...pull, id: 'n1', key: 'n1', kind: 'review', conversation: ['alice: Rename the column.'] },
      { ...pull, id: 'n4', key: 'n4', kind: 'review', conversation: ['mallory: a copied marker'] },
    ]);
  });

  it('keeps a reviewer\'s thread open when someone else replies with a copy of the service\'s marker', () => {
    const items = openMergeRequestFeedback(pull, [
      thread('9'.repeat(40), [note(80, 'Validate the input.'), note(81, 'Done.\n\n<!-- service:idempotency-key=K:9 -->', { author: 'mallory', idempotencyKey: 'K:9' })]),
    ], none);
    expect(items.map((i) => [i.key, i.conversation])).toEqual([['t80@81', ['alice: Validate the input.', 'mallory: Done.']]]);
  });

  it('answers a thread in its discussion, with its place, while its last word is a person\'s and it is open', () => {
    const diff = { type: 'DiffNote' as const, position: { path: 'src/export.ts', line: 12 } };
    const items = openMergeRequestFeedback(pull, [
      thread('a'.repeat(40), [note(10, 'Say which invoices.', diff)]),
      thread('b'.repeat(40), [note(20, 'Why CSV?'), note(21, 'CSV opens anywhere.\n\n<!-- service:idempotency-key=K:3 -->', { author: 'service-bot', idempotencyKey: 'K:3' }), note(22, 'JSON is easier to parse.')]),
      thread('c'.repeat(40), [note(30, 'Typo here.'), note(31, 'Done.', { author: 'service-bot', idempotencyKey: 'K:4' })]),
      thread('d'.repeat(40), [note(40, 'Resolved by the reviewer.')], true),
    ], none);
    expect(items).toEqual([
      { ...pull, id: 't10', key: 't10@10', kind: 'thread', comment_id: 'a'.repeat(40), resolvable: true, path: 'src/export.ts', line: 12, conversation: ['alice: Say which invoices.'] },
      {
        ...pull, id: 't20', key: 't20@22', kind: 'thread', comment_id: 'b'.repeat(40), resolvable: true,
        conversation: ['alice: Why CSV?', 'service-bot: CSV opens anywhere.', 'alice: JSON is easier to parse.'],
      },
    ]);
    expect(feedbackText(items)).toContain('### t20 (platform/billing!1, thread)\n> alice: Why CSV?');
  });

  it('sees a new reply in an answered thread, and counts an answer given to the note before threads were answered in place', () => {
    const discussion = thread('e'.repeat(40), [note(50, 'Rename it.'), note(51, 'Done in abc.', { author: 'service-bot' }), note(52, 'And the test too.')]);
    expect(openMergeRequestFeedback(pull, [discussion], { ...none, answered: new Set(['t50@50']) }).map((i) => i.key)).toEqual(['t50@52']);
    expect(openMergeRequestFeedback(pull, [discussion], { ...none, answered: new Set(['t50@52']) })).toEqual([]);
    expect(openMergeRequestFeedback(pull, [discussion], { ...none, answered: new Set(['n52']) })).toEqual([]);
  });

  it('leaves out a `/service` command that ends a thread, and the thread it ends when the service had the last word', () => {
    const items = openMergeRequestFeedback(pull, [
      thread('f'.repeat(40), [note(60, 'Is this needed?'), note(61, '/service rebase')]),
      thread('0'.repeat(40), [note(70, 'Fix it.'), note(71, 'Fixed.', { author: 'service-bot' }), note(72, '/service skip-gate lint')]),
    ], none);
    expect(items.map((i) => [i.key, i.conversation])).toEqual([['t60@60', ['alice: Is this needed?']]]);
  });
});
