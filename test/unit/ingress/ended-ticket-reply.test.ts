import { describe, expect, it } from 'vitest';
import { deliverSourceHostObservation, deliverTrackerObservation } from '../../../src/ingress/deliver-observation';
import { endedTicketReplyPlan, endedTicketReplyText, type EndedRun, type EndedTicketReplyPlan } from '../../../src/ingress/ended-ticket-reply';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import type { Observation } from '../../../workflows/ledger/observation';

const ENDED: EndedRun = { status: 'COMPLETED', closed_at: '2026-12-01T09:30:12.000Z' };

const comment = (body: string): Observation => ({
  delivery_identity: `tracker:comment:7@${body}`, source: 'webhook', source_system: 'tracker', event: 'issue_commented',
  resource: { kind: 'comment', id: '7' }, revision: 't', fingerprint: 'f', ticket_key: 'SBX-1', observed_at: null,
  received_at: '2026-12-05T08:00:00.000Z', facts: { labels: ['service:managed'], comment: { id: '7', body } },
});

const prComment = (body: string): Observation => ({
  ...comment(body), source_system: 'scmhost', event: 'issue_comment',
  facts: { comment: { id: '9', body, author: 'octo' }, pull_request: { number: 4, title: '[SBX-1] Dark mode' } as never, repository: 'sandbox/app' },
});

/** A port whose ticket workflow has ended: signals find nothing, and each workflow id starts once. */
function endedPort(ended: EndedRun | undefined) {
  const started = new Map<string, EndedTicketReplyPlan>();
  const port = {
    signal: async () => 'not_found' as const,
    replyToEndedTicket: async (_key: string, plan: (run: EndedRun) => EndedTicketReplyPlan) => {
      if (!ended) return 'not_ended' as const;
      const planned = plan(ended);
      if (started.has(planned.workflow_id)) return 'already_answered' as const;
      started.set(planned.workflow_id, planned);
      return 'answered' as const;
    },
  } as unknown as TicketWorkflowsPort;
  return { port, started };
}

describe('a request on a ticket whose workflow has ended', () => {
  it('is answered once on the ticket, saying the workflow ended and what the person can do', async () => {
    const { port, started } = endedPort(ENDED);
    expect(await deliverTrackerObservation(port, comment('/service rebase'), {})).toMatchObject({ outcome: 'answered', reason_code: 'ended', ticket_key: 'SBX-1' });
    // The webhook and the poller deliver the same comment; the person writes it again the next day.
    expect(await deliverTrackerObservation(port, comment('/service rebase'), {})).toMatchObject({ outcome: 'answered', reason: expect.stringContaining('was answered before') });
    expect([...started.values()]).toHaveLength(1);
    const [plan] = [...started.values()];
    expect(plan!.input.operations).toEqual([{ kind: 'tracker.comment', issue_key: 'SBX-1', body: expect.stringContaining('`/service rebase` changed nothing: the service\'s workflow for SBX-1 has ended (it completed on 2026-12-01 09:30 UTC)') }]);
    expect((plan!.input.operations[0] as { body: string }).body).toContain('rebased and merged by hand');
  });

  it('answers a different request again, and a pull request comment on that pull request', async () => {
    const { port, started } = endedPort(ENDED);
    await deliverTrackerObservation(port, comment('? why is it closed'), {});
    const { ticket_key: _key, ...unrouted } = prComment('/service rebase');
    expect(await deliverSourceHostObservation(port, unrouted, { title: '[SBX-1] Dark mode' }, {})).toMatchObject({ outcome: 'answered' });
    const plans = [...started.values()];
    expect(plans.map((p) => p.workflow_id)).toEqual(['ended-ticket-reply-SBX-1-a-question-on-ticket', 'ended-ticket-reply-SBX-1-service-rebase-on-sandbox-app-4']);
    expect(plans[1]!.input.operations).toEqual([{ kind: 'scmhost.pr_comment', repository: 'sandbox/app', number: 4, body: expect.stringContaining('`/service rebase` changed nothing') }]);
  });

  it('takes a request label off again and says so', () => {
    const labelled: Observation = { ...comment(''), event: 'issue_updated', facts: { labels: ['service:managed', 'service:retry'], label_change: { added: ['service:retry'], removed: [] } } };
    const plan = endedTicketReplyPlan('SBX-1', labelled, { asked: 'service:retry', on: 'ticket', remove_labels: ['service:retry'] }, { status: 'TERMINATED', closed_at: null });
    expect(plan.input.operations[0]).toEqual({ kind: 'tracker.labels', issue_key: 'SBX-1', add: [], remove: ['service:retry'] });
    expect((plan.input.operations[1] as { body: string }).body).toMatch(/has ended \(an operator terminated it\).*\n\n.*\n\nThe label `service:retry` was taken off again\./s);
  });

  it('ignores conversation, and requests on a ticket that never had a workflow or still has one, as before', async () => {
    const { port, started } = endedPort(ENDED);
    expect(await deliverTrackerObservation(port, comment('thanks, looks good'), {})).toMatchObject({ outcome: 'ignored', reason_code: 'no_workflow' });
    const never = endedPort(undefined);
    expect(await deliverTrackerObservation(never.port, comment('/service approve'), {})).toMatchObject({ outcome: 'ignored', reason_code: 'no_workflow' });
    expect(started.size + never.started.size).toBe(0);
  });

  it('keeps what the person wrote from breaking out of its code span', () => {
    expect(endedTicketReplyText('SBX-1', { asked: '/service `x`', on: 'ticket', remove_labels: [] }, ENDED)).toMatch(/^ℹ️ `\/service 'x'` changed nothing/);
  });

  it('answers made-up /service words once in all, and quotes a long one cut short', async () => {
    const { port, started } = endedPort(ENDED);
    for (const word of ['frobnicate', 'xyz1', 'xyz2', 'x'.repeat(5000)]) {
      await deliverTrackerObservation(port, comment(`/service ${word}`), {});
    }
    expect([...started.keys()]).toEqual(['ended-ticket-reply-SBX-1-unknown-service-command-on-ticket']);
    const long = endedTicketReplyText('SBX-1', { asked: `/service ${'x'.repeat(5000)}`, on: 'ticket', remove_labels: [] }, ENDED);
    expect(long.length).toBeLessThan(600);
    // A known verb keeps its own answer.
    await deliverTrackerObservation(port, comment('/service approve'), {});
    expect(started.has('ended-ticket-reply-SBX-1-service-approve-on-ticket')).toBe(true);
  });
});
