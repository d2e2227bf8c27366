import { describe, expect, it, vi } from 'vitest';
import { learnTrackerAccountId, loopGuardOf, type LoopGuardOptions } from '../../../src/ingress/loop-guard';
import { planTrackerDelivery } from '../../../src/ingress/tracker/plan-tracker-delivery';
import type { Observation } from '../../../workflows/ledger/observation';

const ACCOUNT_ID = '712020:5b10ac8d82e05b22cc7d4ef5';

/** What Jira Cloud sends when the service account's profile keeps its e-mail private: the account id only. */
function fromAccountId(facts: Observation['facts'], event: Observation['event']): Observation {
  return {
    delivery_identity: 'tracker:x', source: 'webhook', source_system: 'tracker', event, resource: { kind: 'issue_changelog', id: '1' },
    revision: '9', fingerprint: 'f', ticket_key: 'PROJ-1', facts: { ...facts, actor_ids: [`tracker:${ACCOUNT_ID}`] }, observed_at: null, received_at: '2026-11-27T07:00:00.000Z',
  };
}

describe('the service account recognised by its tracker account id', () => {
  const ownComment = fromAccountId({ comment: { id: '5', body: 'The PRD is ready for review.', author: 'Service Bot' } }, 'issue_commented');
  const ownLabels = fromAccountId({ changed_fields: ['labels'], label_change: { added: ['service:blocked'], removed: [] } }, 'issue_updated');

  it('drops its comments and label changes once the id is learned, and not before', async () => {
    const guard: LoopGuardOptions = { botAccounts: ['tracker-email:service@example.com'] };
    expect(planTrackerDelivery(ownComment, guard)).toEqual({ action: 'signal' });
    expect(planTrackerDelivery(ownLabels, guard)).toEqual({ action: 'signal' });

    const learned = vi.fn();
    learnTrackerAccountId(guard, async () => ({ accountId: ACCOUNT_ID, emailAddress: 'service@example.com' }), { learned, failed: () => undefined });
    await vi.waitFor(() => expect(learned).toHaveBeenCalledWith(ACCOUNT_ID));
    expect(planTrackerDelivery(ownComment, guard)).toEqual({ action: 'ignore', code: 'own_comment', reason: 'comment written by the service account' });
    expect(planTrackerDelivery(ownLabels, guard)).toEqual({ action: 'ignore', code: 'own_change', reason: 'label change written by the service account' });
    expect(guard.botAccounts).toEqual(['tracker-email:service@example.com', `tracker:${ACCOUNT_ID}`]);
  });

  it('tries again while the tracker cannot be reached, and stops trying when told', async () => {
    vi.useFakeTimers();
    try {
      const guard: LoopGuardOptions = { botAccounts: ['tracker-email:service@example.com'] };
      const lookup = vi.fn()
        .mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:8080'))
        .mockResolvedValueOnce({ accountId: ACCOUNT_ID });
      const failed = vi.fn();
      learnTrackerAccountId(guard, lookup, { learned: () => undefined, failed }, 60_000);
      await vi.advanceTimersByTimeAsync(0);
      expect(failed).toHaveBeenCalledTimes(1);
      expect(guard.botAccounts).toEqual(['tracker-email:service@example.com']);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(lookup).toHaveBeenCalledTimes(2);
      expect(guard.botAccounts).toEqual(['tracker-email:service@example.com', `tracker:${ACCOUNT_ID}`]);

      const down = vi.fn().mockRejectedValue(new Error('503'));
      const handle = learnTrackerAccountId({ botAccounts: [] }, down, { learned: () => undefined, failed: () => undefined }, 60_000);
      await vi.advanceTimersByTimeAsync(0);
      handle.stop();
      await vi.advanceTimersByTimeAsync(180_000);
      expect(down).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the guard names the service on each system', () => {
  it('tags the tracker e-mail and the source-host login with their systems', () => {
    const guard = loopGuardOf({ tracker: { userEmail: 'service@example.com' }, scmhost: { botLogin: 'service-bot', knownRepos: [], draftRepos: [] } });
    expect(guard.botAccounts).toEqual(['tracker-email:service@example.com', 'github:service-bot', 'gitlab:service-bot']);
  });

  it('does not take a person for the service because their display name (the comment label) is the service account', () => {
    const guard: LoopGuardOptions = { botAccounts: ['tracker-email:service@example.com', `tracker:${ACCOUNT_ID}`] };
    const person = fromAccountId({ comment: { id: '6', body: '/service approve', author: 'service@example.com' } }, 'issue_commented');
    expect(planTrackerDelivery({ ...person, facts: { ...person.facts, actor_ids: ['tracker:5b10ac8d82e05b22cc7d4ef5'] } }, guard)).toEqual({ action: 'signal' });
  });
});
