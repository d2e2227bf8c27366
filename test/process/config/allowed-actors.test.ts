import { describe, expect, it } from 'vitest';
import { createActorActivities } from '../../../activities/actor-activities';
import { allowedActors, allowedActorsWarnings, decideActor, groupsUnreadable, readAllowedActorEntry } from '../../../src/config/allowed-actors';
import { NotFoundProviderError, RetryableProviderError, TerminalProviderError } from '../../../src/providers/provider-errors';
import { trackerGroupMembership } from '../../../src/providers/tracker/group-membership-cache';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { startTrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { actorIdsOf, commandLabelsOf, needsAllowedActor } from '../../../workflows/person-commands/trusted-actors';
import type { Observation } from '../../../workflows/ledger/observation';

const ACCOUNT_ID = '712020:5b10ac8d-82e0-4b22-8c7d-4ef5a1b2c3d4';

describe('allowed actors', () => {
  it('anyone counts when nothing is configured, and the worker warns about it', () => {
    expect(allowedActors({}, undefined, 'P')).toBeNull();
    expect(decideActor(null, [])).toMatchObject({ allowed: true });
    expect(allowedActorsWarnings({})).toEqual([expect.stringContaining('SERVICE_ALLOWED_ACTORS is not set')]);
    expect(allowedActorsWarnings({ SERVICE_ALLOWED_ACTORS: 'tracker-email:lead@example.com' })).toEqual([]);
  });

  it('the project property wins over the environment; ids match with their system, case-insensitively; groups by name', () => {
    const env = { SERVICE_ALLOWED_ACTORS: 'tracker-email:lead@example.com, group:Leads' };
    const fromEnv = allowedActors(env, undefined, 'P')!;
    expect(fromEnv).toEqual({ ids: ['tracker-email:lead@example.com'], groups: ['leads'], source: 'environment', notes: [], unprefixed: {} });
    expect(decideActor(fromEnv, ['tracker:acc-1', 'tracker-email:LEAD@example.com'])).toMatchObject({ allowed: true });
    expect(decideActor(fromEnv, ['tracker:acc-2', 'tracker-email:intern@example.com'], ['leads'])).toEqual({ allowed: true, reason: 'tracker:acc-2 is in the group leads, listed in SERVICE_ALLOWED_ACTORS' });
    expect(decideActor(fromEnv, ['tracker:acc-2', 'tracker-email:intern@example.com'], ['interns'])).toEqual({ allowed: false, reason: 'tracker:acc-2 is not listed in SERVICE_ALLOWED_ACTORS and is in none of its groups' });
    const fromProject = allowedActors(env, ['github:octo-reviewer'], 'P')!;
    expect(decideActor(fromProject, ['github:Octo-Reviewer'])).toMatchObject({ allowed: true, reason: 'github:octo-reviewer is listed in the project property service.allowed_actors' });
    expect(decideActor(fromProject, ['tracker-email:lead@example.com'])).toMatchObject({ allowed: false, reason: 'tracker-email:lead@example.com is not listed in the project property service.allowed_actors' });
    expect(decideActor(fromProject, [])).toMatchObject({ allowed: false, reason: expect.stringContaining('does not say who did it') });
    expect(() => allowedActors({}, 'everyone', 'P')).toThrow(/must be a JSON array of strings/);
  });

  it('a login on one system never matches an entry of another, even when the strings are equal', () => {
    const allowed = allowedActors({ SERVICE_ALLOWED_ACTORS: `tracker:${ACCOUNT_ID},github:alice` }, undefined, 'P')!;
    // A GitHub (or GitLab) user who registered the listed tracker account id as a login is not that tracker user.
    expect(decideActor(allowed, [`github:${ACCOUNT_ID}`])).toMatchObject({ allowed: false });
    expect(decideActor(allowed, [`gitlab:${ACCOUNT_ID}`])).toMatchObject({ allowed: false });
    expect(decideActor(allowed, [`tracker:${ACCOUNT_ID}`])).toMatchObject({ allowed: true });
    // And the listed GitHub login does not count on GitLab or in the tracker.
    expect(decideActor(allowed, ['gitlab:alice'])).toMatchObject({ allowed: false });
    expect(decideActor(allowed, ['tracker:alice'])).toMatchObject({ allowed: false });
    expect(decideActor(allowed, ['github:alice'])).toMatchObject({ allowed: true });
    // An id without its system (an old caller) matches nothing.
    expect(decideActor(allowed, ['alice'])).toMatchObject({ allowed: false });
  });

  it('reads unprefixed entries only where unambiguous (e-mails, Cloud account ids) and says how to write each', () => {
    expect(readAllowedActorEntry('Lead@Example.com')).toEqual({ kind: 'id', id: 'tracker-email:lead@example.com', note: expect.stringContaining('read as tracker-email:Lead@Example.com; write it so') });
    expect(readAllowedActorEntry(ACCOUNT_ID)).toMatchObject({ kind: 'id', id: `tracker:${ACCOUNT_ID}` });
    expect(readAllowedActorEntry('5b10ac8d82e05b22cc7d4ef5')).toMatchObject({ kind: 'id', id: 'tracker:5b10ac8d82e05b22cc7d4ef5' });
    expect(readAllowedActorEntry('octocat')).toEqual({ kind: 'unusable', note: '"octocat" has no system prefix and matches nobody (a login is a different person on each system): write tracker:octocat, github:octocat or gitlab:octocat' });
    expect(readAllowedActorEntry('Ada Lovelace')).toMatchObject({ kind: 'unusable', note: expect.stringContaining('looks like a display name, which never counts') });
    expect(readAllowedActorEntry('jira:abc')).toMatchObject({ kind: 'unusable', note: expect.stringContaining('unknown system "jira"') });
    expect(readAllowedActorEntry('github:')).toMatchObject({ kind: 'unusable', note: expect.stringContaining('names nobody') });
    expect(readAllowedActorEntry('tracker-email:not-an-address')).toMatchObject({ kind: 'unusable' });
    expect(readAllowedActorEntry('GitHub:Octocat')).toEqual({ kind: 'id', id: 'github:octocat' });
  });

  it('an unprefixed list keeps working for the tracker only, fails closed for logins, and every reason says how to rewrite it', () => {
    const env = { SERVICE_ALLOWED_ACTORS: 'lead@example.com,octocat' };
    const allowed = allowedActors(env, undefined, 'P')!;
    expect(allowed.ids).toEqual(['tracker-email:lead@example.com']);
    expect(decideActor(allowed, ['tracker-email:lead@example.com'])).toEqual({
      allowed: true,
      reason: 'tracker-email:lead@example.com is listed in SERVICE_ALLOWED_ACTORS (as "lead@example.com", without its system prefix: write tracker-email:lead@example.com)',
    });
    const refused = decideActor(allowed, ['github:octocat']);
    expect(refused).toMatchObject({ allowed: false });
    expect(refused.reason).toContain('github:octocat is not listed in SERVICE_ALLOWED_ACTORS; about its entries:');
    expect(refused.reason).toContain('write tracker:octocat, github:octocat or gitlab:octocat');
    expect(allowedActorsWarnings(env)).toEqual([
      expect.stringMatching(/^SERVICE_ALLOWED_ACTORS: "lead@example.com" has no system prefix and is read as tracker-email:lead@example.com/),
      expect.stringMatching(/^SERVICE_ALLOWED_ACTORS: "octocat" has no system prefix and matches nobody/),
    ]);
  });

  it('the activity reads the property fresh, asks for groups only when listed (by tracker account id), and fails closed on a bad property', async () => {
    let property: unknown = ['group:leads'];
    const asked: string[] = [];
    const { authorizeActor } = createActorActivities({
      env: {}, properties: { getProjectProperty: async () => property },
      groupsOf: async (id) => { asked.push(id); return id === 'acc-lead' ? ['Leads'] : []; },
    });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-lead', 'tracker-email:lead@example.com'], action: 'approve' })).toMatchObject({ allowed: true });
    expect(asked).toEqual(['acc-lead']);
    // A source-host login is never looked up as a tracker account.
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['github:acc-lead'], action: 'approve' })).toMatchObject({ allowed: false });
    expect(asked).toEqual(['acc-lead']);
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-x'], action: 'approve' })).toMatchObject({ allowed: false });
    property = { not: 'a list' };
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-lead'], action: 'approve' })).toMatchObject({ allowed: false, reason: expect.stringContaining('must be a JSON array') });
  });

  it('approvals and switches need an allowed actor; conversation and provider facts do not', () => {
    expect(needsAllowedActor({ type: 'approve', gate: 'g', via: 'label' })).toBe(true);
    expect(needsAllowedActor({ type: 'stop', via: 'comment' })).toBe(true);
    expect(needsAllowedActor({ type: 'question', text: 'why' })).toBe(false);
    expect(needsAllowedActor({ type: 'pr_merged', pull_request: { number: 1 } })).toBe(false);
    const observation = {
      delivery_identity: 'i', source: 'webhook', source_system: 'tracker', event: 'issue_updated', resource: { kind: 'x', id: '1' }, revision: null,
      fingerprint: 'f', ticket_key: 'P-1', observed_at: null, received_at: 'now',
      facts: { actor_ids: ['tracker:acc-1', 'tracker-email:a@example.com'], label_change: { added: ['service:prd-approved', 'frontend'], removed: [] } },
    } satisfies Observation;
    expect(actorIdsOf(observation)).toEqual(['tracker:acc-1', 'tracker-email:a@example.com']);
    expect(commandLabelsOf(observation)).toEqual(['service:prd-approved']);
  });
});

