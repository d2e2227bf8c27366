import { describe, expect, it } from 'vitest';
import { deliverSourceHostObservation, deliverTrackerObservation } from '../../../src/ingress/deliver-observation';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import type { Observation } from '../../../workflows/ledger/observation';

function recordingPort(signalled: Observation[]): TicketWorkflowsPort {
  return new Proxy({}, {
    get: (_target, name) => {
      if (name === 'signal') return async (_key: string, observation: Observation) => { signalled.push(observation); return 'signalled'; };
      if (name === 'startOrSignal') return async (_input: unknown, observation: Observation) => { signalled.push(observation); return { workflowId: 'ticket-X' }; };
      return () => Promise.reject(new Error(`unexpected call ${String(name)}`));
    },
  }) as TicketWorkflowsPort;
}

const base: Observation = {
  delivery_identity: 'tracker:comment:1@t', source: 'webhook', source_system: 'tracker', event: 'issue_commented',
  resource: { kind: 'comment', id: '1' }, revision: 't', fingerprint: 'f', ticket_key: 'PROJ-1', observed_at: null,
  received_at: '2026-11-23T08:00:00.000Z', facts: { labels: ['service:managed'], comment: { id: '1', body: 'my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 oops' } },
};

describe('delivering observations', () => {
  it('redacts credentials from the facts before they reach the workflow, keeping identity and fingerprint', async () => {
    const signalled: Observation[] = [];
    expect(await deliverTrackerObservation(recordingPort(signalled), base, {})).toEqual({ outcome: 'signalled', ticket_key: 'PROJ-1' });
    expect(signalled[0]!.facts.comment!.body).toBe('my token is [REDACTED] oops');
    expect(signalled[0]!.delivery_identity).toBe(base.delivery_identity);
    expect(signalled[0]!.fingerprint).toBe('f');
    expect(base.facts.comment!.body).toContain('ghp_');
  });

  it('routes a source-host comment by its title and redacts it too', async () => {
    const signalled: Observation[] = [];
    const { ticket_key: _drop, ...unrouted } = { ...base, source_system: 'scmhost' as const, event: 'issue_comment' as const };
    const outcome = await deliverSourceHostObservation(recordingPort(signalled), unrouted, { title: '[PROJ-7] change' }, {});
    expect(outcome).toEqual({ outcome: 'signalled', ticket_key: 'PROJ-7', routed_by: 'title' });
    expect(signalled[0]!.facts.comment!.body).not.toContain('ghp_');
  });

  it('never delivers the service\'s own pull-request review back to it, but does deliver a person\'s', async () => {
    const signalled: Observation[] = [];
    const review = (author: string) => ({
      ...base, source_system: 'scmhost' as const, event: 'pull_request_review' as const,
      facts: { review: { id: '9', state: 'commented' as const, body: 'Automated review: looks fine.', author } },
    });
    const { ticket_key: _a, ...own } = review('service-bot');
    expect(await deliverSourceHostObservation(recordingPort(signalled), own, { title: '[PROJ-7] change' }, { botAccounts: ['github:service-bot'] }))
      .toEqual({ outcome: 'ignored', reason_code: 'own_comment', reason: 'review written by the service account' });
    const { ticket_key: _b, ...theirs } = review('octo-reviewer');
    expect(await deliverSourceHostObservation(recordingPort(signalled), theirs, { title: '[PROJ-7] change' }, { botAccounts: ['github:service-bot'] })).toMatchObject({ outcome: 'signalled' });
    // The bot's GitHub login does not make a GitLab user of the same name the service.
    const { ticket_key: _c, ...gitlabNamesake } = { ...review('service-bot'), source_system: 'gitlab' as const };
    expect(await deliverSourceHostObservation(recordingPort(signalled), gitlabNamesake, { title: '[PROJ-7] change' }, { botAccounts: ['github:service-bot'] })).toMatchObject({ outcome: 'signalled' });
    expect(signalled).toHaveLength(2);
  });

  it('does not start a completed ticket again when its creation is delivered again, and says why', async () => {
    const created = { ...base, event: 'issue_created' as const, facts: { labels: ['service:managed'], issue_type: 'Feature' } };
    const completed = new Proxy({}, { get: (_t, name) => (name === 'startOrSignal' ? async () => ({ workflowId: 'ticket-PROJ-1', completed: true }) : undefined) }) as TicketWorkflowsPort;
    expect(await deliverTrackerObservation(completed, created, {})).toEqual({
      outcome: 'ignored', reason_code: 'completed', reason: 'the workflow of PROJ-1 has completed; a completed ticket is not started again', ticket_key: 'PROJ-1',
    });
  });
});
