import { describe, expect, it } from 'vitest';
import { holdInboxBehindQuestion } from '../../../../workflows/runtime/inbox-drain';
import type { Observation } from '../../../../workflows/ledger/observation';
import type { TicketState } from '../../../../workflows/runtime/ticket-state';

const comment = (body: string): Observation => ({
  observation_id: `tracker:comment:${body}`, delivery_identity: `tracker:comment:${body}`, source: 'webhook', source_system: 'tracker',
  event: 'issue_commented', ticket_key: 'T-1', observed_at: '2026-11-27T00:00:00.000Z', received_at: '2026-11-27T00:00:00.000Z',
  resource: { kind: 'comment', id: body }, revision: '1', facts: { comment: { id: body, body } },
} as unknown as Observation);
const entry = (observation: Observation, decision: 'accepted' | 'conflict' = 'accepted'): TicketState['inbox'][number] => ({ observation, decision, reason: 'new' });

describe('holdInboxBehindQuestion', () => {
  it('holds the rest of the inbox once a question sent the ticket to the station that answers it', () => {
    expect(holdInboxBehindQuestion(true, [entry(comment('? who reads it'))])).toBe(true);
  });

  it('hands out the next command on any other move (an approval, review notes), while the ticket rests, or when nothing waits', () => {
    expect(holdInboxBehindQuestion(false, [entry(comment('? who reads it'))])).toBe(false);
    expect(holdInboxBehindQuestion(true, [])).toBe(false);
  });

  it('never holds back a stop request, nor what is queued with it', () => {
    expect(holdInboxBehindQuestion(true, [entry(comment('? who reads it')), entry(comment('/service stop'))])).toBe(false);
  });

  it('holds a conflicting fact that only looks like a stop (it blocks, it does not stop)', () => {
    expect(holdInboxBehindQuestion(true, [entry(comment('/service stop'), 'conflict')])).toBe(true);
  });
});
