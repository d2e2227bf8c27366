import { describe, expect, it } from 'vitest';
import { isStopRequest } from '../../../../workflows/runtime/kill-switch';
import type { Observation, ObservationFacts } from '../../../../workflows/ledger/observation';

const observation = (event: Observation['event'], facts: ObservationFacts): Observation => ({
  delivery_identity: 'i', source: 'webhook', source_system: event === 'issue_comment' ? 'scmhost' : 'tracker', event, resource: { kind: 'x', id: '1' },
  revision: null, fingerprint: 'f', ticket_key: 'P-1', facts, observed_at: null, received_at: '2026-11-25T00:00:00.000Z',
});

describe('stop requests seen while a station runs', () => {
  it('are the label added or a /service stop comment on the ticket or a pull request', () => {
    expect(isStopRequest(observation('issue_updated', { label_change: { added: ['service:stop'], removed: [] } }))).toBe(true);
    expect(isStopRequest(observation('issue_updated', { label_change: { added: [], removed: ['service:stop'] } }))).toBe(false);
    expect(isStopRequest(observation('issue_commented', { comment: { id: 'c', body: '  /Service STOP \nplease' } }))).toBe(true);
    expect(isStopRequest(observation('issue_comment', { comment: { id: 'c', body: '/service stop' } }))).toBe(true);
    expect(isStopRequest(observation('issue_commented', { comment: { id: 'c', body: 'do not /service stop' } }))).toBe(false);
    expect(isStopRequest(observation('issue_commented', { comment: { id: 'c', body: '/service stopwatch' } }))).toBe(false);
  });
});
