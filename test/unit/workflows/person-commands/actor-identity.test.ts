import { describe, expect, it } from 'vitest';
import { actorId, sourceHostActorId, systemOfActorId, trackerActorIdOf, trackerActorIds } from '../../../../workflows/person-commands/actor-identity';
import { actorIdsOf } from '../../../../workflows/person-commands/trusted-actors';
import type { Observation } from '../../../../workflows/ledger/observation';

const ACCOUNT_ID = '712020:5b10ac8d-82e0-4b22-8c7d-4ef5a1b2c3d4';

function observation(source_system: Observation['source_system'], facts: Observation['facts']): Observation {
  return {
    delivery_identity: 'd', source: 'webhook', source_system, event: source_system === 'tracker' ? 'issue_commented' : 'issue_comment',
    resource: { kind: 'comment', id: '1' }, revision: null, fingerprint: 'f', ticket_key: 'P-1', observed_at: null, received_at: 'now', facts,
  };
}

describe('actor identities carry their system', () => {
  it('tags a tracker user by field, e-mail first, and never uses the display name', () => {
    expect(trackerActorIds({ emailAddress: 'ada@example.com', accountId: ACCOUNT_ID, ...{ displayName: 'Ada' } })).toEqual(['tracker-email:ada@example.com', `tracker:${ACCOUNT_ID}`]);
    expect(trackerActorIds({ name: 'ada' })).toEqual(['tracker:ada']);
    expect(trackerActorIds({ displayName: 'service@example.com' } as { emailAddress?: string })).toEqual([]);
    expect(trackerActorIds(undefined)).toEqual([]);
  });

  it('always prefixes, so a value that looks tagged stays a value of its own system', () => {
    expect(actorId('github', 'tracker:x')).toBe('github:tracker:x');
    expect(sourceHostActorId('scmhost', 'octocat')).toBe('github:octocat');
    expect(sourceHostActorId('gitlab', 'octocat')).toBe('gitlab:octocat');
    expect(systemOfActorId(`tracker:${ACCOUNT_ID}`)).toBe('tracker');
    expect(systemOfActorId(ACCOUNT_ID)).toBeUndefined();
  });

  it('reads bare tracker ids of observations from before the tags by their shape', () => {
    expect(trackerActorIdOf('ada@example.com')).toBe('tracker-email:ada@example.com');
    expect(trackerActorIdOf(ACCOUNT_ID)).toBe(`tracker:${ACCOUNT_ID}`);
    expect(trackerActorIdOf(`tracker:${ACCOUNT_ID}`)).toBe(`tracker:${ACCOUNT_ID}`);
  });

  it('actorIdsOf: tracker ids from actor_ids only (the comment author label is not an identity)', () => {
    const tracker = observation('tracker', { actor_ids: [`tracker:${ACCOUNT_ID}`], comment: { id: '1', body: '/service approve', author: 'Ada Lovelace' } });
    expect(actorIdsOf(tracker)).toEqual([`tracker:${ACCOUNT_ID}`]);
    expect(actorIdsOf(observation('tracker', { comment: { id: '1', body: 'x', author: 'lead@example.com' } }))).toEqual([]);
  });

  it('actorIdsOf: source-host logins are tagged with the host that sent them', () => {
    const github = observation('scmhost', { comment: { id: '1', body: '/service rebase', author: ACCOUNT_ID }, sender: ACCOUNT_ID, actor_ids: [`tracker:${ACCOUNT_ID}`] });
    // A GitHub login equal to a tracker account id is a GitHub login; actor_ids a source host does not set are not read.
    expect(actorIdsOf(github)).toEqual([`github:${ACCOUNT_ID}`]);
    expect(actorIdsOf(observation('gitlab', { review: { id: '1', state: 'approved', body: '', author: 'ada' }, sender: 'ada' }))).toEqual(['gitlab:ada']);
  });
});
