import { describe, expect, it } from 'vitest';
import { createActorActivities } from '../../../activities/actor-activities';
import { allowedActors, allowedActorsWarning, decideActor } from '../../../src/config/allowed-actors';
import { actorIdsOf, commandLabelsOf, needsAllowedActor } from '../../../workflows/trusted-actors';
import type { Observation } from '../../../workflows/observation';

describe('allowed actors', () => {
  it('anyone counts when nothing is configured, and the worker warns about it', () => {
    expect(allowedActors({}, undefined, 'P')).toBeNull();
    expect(decideActor(null, [])).toMatchObject({ allowed: true });
    expect(allowedActorsWarning({})).toContain('SERVICE_ALLOWED_ACTORS is not set');
    expect(allowedActorsWarning({ SERVICE_ALLOWED_ACTORS: 'lead@example.com' })).toBeUndefined();
  });

  it('the project property wins over the environment; ids, e-mails and logins match case-insensitively; groups by name', () => {
    const env = { SERVICE_ALLOWED_ACTORS: 'lead@example.com, group:Leads' };
    const fromEnv = allowedActors(env, undefined, 'P')!;
    expect(fromEnv).toEqual({ ids: ['lead@example.com'], groups: ['leads'], source: 'environment' });
    expect(decideActor(fromEnv, ['acc-1', 'LEAD@example.com'])).toMatchObject({ allowed: true });
    expect(decideActor(fromEnv, ['acc-2', 'intern@example.com'], ['leads'])).toEqual({ allowed: true, reason: 'acc-2 is in the group leads, listed in SERVICE_ALLOWED_ACTORS' });
    expect(decideActor(fromEnv, ['acc-2', 'intern@example.com'], ['interns'])).toEqual({ allowed: false, reason: 'acc-2 is not listed in SERVICE_ALLOWED_ACTORS and is in none of its groups' });
    const fromProject = allowedActors(env, ['octo-reviewer'], 'P')!;
    expect(decideActor(fromProject, ['lead@example.com'])).toMatchObject({ allowed: false, reason: 'lead@example.com is not listed in the project property service.allowed_actors' });
    expect(decideActor(fromProject, [])).toMatchObject({ allowed: false, reason: expect.stringContaining('does not say who did it') });
    expect(() => allowedActors({}, 'everyone', 'P')).toThrow(/must be a JSON array of strings/);
  });

  it('the activity reads the property fresh, asks for groups only when listed, and fails closed on a bad property', async () => {
    let property: unknown = ['group:leads'];
    const asked: string[] = [];
    const { authorizeActor } = createActorActivities({
      env: {}, properties: { getProjectProperty: async () => property },
      groupsOf: async (id) => { asked.push(id); return id === 'acc-lead' ? ['Leads'] : []; },
    });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['acc-lead', 'lead@example.com'], action: 'approve' })).toMatchObject({ allowed: true });
    expect(asked).toEqual(['acc-lead']);
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['acc-x'], action: 'approve' })).toMatchObject({ allowed: false });
    property = { not: 'a list' };
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['acc-lead'], action: 'approve' })).toMatchObject({ allowed: false, reason: expect.stringContaining('must be a JSON array') });
  });

  it('approvals and switches need an allowed actor; conversation and provider facts do not', () => {
    expect(needsAllowedActor({ type: 'approve', gate: 'g', via: 'label' })).toBe(true);
    expect(needsAllowedActor({ type: 'stop', via: 'comment' })).toBe(true);
    expect(needsAllowedActor({ type: 'question', text: 'why' })).toBe(false);
    expect(needsAllowedActor({ type: 'pr_merged', pull_request: { number: 1 } })).toBe(false);
    const observation = {
      delivery_identity: 'i', source: 'webhook', source_system: 'tracker', event: 'issue_updated', resource: { kind: 'x', id: '1' }, revision: null,
      fingerprint: 'f', ticket_key: 'P-1', observed_at: null, received_at: 'now',
      facts: { actor_ids: ['acc-1', 'a@example.com'], label_change: { added: ['service:prd-approved', 'frontend'], removed: [] } },
    } satisfies Observation;
    expect(actorIdsOf(observation)).toEqual(['acc-1', 'a@example.com']);
    expect(commandLabelsOf(observation)).toEqual(['service:prd-approved']);
  });
});

describe('group entries without a group lookup', () => {
  it('fail closed with a reason that says groups cannot be checked', async () => {
    const { authorizeActor } = createActorActivities({ env: { SERVICE_ALLOWED_ACTORS: 'group:leads,lead@example.com' } });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['lead@example.com'], action: 'approve' })).toMatchObject({ allowed: true });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['acc-9'], action: 'approve' })).toMatchObject({ allowed: false, reason: expect.stringContaining('cannot be checked') });
  });
});
