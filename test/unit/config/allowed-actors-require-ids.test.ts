/**
 * Identities people can change. A GitHub login or a GitLab username can be renamed, and a freed one registered by
 * someone else; a Jira Server/Data Center user can change their own e-mail. With SERVICE_ALLOWED_ACTORS_REQUIRE_IDS
 * only ids that never change count (`tracker:<Cloud accountId>`, `github-id:<numeric id>`, `gitlab-id:<numeric id>`),
 * carried by the real webhook payloads through the normalisers.
 */
import { describe, expect, it } from 'vitest';
import { createActorActivities } from '../../../activities/actor-activities';
import { allowedActors, allowedActorsWarnings, readAllowedActorEntry } from '../../../src/config/allowed-actors';
import { normaliseGitLabEvent } from '../../../src/ingress/gitlab/normalise-gitlab-event';
import { gitlabHookSchema } from '../../../src/ingress/gitlab/gitlab-webhook-schema';
import { normaliseScmhostEvent } from '../../../src/ingress/scmhost/normalise-scmhost-event';
import { SCMHOST_EVENT_SCHEMAS } from '../../../src/ingress/scmhost/scmhost-webhook-schema';
import { actorIdsOf } from '../../../workflows/person-commands/trusted-actors';
import type { Observation } from '../../../workflows/ledger/observation';
import { fixture } from '../../helpers/fixtures';

type Json = Record<string, any>;
const CLOUD_ID = '712020:5b10ac8d-82e0-4b22-8c7d-4ef5a1b2c3d4';

/** A GitHub review by `login` whose account has the numeric `id`, as the webhook shows it. */
function githubReview(login: string, id: number): Observation {
  const payload = fixture<Json>('scmhost/pull-request-review-submitted.json');
  payload.review.state = 'approved';
  payload.review.user = { ...payload.review.user, login, id };
  payload.sender = { ...payload.sender, login, id };
  const result = normaliseScmhostEvent('pull_request_review', SCMHOST_EVENT_SCHEMAS.pull_request_review.parse(payload) as never);
  if (result.kind !== 'observation') throw new Error(JSON.stringify(result));
  return { ...result.observation, ticket_key: 'P-1' };
}

/** A GitLab note by `username` whose account has the numeric `id`. */
function gitlabNote(username: string, id: number): Observation {
  const hook = fixture<Json>('gitlab/note-on-merge-request.json');
  hook.user = { ...hook.user, username, id };
  hook.object_attributes.author_id = id;
  const result = normaliseGitLabEvent(gitlabHookSchema.parse(hook));
  if (result.kind !== 'observation') throw new Error(JSON.stringify(result));
  return { ...result.observation, ticket_key: 'P-1' };
}

const decide = (env: NodeJS.ProcessEnv, observation: Observation) =>
  createActorActivities({ env }).authorizeActor({ project_key: 'P', actor_ids: actorIdsOf(observation), action: 'review_approved' });

describe('the ingress carries the ids that never change', () => {
  it('a GitHub delivery names the sender\'s and the author\'s numeric ids; a GitLab one the user\'s', () => {
    expect(actorIdsOf(githubReview('alice', 1001))).toEqual(['github:alice', 'github-id:1001']);
    expect(actorIdsOf(gitlabNote('bob', 2002))).toEqual(['gitlab:bob', 'gitlab-id:2002']);
  });

  it('a source-host delivery never contributes ids of another system', () => {
    const forged = { ...githubReview('alice', 1001) };
    forged.facts = { ...forged.facts, actor_ids: ['gitlab-id:2002', 'tracker:x', 'github-id:1001'] };
    expect(actorIdsOf(forged)).toEqual(['github:alice', 'github-id:1001']);
  });
});

