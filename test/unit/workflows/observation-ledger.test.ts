import { describe, expect, it } from 'vitest';
import { applyObservation, compareRevisions, emptyLedger, LEDGER_LIMITS } from '../../../workflows/observation-ledger';
import type { Observation } from '../../../workflows/observation';

function observation(identity: string, overrides: Partial<Observation> = {}): Observation {
  return {
    delivery_identity: identity, source: 'webhook', source_system: 'tracker', event: 'issue_updated',
    resource: { kind: 'issue_changelog', id: '10042' }, revision: null, fingerprint: `fp-${identity}`,
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
    expect(late.reason).toBe('revision 9 of issue_changelog 10042 is older than accepted revision 10');
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

describe('compareRevisions', () => {
  it.each([['9', '10', -1], ['10', '10', 0], ['2026-11-23T08:00:00.000Z', '2026-11-23T07:00:00.000Z', 1]])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareRevisions(a, b))).toBe(sign);
  });
});
