/**
 * The gateway's reading of REAL Jira Cloud deliveries (test/fixtures/vendor-deliveries/jira) and of the simulator's
 * bodies of the same shape: comment events with no `user` and no `issue_event_type_name`, and creations that carry a
 * changelog of their own.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseTrackerEvent } from '../../../../src/ingress/tracker/normalise-tracker-event';
import { planTrackerDelivery } from '../../../../src/ingress/tracker/plan-tracker-delivery';
import { trackerWebhookSchema } from '../../../../src/ingress/tracker/tracker-webhook-schema';
import { startTrackerSimulator, type TrackerSimulator } from '../../../../src/sandbox/tracker-simulator/tracker-simulator';
import { fixture, FIXTURES } from '../../../helpers/fixtures';
import { startWebhookReceiver } from '../../sandbox/webhook-receiver';

const receivedAt = new Date('2026-11-23T08:00:00.000Z');
const CORPUS = 'vendor-deliveries/jira';
const deliveries = readdirSync(join(FIXTURES, CORPUS)).filter((name) => name.endsWith('.json')).sort();

function normalise(body: unknown) {
  const result = normaliseTrackerEvent(trackerWebhookSchema.parse(body), { receivedAt });
  if (result.kind !== 'observation') throw new Error(`expected an observation, got ${JSON.stringify(result)}`);
  return result;
}

describe('real Jira Cloud deliveries at the gateway', () => {
  it.each(deliveries)('%s is accepted and read as one fact of its event', (name) => {
    const body = fixture<Record<string, any>>(`${CORPUS}/${name}`);
    const result = normalise(body);
    const expected = name.startsWith('comment_') ? 'issue_commented' : name.startsWith('issue_created') ? 'issue_created' : 'issue_updated';
    expect(result.event).toBe(expected);
    expect(result.observations).toEqual([result.observation]);
    expect(result.observation.ticket_key).toBe(body.issue.key);
  });

  it('reads a comment event without user or event type: the wiki text read (Jira\'s escapes consumed), the author from the comment, keyed by update time', () => {
    const body = fixture<Record<string, any>>(`${CORPUS}/comment_updated-1.json`);
    expect(body).not.toHaveProperty('user');
    expect(body).not.toHaveProperty('issue_event_type_name');
    const { observation } = normalise(body);
    expect(observation).toMatchObject({
      event: 'issue_commented',
      delivery_identity: 'tracker:comment:10000@2019-08-16T14:01:43.489Z',
      facts: { issue_type: 'Task', status: 'To Do', comment: { id: '10000', body: 'This is a very important issue! I’m on it!' } },
    });
    expect(observation.facts.actor_ids).toContain('tracker:5c76b994e1bcdf6294d0eb0f');
    // Jira's comment events carry no labels: the observation says nothing about them rather than "none".
    expect(observation.facts.labels).toBeUndefined();
  });

  it('reads a creation by its issue, not by the changelog it carries: one fact, no label change, no changelog identity', () => {
    for (const name of deliveries.filter((each) => each.startsWith('issue_created'))) {
      const body = fixture<Record<string, any>>(`${CORPUS}/${name}`);
      expect(body.changelog.items.length, name).toBeGreaterThan(0);
      const { observation, observations } = normalise(body);
      expect(observations.map((o) => o.delivery_identity)).toEqual([`tracker:issue:${body.issue.id}:created`]);
      expect(observation.facts.label_change).toBeUndefined();
    }
  });
});

describe('the simulator\'s creation of a managed ticket at the gateway', () => {
  let simulator: TrackerSimulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    simulator = await startTrackerSimulator({ projects: ['PROJ'], webhook: { url: receiver.url, secret: 's' } });
    const issue = simulator.state.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'Export', labels: ['service:managed', 'service:prd-approved'] });
    simulator.state.addComment(issue.key, '/service approve');
    await simulator.webhooks.flush();
  });
  afterAll(async () => {
    await simulator?.close();
    await receiver?.close();
  });

  it('starts the workflow once; the labels the creation\'s changelog lists do not come in again as a label change', () => {
    const created = receiver.received.find((r) => r.json.webhookEvent === 'jira:issue_created')!.json as Record<string, any>;
    expect(created.changelog.items).toContainEqual(expect.objectContaining({ field: 'labels', toString: 'service:managed service:prd-approved' }));
    const { observations } = normalise(created);
    // The poller reads the REST changelog, which does not list a creation: a fact taken from the creation's
    // changelog would reach the ledger from webhooks only, and would add service:managed a second time.
    expect(observations).toHaveLength(1);
    expect(observations[0]).toMatchObject({ event: 'issue_created', facts: { labels: ['service:managed', 'service:prd-approved'] } });
    expect(observations[0]!.facts.label_change).toBeUndefined();
    expect(observations.map((o) => planTrackerDelivery(o))).toEqual([{ action: 'start', workflow_kind: 'feature' }]);
  });

  it('reads its comment (no user, no event type, a wiki-markup body) as the command it is, by its author', () => {
    const commented = receiver.received.find((r) => r.json.webhookEvent === 'comment_created')!.json as Record<string, any>;
    expect(commented).not.toHaveProperty('user');
    expect(commented).not.toHaveProperty('issue_event_type_name');
    const { observation, observations } = normalise(commented);
    expect(observations).toHaveLength(1);
    expect(observation).toMatchObject({ event: 'issue_commented', facts: { comment: { body: '/service approve', author: 'pat@example.com' } } });
    expect(observation.facts.actor_ids).toEqual(['tracker-email:pat@example.com', 'tracker:5b10ac8d82e05b22cc7d4ef5']);
  });
});
