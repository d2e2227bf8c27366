import { describe, expect, it } from 'vitest';
import { beforeManagement, madeAt, managementFor, managementMomentOf, noteManagement, type Management } from '../../../../workflows/runtime/management-moment';
import type { Observation, ObservationFacts } from '../../../../workflows/ledger/observation';

const T0 = '2026-11-27T10:00:00.000Z';
const LABELLED = '2026-11-27T10:05:00.000Z';

function observation(event: Observation['event'], facts: ObservationFacts, extra: Partial<Observation> = {}): Observation {
  return {
    delivery_identity: `${event}-identity`, source: 'webhook', source_system: 'tracker', event, resource: { kind: 'issue', id: '10001' }, revision: null,
    fingerprint: 'f', ticket_key: 'SBX-1', facts, observed_at: null, received_at: '2026-11-27T10:30:00.000Z', ...extra,
  };
}

const created = (labels: string[], source: Observation['source'] = 'webhook', at = T0) =>
  observation('issue_created', { labels }, { observed_at: at, source, delivery_identity: 'tracker:issue:10001:created' });
const labelChange = (added: string[], at: string, removed: string[] = []) =>
  observation('issue_updated', { label_change: { added, removed } }, { observed_at: at, delivery_identity: `tracker:changelog:${at}` });
const comment = (createdAt: string | undefined, updatedAt: string, body = '/service foo') =>
  observation('issue_commented', { comment: { id: '20001', body, created: createdAt, updated: updatedAt } }, { observed_at: updatedAt });

describe('the moment the service took the ticket', () => {
  it('comes from the change that added service:managed, or a creation with the label on it', () => {
    expect(managementMomentOf(labelChange(['service:managed'], LABELLED))).toEqual({ since: LABELLED, source: 'label_added', delivery_identity: `tracker:changelog:${LABELLED}` });
    expect(managementMomentOf(created(['service:managed']))).toEqual({ since: T0, source: 'issue_created', delivery_identity: 'tracker:issue:10001:created' });
    // The poller reads today's labels: its creation says nothing certain about the labels the ticket was created with.
    expect(managementMomentOf(created(['service:managed'], 'poller'))).toMatchObject({ source: 'issue_created', provisional: true });
  });

  it('is nothing for other facts, or a start without a time', () => {
    expect(managementMomentOf(created(['frontend']))).toBeUndefined();
    expect(managementMomentOf(labelChange(['service:prd-approved'], LABELLED))).toBeUndefined();
    expect(managementMomentOf(labelChange([], LABELLED, ['service:managed']))).toBeUndefined();
    expect(managementMomentOf({ ...labelChange(['service:managed'], LABELLED), observed_at: null })).toBeUndefined();
    expect(managementMomentOf({ ...labelChange(['service:managed'], LABELLED), observed_at: 'not a time' })).toBeUndefined();
  });

  it('is fixed by the first starting fact', () => {
    const byLabel = noteManagement(undefined, labelChange(['service:managed'], LABELLED));
    expect(byLabel).toMatchObject({ since: LABELLED, source: 'label_added' });
    // The creation arriving afterwards (the poller reads it again) does not move it back to the creation.
    expect(noteManagement(byLabel, created(['service:managed'], 'poller'))).toBe(byLabel);
    // Nor does the label added again later, after someone removed it.
    expect(noteManagement(byLabel, labelChange(['service:managed'], '2026-11-28T09:00:00.000Z'))).toBe(byLabel);
    // A fact that starts nothing leaves it as it is.
    expect(noteManagement(byLabel, comment(T0, T0))).toBe(byLabel);
    expect(noteManagement(undefined, comment(T0, T0))).toBeUndefined();
  });

  it('moves from the poller\'s creation to a later change that added the label, and only then', () => {
    const polled = noteManagement(undefined, created(['service:managed'], 'poller'));
    expect(noteManagement(polled, labelChange(['service:managed'], LABELLED))).toMatchObject({ since: LABELLED, source: 'label_added' });
    // A webhook's creation carries the labels the ticket was created with: it was managed from then on.
    const webhook = noteManagement(undefined, created(['service:managed']));
    expect(noteManagement(webhook, labelChange(['service:managed'], LABELLED))).toBe(webhook);
  });

  it('falls back to the workflow start when no starting fact came first, and keeps a noted one', () => {
    expect(managementFor(undefined, '2026-11-27T11:00:00.000Z')).toEqual({ since: '2026-11-27T11:00:00.000Z', source: 'workflow_start' });
    const noted: Management = { since: LABELLED, source: 'label_added' };
    expect(managementFor(noted, '2026-11-27T11:00:00.000Z')).toBe(noted);
  });
});

