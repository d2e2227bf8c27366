import { describe, expect, it } from 'vitest';
import { applyObservation, compareRevisions, emptyLedger, isCommentCreation, LEDGER_LIMITS } from '../../../../workflows/ledger/observation-ledger';
import type { Observation } from '../../../../workflows/ledger/observation';

function observation(identity: string, overrides: Partial<Observation> = {}): Observation {
  return {
    delivery_identity: identity, source: 'webhook', source_system: 'tracker', event: 'issue_updated',
    resource: { kind: 'issue_fields', id: '10042' }, revision: null, fingerprint: `fp-${identity}`,
    ticket_key: 'PROJ-42', facts: {}, observed_at: null, received_at: '2026-11-23T08:00:00.000Z', ...overrides,
  };
}

describe('observation ledger', () => {
  it('accepts a new fact and calls the same fact again a duplicate, whichever source brings it', () => {
    const ledger = emptyLedger();
    expect(applyObservation(ledger, observation('tracker:changelog:7', { revision: '7' })).decision).toBe('accepted');
    const again = applyObservation(ledger, observation('tracker:changelog:7', { revision: '7', source: 'poller' }));
    expect(again).toEqual({ decision: 'duplicate', reason: 'delivery tracker:changelog:7 was already accepted' });
    expect(ledger.counts).toEqual({ accepted: 1, duplicate: 1, stale: 0, conflict: 0 });
  });

  it('calls the same identity with different content a conflict', () => {
    const ledger = emptyLedger();
    applyObservation(ledger, observation('scmhost:review:5:approved', { fingerprint: 'a' }));
    const verdict = applyObservation(ledger, observation('scmhost:review:5:approved', { fingerprint: 'b' }));
    expect(verdict.decision).toBe('conflict');
    expect(verdict.reason).toContain('different content');
  });

  it('calls an older revision of a resource stale, and orders numeric revisions as numbers', () => {
    const ledger = emptyLedger();
    expect(applyObservation(ledger, observation('tracker:changelog:10', { revision: '10' })).decision).toBe('accepted');
    const late = applyObservation(ledger, observation('tracker:changelog:9', { revision: '9' }));
    expect(late.decision).toBe('stale');
    expect(late.reason).toBe('revision 9 of issue_fields 10042 is older than accepted revision 10');
    expect(applyObservation(ledger, observation('tracker:changelog:11', { revision: '11' })).decision).toBe('accepted');
  });

  it('orders timestamps per resource, independently of other resources', () => {
    const ledger = emptyLedger();
    const comment = (id: string, at: string) => observation(`tracker:comment:${id}@${at}`, { resource: { kind: 'comment', id }, revision: at });
    expect(applyObservation(ledger, comment('1', '2026-11-23T08:05:00.000Z')).decision).toBe('accepted');
    expect(applyObservation(ledger, comment('2', '2026-11-23T08:00:00.000Z')).decision).toBe('accepted');
    expect(applyObservation(ledger, comment('1', '2026-11-23T08:01:00.000Z')).decision).toBe('stale');
  });

  it('reports a second completion of one check run as a conflict instead of guessing which is true', () => {
    const ledger = emptyLedger();
    const run = (conclusion: string, at: string) => observation(`scmhost:check_run:77:completed:${conclusion}`, {
      source_system: 'scmhost', resource: { kind: 'check_run', id: '77' }, revision: at, claim: 'completed',
    });
    expect(applyObservation(ledger, run('success', '2026-11-23T08:00:00.000Z')).decision).toBe('accepted');
    const verdict = applyObservation(ledger, run('failure', '2026-11-23T08:00:05.000Z'));
    expect(verdict.decision).toBe('conflict');
    expect(verdict.reason).toContain('was already completed as scmhost:check_run:77:completed:success');
    expect(applyObservation(ledger, run('success', '2026-11-23T08:00:00.000Z')).decision).toBe('duplicate');
  });

  it('accepts two different facts sharing a revision: provider clocks tick in seconds', () => {
    const ledger = emptyLedger();
    const pr = (identity: string, claim?: string) => observation(identity, { source_system: 'scmhost', resource: { kind: 'pull_request', id: 'a/b#1' }, revision: '2026-11-23T08:00:00.000Z', claim });
    expect(applyObservation(ledger, pr('scmhost:pr:a/b#1:head:abc')).decision).toBe('accepted');
    expect(applyObservation(ledger, pr('scmhost:pr:a/b#1:merged:def', 'merged')).decision).toBe('accepted');
    expect(applyObservation(ledger, pr('scmhost:pr:a/b#1:merged:xyz', 'merged')).decision).toBe('conflict');
  });

  it('does not let a stale or conflicting fact move the resource revision', () => {
    const ledger = emptyLedger();
    applyObservation(ledger, observation('a', { revision: '5' }));
    applyObservation(ledger, observation('b', { revision: '3' }));
    expect(applyObservation(ledger, observation('c', { revision: '4' })).decision).toBe('stale');
  });

  it('stays bounded, forgetting the oldest identities first', () => {
    const ledger = emptyLedger();
    for (let i = 0; i < LEDGER_LIMITS.identities + 5; i += 1) applyObservation(ledger, observation(`id-${i}`));
    expect(ledger.identity_order).toHaveLength(LEDGER_LIMITS.identities);
    expect(ledger.identities['id-0']).toBeUndefined();
    expect(applyObservation(ledger, observation(`id-${LEDGER_LIMITS.identities + 4}`)).decision).toBe('duplicate');
  });

  it('survives a JSON round trip (continue-as-new carries it as plain data)', () => {
    const ledger = emptyLedger();
    applyObservation(ledger, observation('x', { revision: '1' }));
    const carried = JSON.parse(JSON.stringify(ledger));
    expect(applyObservation(carried, observation('x', { revision: '1' })).decision).toBe('duplicate');
  });
});

