import { describe, expect, it } from 'vitest';
import { planTrackerDelivery } from '../../../../src/ingress/tracker/plan-tracker-delivery';
import type { Observation } from '../../../../workflows/ledger/observation';

function observation(overrides: Partial<Observation>): Observation {
  return {
    delivery_identity: 'tracker:x', source: 'webhook', source_system: 'tracker', event: 'issue_created',
    resource: { kind: 'issue', id: '1' }, revision: null, fingerprint: 'f', ticket_key: 'PROJ-1', facts: {}, observed_at: null,
    received_at: '2026-11-23T08:00:00.000Z', ...overrides,
  };
}

describe('planTrackerDelivery', () => {
  it('starts a workflow for a managed issue_created, by issue type', () => {
    expect(planTrackerDelivery(observation({ facts: { labels: ['service:managed'], issue_type: 'Bug' } })))
      .toEqual({ action: 'start', workflow_kind: 'bug' });
  });

  it('ignores an unmanaged issue_created', () => {
    expect(planTrackerDelivery(observation({ facts: { labels: ['other'] } }))).toMatchObject({ action: 'ignore', code: 'not_managed' });
  });

  it('starts a workflow when an update adds service:managed', () => {
    const plan = planTrackerDelivery(observation({
      event: 'issue_updated',
      facts: { issue_type: 'Story', labels: ['service:managed'], label_change: { added: ['service:managed'], removed: [] } },
    }));
    expect(plan).toEqual({ action: 'start', workflow_kind: 'feature' });
  });

  it('only signals for other updates and comments', () => {
    expect(planTrackerDelivery(observation({ event: 'issue_updated', facts: { label_change: { added: ['service:retry'], removed: [] } } })))
      .toEqual({ action: 'signal' });
    expect(planTrackerDelivery(observation({ event: 'issue_commented', facts: { comment: { id: '1', body: '?', author: 'a@b.c' } } })))
      .toEqual({ action: 'signal' });
  });

  it('drops comments written by the service account or with the bot prefix', () => {
    const own = observation({ event: 'issue_commented', facts: { comment: { id: '1', body: 'PRD attached', author: 'Bot@Example.com' }, actor_ids: ['tracker-email:Bot@Example.com'] } });
    expect(planTrackerDelivery(own, { botAccounts: ['tracker-email:bot@example.com'] })).toMatchObject({ action: 'ignore', code: 'own_comment' });
    // The author label alone (what a display name used to fill in) is not an identity.
    const labelled = observation({ event: 'issue_commented', facts: { comment: { id: '3', body: 'PRD attached', author: 'bot@example.com' } } });
    expect(planTrackerDelivery(labelled, { botAccounts: ['tracker-email:bot@example.com'] }).action).toBe('signal');
    const prefixed = observation({ event: 'issue_commented', facts: { comment: { id: '2', body: '  [svc] done', author: 'x@y.z' } } });
    expect(planTrackerDelivery(prefixed, { botCommentPrefix: '[svc]' })).toMatchObject({ action: 'ignore', code: 'own_comment' });
  });
});

describe("the service's own label changes coming back", () => {
  const guard = { botAccounts: ['tracker-email:service@example.com'] };
  const update = (facts: Observation['facts']) => observation({ event: 'issue_updated', resource: { kind: 'issue_changelog', id: '1' }, facts });
  const byService = { changed_fields: ['labels'], actor_ids: ['tracker-email:Service@Example.com', 'tracker:712020:abc'] };

  it('are dropped when the service account changed nothing but service: labels', () => {
    expect(planTrackerDelivery(update({ ...byService, label_change: { added: ['service:blocked'], removed: ['service:prd-pending'] } }), guard))
      .toEqual({ action: 'ignore', code: 'own_change', reason: 'label change written by the service account' });
    expect(planTrackerDelivery(update({ ...byService, label_change: { added: [], removed: ['service:retry'] } }), guard)).toMatchObject({ action: 'ignore', code: 'own_change' });
  });

  it('reach the workflow when a person made them, or they touch more than service: labels', () => {
    const person = { changed_fields: ['labels'], actor_ids: ['tracker-email:dev@example.com'] };
    expect(planTrackerDelivery(update({ ...person, label_change: { added: ['service:retry'], removed: [] } }), guard)).toEqual({ action: 'signal' });
    expect(planTrackerDelivery(update({ ...byService, label_change: { added: ['service:blocked', 'backend'], removed: [] } }), guard)).toEqual({ action: 'signal' });
    expect(planTrackerDelivery(update({ ...byService, changed_fields: ['labels', 'status'], label_change: { added: ['service:blocked'], removed: [] } }), guard)).toEqual({ action: 'signal' });
    expect(planTrackerDelivery(update({ ...byService, changed_fields: ['summary'] }), guard)).toEqual({ action: 'signal' });
    // No service account configured: nothing can be recognised as its own.
    expect(planTrackerDelivery(update({ ...byService, label_change: { added: ['service:blocked'], removed: [] } }))).toEqual({ action: 'signal' });
  });

  it('still start a ticket when the service account adds service:managed', () => {
    expect(planTrackerDelivery(update({ ...byService, issue_type: 'Bug', label_change: { added: ['service:managed'], removed: [] } }), guard))
      .toEqual({ action: 'start', workflow_kind: 'bug' });
  });
});