describe('SERVICE_ALLOWED_ACTORS_REQUIRE_IDS', () => {
  const byLogin = { SERVICE_ALLOWED_ACTORS: 'github:alice,gitlab:bob' };
  const byId = { SERVICE_ALLOWED_ACTORS: 'github-id:1001,gitlab-id:2002', SERVICE_ALLOWED_ACTORS_REQUIRE_IDS: 'true' };

  it('without it, a login someone re-registered after a rename approves: the weaker forms are weaker', async () => {
    expect(await decide(byLogin, githubReview('alice', 9999))).toMatchObject({ allowed: true });
    expect(await decide(byLogin, gitlabNote('bob', 8888))).toMatchObject({ allowed: true });
  });

  it('a renamed login (same id, another login) still approves', async () => {
    expect(await decide(byId, githubReview('alice-renamed', 1001))).toEqual({ allowed: true, reason: 'github-id:1001 is listed in SERVICE_ALLOWED_ACTORS' });
    expect(await decide(byId, gitlabNote('bob-renamed', 2002))).toEqual({ allowed: true, reason: 'gitlab-id:2002 is listed in SERVICE_ALLOWED_ACTORS' });
  });

  it('a re-registered login (same login, another id) does not', async () => {
    expect(await decide(byId, githubReview('alice', 9999))).toMatchObject({ allowed: false, reason: expect.stringMatching(/^github:alice is not listed in SERVICE_ALLOWED_ACTORS/) });
    expect(await decide(byId, gitlabNote('bob', 8888))).toMatchObject({ allowed: false });
  });

  it('entries of the weaker forms match nobody under it, and say so at startup and in the reason', async () => {
    const env = { SERVICE_ALLOWED_ACTORS: `github:alice,gitlab:bob,tracker-email:lead@example.com,lead2@example.com,tracker:jsmith,tracker:${CLOUD_ID},github-id:12x`, SERVICE_ALLOWED_ACTORS_REQUIRE_IDS: 'true' };
    expect(allowedActors(env, undefined, 'P')!.ids).toEqual([`tracker:${CLOUD_ID}`]);
    expect(await decide(env, githubReview('alice', 1001))).toMatchObject({ allowed: false, reason: expect.stringContaining('"github:alice" names a login that can be renamed and then registered by someone else') });
    const warnings = allowedActorsWarnings(env);
    expect(warnings).toEqual([
      expect.stringContaining('"github:alice" names a login that can be renamed and then registered by someone else, and SERVICE_ALLOWED_ACTORS_REQUIRE_IDS is set: write github-id:<numeric user id>'),
      expect.stringContaining('"gitlab:bob" names a username that can be renamed and then registered by someone else, and SERVICE_ALLOWED_ACTORS_REQUIRE_IDS is set: write gitlab-id:<numeric user id>'),
      expect.stringContaining('"tracker-email:lead@example.com" names an e-mail address, which a Jira Server/Data Center user can change, and SERVICE_ALLOWED_ACTORS_REQUIRE_IDS is set: write tracker:<accountId>'),
      expect.stringContaining('"lead2@example.com" names an e-mail address'),
      expect.stringContaining('"tracker:jsmith" is not a Jira Cloud account id (a Server/Data Center user name can be changed), and SERVICE_ALLOWED_ACTORS_REQUIRE_IDS is set'),
      expect.stringContaining('"github-id:12x" is not a numeric user id: write github-id:<numeric user id>'),
    ]);
    // A project's own list is read the same way.
    expect(allowedActors({ SERVICE_ALLOWED_ACTORS_REQUIRE_IDS: 'true' }, ['github:alice', 'gitlab-id:7'], 'P')).toMatchObject({ ids: ['gitlab-id:7'], notes: [expect.stringContaining('"github:alice"')] });
  });

  it('a tracker delivery still counts by its Cloud account id, never by its e-mail', async () => {
    const env = { SERVICE_ALLOWED_ACTORS: `tracker:${CLOUD_ID}`, SERVICE_ALLOWED_ACTORS_REQUIRE_IDS: 'true' };
    const { authorizeActor } = createActorActivities({ env });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker-email:lead@example.com', `tracker:${CLOUD_ID}`], action: 'approve' })).toMatchObject({ allowed: true });
    expect(await authorizeActor({ project_key: 'P', actor_ids: ['tracker-email:lead@example.com'], action: 'approve' })).toMatchObject({ allowed: false });
  });

  it('is read strictly: a value that is neither true nor false fails closed with a reason', async () => {
    const env = { SERVICE_ALLOWED_ACTORS: 'github:alice', SERVICE_ALLOWED_ACTORS_REQUIRE_IDS: 'maybe' };
    expect(await decide(env, githubReview('alice', 1001))).toEqual({ allowed: false, reason: 'SERVICE_ALLOWED_ACTORS_REQUIRE_IDS must be true or false, got "maybe"' });
    expect(allowedActorsWarnings(env)).toEqual(['SERVICE_ALLOWED_ACTORS_REQUIRE_IDS must be true or false, got "maybe"']);
    expect(readAllowedActorEntry('github-id:42')).toEqual({ kind: 'id', id: 'github-id:42' });
  });
});
