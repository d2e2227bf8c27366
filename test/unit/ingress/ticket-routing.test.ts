import { describe, expect, it } from 'vitest';
import { ownCommentReason } from '../../../src/ingress/loop-guard';
import { ticketKeyFromBranch, ticketKeyFromTitle } from '../../../src/ingress/ticket-routing';
import { withIdempotencyMarker } from '../../../src/providers/scmhost/idempotency-marker';

describe('ticket routing', () => {
  it.each([
    ['[PROJ-12] Export invoices', 'PROJ-12'],
    ['Fix: [proj-7] lower case', 'PROJ-7'],
    ['[not a key] [ABC-3] second bracket', 'ABC-3'],
    ['No key here', undefined],
    ['[PROJ-0] zero is not a ticket number', undefined],
  ])('title %j -> %s', (title, key) => expect(ticketKeyFromTitle(title)).toBe(key));

  it.each([
    ['service/proj-12', 'PROJ-12'],
    ['refs/heads/service/proj-12', 'PROJ-12'],
    ['service/prd/proj-3', 'PROJ-3'],
    ['feature/proj-12', undefined],
    ['service/not-a-key-', undefined],
  ])('branch %s -> %s', (branch, key) => expect(ticketKeyFromBranch(branch)).toBe(key));
});

describe('loop guard', () => {
  it('recognises the service account, the bot prefix and the hidden marker, and nothing else', () => {
    expect(ownCommentReason({ body: 'hi' }, { botAccounts: ['github:service-bot'] }, ['github:Service-Bot'])).toBe('comment written by the service account');
    expect(ownCommentReason({ body: '[svc] PRD ready' }, { botCommentPrefix: '[svc]' }, ['github:x'])).toContain('prefix');
    expect(ownCommentReason({ body: withIdempotencyMarker('Done', 'PROJ-1:run:node:comment:1') }, {})).toContain('marker');
    expect(ownCommentReason({ body: '/service skip-gate lint' }, { botAccounts: ['github:service-bot'], botCommentPrefix: '[svc]' }, ['github:ada'])).toBeUndefined();
    // The bot's login on GitHub is not its id in the tracker: the same string on another system is someone else.
    expect(ownCommentReason({ body: 'hi' }, { botAccounts: ['github:service-bot'] }, ['tracker:service-bot'])).toBeUndefined();
  });
});