describe('group entries without a group lookup', () => {
  it('fail closed with a reason that says groups cannot be checked', async () => {
    const { authorizeActor } = createActorActivities({ env: { SERVICE_ALLOWED_ACTORS: 'group:leads,tracker-email:lead@example.com' } });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker-email:lead@example.com'], action: 'approve' })).toMatchObject({ allowed: true });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-9'], action: 'approve' })).toMatchObject({ allowed: false, reason: expect.stringMatching(/^tracker:acc-9 is not listed in SERVICE_ALLOWED_ACTORS; its group entries \(group:leads\) cannot be checked: this worker has no tracker client/) });
  });
});

describe('group entries looked up in the tracker', () => {
  const env = { SERVICE_ALLOWED_ACTORS: 'group:Leads,tracker-email:lead@example.com' };
  const down = () => new RetryableProviderError('unavailable', { provider: 'tracker', operation: 'getUserGroups', method: 'GET', path: '/rest/api/3/user/groups', status: 503 });

  it('asks only when no id entry matches, passing the listed groups, so a listed person counts while the tracker is down', async () => {
    const asked: Array<[string, readonly string[]]> = [];
    const { authorizeActor } = createActorActivities({ env, groupsOf: async (id, listed) => { asked.push([id, listed]); throw down(); } });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-1', 'tracker-email:lead@example.com'], action: 'approve' })).toMatchObject({ allowed: true });
    expect(asked).toEqual([]);
    await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-2'], action: 'approve' });
    expect(asked).toEqual([['acc-2', ['leads']]]);
  });

  it('a tracker that cannot be asked refuses with a reason the person sees, never as "not a member"', async () => {
    const { authorizeActor } = createActorActivities({ env, groupsOf: async () => { throw down(); } });
    const decision = await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-2'], action: 'approve' });
    expect(decision.allowed).toBe(false);
    expect(decision.reason).toContain('tracker:acc-2 is not listed by id in SERVICE_ALLOWED_ACTORS, and the tracker\'s group membership (for group:leads) could not be read: tracker GET /rest/api/3/user/groups status 503');
    expect(decision.reason).toMatch(/; the approval was not counted, try again$/);
    expect(decision.reason).not.toContain('none of its groups');
    // A permission the service account lacks is no answer either.
    const forbidden = createActorActivities({ env, groupsOf: async () => { throw new TerminalProviderError('forbidden', { provider: 'tracker', method: 'GET', path: '/rest/api/3/user/groups', status: 403 }); } });
    expect(await forbidden.authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-2'], action: 'yolo' })).toMatchObject({ allowed: false, reason: expect.stringMatching(/status 403.*the yolo command was not counted, try again$/) });
  });

  it('a tracker that does not answer in time refuses with the reason, before the activity itself would time out', async () => {
    const { authorizeActor } = createActorActivities({ env, groupsOf: () => new Promise<string[]>(() => undefined), groupLookupTimeoutMs: 20 });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker:acc-2'], action: 'approve' })).toEqual({
      allowed: false,
      reason: 'tracker:acc-2 is not listed by id in SERVICE_ALLOWED_ACTORS, and the tracker\'s group membership (for group:leads) could not be read: the tracker did not answer within 20 ms; the approval was not counted, try again',
    });
  });

  it('an account the tracker does not know is in no group: an answer, not a failure', async () => {
    const { authorizeActor } = createActorActivities({ env, groupsOf: async () => { throw new NotFoundProviderError('not found', { provider: 'tracker', method: 'GET', path: '/rest/api/3/user/groups', status: 404 }); } });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker:gone'], action: 'approve' })).toEqual({ allowed: false, reason: 'tracker:gone is not listed in SERVICE_ALLOWED_ACTORS and is in none of its groups' });
  });

  it('says that group entries count for tracker accounts when the delivery names none', async () => {
    const { authorizeActor } = createActorActivities({ env, groupsOf: async () => ['leads'] });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['github:octocat'], action: 'approve' })).toMatchObject({ allowed: false, reason: 'github:octocat is not listed in SERVICE_ALLOWED_ACTORS; its group entries (group:leads) count for tracker accounts only, and the delivery names none' });
  });

  it('the unreadable-groups reason is bounded and names what was not counted', () => {
    const allowed = allowedActors({}, ['group:leads', 'group:ops'], 'P')!;
    const decision = groupsUnreadable(allowed, ['tracker:acc-2'], 'x'.repeat(1_000), 'select_option');
    expect(decision.allowed).toBe(false);
    expect(decision.reason).toContain('in the project property service.allowed_actors, and the tracker\'s group membership (for group:leads, group:ops) could not be read');
    expect(decision.reason).toContain(`${'x'.repeat(300)}…; the approval was not counted, try again`);
    expect(decision.reason).not.toContain('x'.repeat(301));
  });

  it('against the tracker simulator: a person just added to the group counts at once, one just removed stops counting at once, and an outage refuses even a member read a moment ago', async () => {
    const sim = await startTrackerSimulator({ projects: ['P'] });
    try {
      const tracker = createTrackerClient({ baseUrl: sim.url, email: 'bot@example.com', apiToken: 'token-123456', timeoutMs: 2_000, retry: { initialDelayMs: 5 } });
      const { authorizeActor } = createActorActivities({ env: { SERVICE_ALLOWED_ACTORS: 'group:release-leads' }, groupsOf: trackerGroupMembership(tracker).groupsOf });
      const pat = sim.state.userForEmail('pat@example.com');
      const ask = () => authorizeActor({ project_key: 'P', actor_ids: [`tracker:${pat.accountId}`], action: 'approve' });
      expect(await ask()).toMatchObject({ allowed: false, reason: expect.stringContaining('is in none of its groups') });
      sim.state.setGroupMembers('release-leads', [pat.accountId]);
      expect(await ask()).toMatchObject({ allowed: true, reason: expect.stringContaining('is in the group release-leads') });
      // The member's approval just counted; now the tracker fails. What the worker read a moment ago does not
      // approve: the docs promise that an approval the tracker cannot confirm is refused (docs/security.md §5).
      sim.faults.enqueue({ match: { method: 'GET', path: /\/user\/groups$/ }, kind: 'status', status: 503, times: 10 });
      expect(await ask()).toMatchObject({ allowed: false, reason: expect.stringContaining('could not be read: tracker GET /rest/api/3/user/groups status 503') });
      // Someone never read before is refused the same way.
      const sam = sim.state.userForEmail('sam@example.com');
      const refused = await authorizeActor({ project_key: 'P', actor_ids: [`tracker:${sam.accountId}`], action: 'approve' });
      expect(refused).toMatchObject({ allowed: false, reason: expect.stringContaining('could not be read: tracker GET /rest/api/3/user/groups status 503') });
      // Someone removed from the group stops counting at once, not when a kept answer expires.
      sim.faults.clear();
      expect(await ask()).toMatchObject({ allowed: true });
      sim.state.setGroupMembers('release-leads', []);
      expect(await ask()).toMatchObject({ allowed: false, reason: expect.stringContaining('is in none of its groups') });
    } finally {
      await sim.close();
    }
  });
});