describe('tracker changelogs are ordered per field, labels as set operations', () => {
  const changelog = (id: string, facts: Observation['facts']) => observation(`tracker:changelog:${id}`, {
    resource: { kind: 'issue_changelog', id: '10042' }, revision: id, facts,
  });
  const labels = (id: string, added: string[], removed: string[] = []) => changelog(id, { label_change: { added, removed }, changed_fields: ['labels'] });
  const summary = (id: string) => changelog(id, { changed_fields: ['summary'] });

  it('accepts a late labels change after a later edit of another field, and hands its label change on', () => {
    const ledger = emptyLedger();
    expect(applyObservation(ledger, summary('102')).decision).toBe('accepted');
    const late = applyObservation(ledger, labels('101', ['service:prd-approved']));
    expect(late).toMatchObject({ decision: 'accepted', label_change: { added: ['service:prd-approved'], removed: [] } });
    expect(late.superseded).toBeUndefined();
  });

  it('calls a late change of a field stale once a later change of that field was accepted', () => {
    const ledger = emptyLedger();
    applyObservation(ledger, summary('102'));
    expect(applyObservation(ledger, summary('101'))).toMatchObject({ decision: 'stale', reason: 'every change of changelog 101 on issue 10042 was superseded: summary by the change at revision 102' });
  });

  it('supersedes an addition only by a later accepted removal of the same label, and the reverse', () => {
    const ledger = emptyLedger();
    applyObservation(ledger, labels('103', [], ['service:retry']));
    expect(applyObservation(ledger, labels('101', ['service:retry'])).decision).toBe('stale');
    applyObservation(ledger, labels('110', ['service:blocked']));
    expect(applyObservation(ledger, labels('105', [], ['service:blocked'])).decision).toBe('stale');
    // A later addition of the same label does not withdraw an earlier one; another label's removal neither.
    applyObservation(ledger, labels('120', ['service:yolo']));
    expect(applyObservation(ledger, labels('115', ['service:yolo'])).decision).toBe('accepted');
    expect(applyObservation(ledger, labels('111', ['service:prd-approved'])).decision).toBe('accepted');
  });

  it('keeps the operations still in force when only some of a changelog was superseded', () => {
    const ledger = emptyLedger();
    applyObservation(ledger, labels('103', [], ['service:retry']));
    const mixed = applyObservation(ledger, labels('101', ['service:retry', 'service:prd-approved']));
    expect(mixed).toMatchObject({ decision: 'accepted', label_change: { added: ['service:prd-approved'], removed: [] }, superseded: ['+service:retry by the removal at revision 103'] });
  });

  it('still calls a redelivered changelog a duplicate', () => {
    const ledger = emptyLedger();
    applyObservation(ledger, labels('101', ['service:retry']));
    expect(applyObservation(ledger, { ...labels('101', ['service:retry']), source: 'poller' }).decision).toBe('duplicate');
  });
});

describe('comment creations and edits are different facts', () => {
  const comment = (updated: string, created = '2026-11-23T08:00:00.000Z') => observation(`tracker:comment:9@${updated}`, {
    event: 'issue_commented', resource: { kind: 'comment', id: '9' }, revision: updated,
    facts: { comment: { id: '9', body: '/service approve', created, updated } },
  });

  it('accepts a creation that arrives after its edit, once', () => {
    const ledger = emptyLedger();
    expect(applyObservation(ledger, comment('2026-11-23T08:05:00.000Z')).decision).toBe('accepted');
    expect(applyObservation(ledger, comment('2026-11-23T08:00:00.000Z')).decision).toBe('accepted');
    expect(applyObservation(ledger, comment('2026-11-23T08:00:00.000Z')).decision).toBe('duplicate');
    // Edits are still ordered among themselves.
    expect(applyObservation(ledger, comment('2026-11-23T08:03:00.000Z')).decision).toBe('stale');
  });

  it('reads a creation from the comment\'s times, and from the provider\'s action when a time is missing', () => {
    expect(isCommentCreation(observation('x', { facts: { action: 'created', comment: { id: '1', body: '', created: 'a', updated: 'b' } } }))).toBe(false);
    expect(isCommentCreation(observation('x', { facts: { action: 'created', comment: { id: '1', body: '' } } }))).toBe(true);
    expect(isCommentCreation(observation('x', { facts: { action: 'edited', comment: { id: '1', body: '', created: 'a', updated: 'a' } } }))).toBe(false);
    expect(isCommentCreation(observation('x', { facts: { comment: { id: '1', body: '', created: 'a' } } }))).toBe(true);
    expect(isCommentCreation(observation('x', { facts: { comment: { id: '1', body: '', updated: 'a' } } }))).toBe(false);
  });
});

describe('compareRevisions', () => {
  it.each([['9', '10', -1], ['10', '10', 0], ['2026-11-23T08:00:00.000Z', '2026-11-23T07:00:00.000Z', 1]])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareRevisions(a, b))).toBe(sign);
  });
});