describe('what a person made before that moment', () => {
  const management: Management = { since: LABELLED, source: 'label_added' };

  it('judges a comment by its creation, also when it was edited after the moment', () => {
    expect(madeAt(comment('2026-11-27T10:04:55.000Z', '2026-11-27T10:04:55.000Z'))).toBe('2026-11-27T10:04:55.000Z');
    expect(madeAt(comment('2026-11-27T10:04:55.000Z', '2026-11-27T10:20:00.000Z'))).toBe('2026-11-27T10:04:55.000Z');
    // A comment without its creation time (some Server/DC events): its update time is all there is.
    expect(madeAt(comment(undefined, '2026-11-27T10:20:00.000Z'))).toBe('2026-11-27T10:20:00.000Z');

    expect(beforeManagement(comment('2026-11-27T10:04:55.000Z', '2026-11-27T10:04:55.000Z'), management)).toBe(
      'before_management: comment 20001 was made at 2026-11-27T10:04:55.000Z, before the service took SBX-1 at 2026-11-27T10:05:00.000Z (service:managed was added); only what people write after that commands the ticket',
    );
    expect(beforeManagement(comment('2026-11-27T10:04:55.000Z', '2026-11-27T10:20:00.000Z', '/service approve'), management)).toMatch(/^before_management: comment 20001 was made at 2026-11-27T10:04:55.000Z/);
  });

  it('judges a label change by its changelog time', () => {
    expect(beforeManagement(labelChange(['service:retry'], '2026-11-27T10:01:00.000Z'), management)).toBe(
      'before_management: label change +service:retry was made at 2026-11-27T10:01:00.000Z, before the service took SBX-1 at 2026-11-27T10:05:00.000Z (service:managed was added); only what people write after that commands the ticket',
    );
    expect(beforeManagement(observation('issue_updated', {}, { observed_at: '2026-11-27T10:01:00.000Z' }), { since: LABELLED, source: 'issue_created' }))
      .toContain('ticket update was made at 2026-11-27T10:01:00.000Z, before the service took SBX-1 at 2026-11-27T10:05:00.000Z (the ticket was created with service:managed)');
  });

  it('lets through what was made at or after the moment, the starting change itself included', () => {
    expect(beforeManagement(labelChange(['service:managed'], LABELLED), management)).toBeUndefined();
    expect(beforeManagement(comment('2026-11-27T10:05:00.001Z', '2026-11-27T10:05:00.001Z'), management)).toBeUndefined();
    expect(beforeManagement(comment('2026-11-27T10:04:00.000Z', '2026-11-27T10:04:00.000Z'), { since: '2026-11-27T10:03:00.000Z', source: 'workflow_start' })).toBeUndefined();
  });

  it('does not judge what carries no time, nor pull-request events and the creation', () => {
    expect(beforeManagement({ ...labelChange(['service:retry'], LABELLED), observed_at: null }, management)).toBeUndefined();
    expect(madeAt(created(['service:managed']))).toBeUndefined();
    const prComment = observation('issue_comment', { comment: { id: 'p1', body: '/service rebase', created: T0, updated: T0 } }, { source_system: 'scmhost', observed_at: T0 });
    expect(madeAt(prComment)).toBeUndefined();
    expect(beforeManagement(prComment, management)).toBeUndefined();
  });

  it('names the workflow start when that is the moment', () => {
    expect(beforeManagement(comment(T0, T0), { since: LABELLED, source: 'workflow_start' })).toContain('(the workflow started)');
  });
});
