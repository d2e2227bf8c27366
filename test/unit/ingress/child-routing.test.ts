import { describe, expect, it } from 'vitest';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import { planTrackerDelivery } from '../../../src/ingress/tracker/plan-tracker-delivery';
import { deliverTrackerObservation } from '../../../src/ingress/deliver-observation';
import type { Observation } from '../../../workflows/ledger/observation';

/** Records which workflow each observation was signalled to; starting a workflow is an error here. */
function port(calls: Array<[string, Observation]>): TicketWorkflowsPort {
  return new Proxy({}, {
    get: (_target, name) => {
      if (name === 'signal') return async (key: string, observation: Observation) => { calls.push([key, observation]); return 'signalled'; };
      return () => Promise.reject(new Error(`unexpected call ${String(name)}`));
    },
  }) as TicketWorkflowsPort;
}

const epicCreated: Observation = {
  delivery_identity: 'tracker:issue:FEAT-7:created', source: 'webhook', source_system: 'tracker', event: 'issue_created',
  resource: { kind: 'issue', id: '10007' }, revision: '1', fingerprint: 'f', ticket_key: 'FEAT-7', observed_at: null,
  received_at: '2026-11-23T08:00:00.000Z',
  facts: { issue_type: 'Epic', labels: ['service:managed', 'service:parent:FEAT-1', 'service:epic-item:FEAT-1:1', 'repo:acme/api'] },
};

describe('events on provisioned epics and tasks', () => {
  it('go to the parent feature\'s workflow instead of starting one of their own', async () => {
    expect(planTrackerDelivery(epicCreated)).toEqual({ action: 'signal_parent', parent_key: 'FEAT-1' });
    const calls: Array<[string, Observation]> = [];
    const comment = { ...epicCreated, event: 'issue_commented' as const, facts: { ...epicCreated.facts, comment: { id: '5', body: 'Looks good' } } };
    expect(await deliverTrackerObservation(port(calls), epicCreated, {})).toEqual({ outcome: 'signalled', ticket_key: 'FEAT-1', child_key: 'FEAT-7' });
    expect(await deliverTrackerObservation(port(calls), comment, {})).toMatchObject({ outcome: 'signalled', ticket_key: 'FEAT-1' });
    // The observation keeps the child's key, so the feature's workflow knows which child it is about.
    expect(calls.map(([key, observation]) => [key, observation.ticket_key])).toEqual([['FEAT-1', 'FEAT-7'], ['FEAT-1', 'FEAT-7']]);
  });

  it('leave a ticket without a parent label as it was', () => {
    expect(planTrackerDelivery({ ...epicCreated, facts: { issue_type: 'Feature', labels: ['service:managed'] } })).toEqual({ action: 'start', workflow_kind: 'feature' });
  });
});
