import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTrackerClient, TrackerClient } from '../../../src/providers/tracker/tracker-client';
import { startTrackerSimulator, TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { startWebhookReceiver } from './webhook-receiver';

const SECRET = 'tracker-webhook-secret';

describe('tracker simulator webhooks', () => {
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let sim: TrackerSimulator;
  let client: TrackerClient;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    sim = await startTrackerSimulator({ projects: ['PROJ'], webhook: { url: `${receiver.url}/tracker`, secret: SECRET } });
    client = createTrackerClient({ baseUrl: sim.url, email: 'bot@example.com', apiToken: 'whatever-token' });
  });
  afterEach(async () => {
    await sim.close();
    await receiver.close();
  });

  it('signs every delivery with X-Hub-Signature: sha256=<HMAC of the raw body>', async () => {
    await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'Checkout', labels: ['service:managed'] });
    await sim.webhooks.flush();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const expected = createHmac('sha256', SECRET).update(delivery?.body ?? '').digest('hex');
    expect(delivery?.headers['x-hub-signature']).toBe(`sha256=${expected}`);
    expect(delivery?.headers['x-atlassian-webhook-identifier']).toBe(sim.webhooks.deliveries[0]?.id);
    expect(delivery?.json).toMatchObject({
      webhookEvent: 'jira:issue_created',
      issue_event_type_name: 'issue_created',
      user: { emailAddress: 'bot@example.com' },
      issue: { key: 'PROJ-1', fields: { summary: 'Checkout', labels: ['service:managed'], issuetype: { name: 'Feature' }, status: { name: 'To Do' }, project: { key: 'PROJ' } } },
    });
    expect(sim.webhooks.deliveries[0]?.status).toBe(200);
  });

  it('sends label changes with the changelog, transitions and comments, in order', async () => {
    const issue = sim.state.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'F', labels: ['service:managed'] });
    sim.state.updateLabels(issue.key, [{ add: 'service:prd-approved' }]);
    await client.transitionIssue(issue.key, 'In Progress');
    const comment = sim.state.addComment(issue.key, '/service approve');
    await sim.webhooks.flush();
    const bodies = receiver.received.map((r) => r.json);
    expect(bodies.map((b) => [b.webhookEvent, b.issue_event_type_name])).toEqual([
      ['jira:issue_created', 'issue_created'],
      ['jira:issue_updated', 'issue_updated'],
      ['jira:issue_updated', 'issue_generic'],
      // Jira's comment events carry no issue_event_type_name (and no user: the comment's author is who wrote it).
      ['comment_created', undefined],
    ]);
    expect(bodies[3]).not.toHaveProperty('user');
    expect(bodies[1]?.changelog).toMatchObject({
      id: issue.histories[0]?.id,
      items: [{ field: 'labels', fromString: 'service:managed', toString: 'service:managed service:prd-approved' }],
    });
    expect(bodies[2]?.changelog).toMatchObject({ items: [{ field: 'status', fromString: 'To Do', toString: 'In Progress' }] });
    // Each body's timestamp is its event's own time, as Jira sends it (the webhook changelog has no time of its own).
    expect(bodies.map((b) => b.timestamp)).toEqual([issue.created, ...issue.histories.map((h) => h.created), comment.created].map((at) => Date.parse(at)));
    expect(bodies[1]?.changelog).not.toHaveProperty('created');
    // Webhooks speak REST v2: the body is wiki markup, a string, where the REST v3 answers carry ADF.
    expect(bodies[3]?.comment).toMatchObject({
      id: comment.id,
      author: { accountId: comment.author.accountId, displayName: 'Pat Reviewer' },
      body: '/service approve',
    });
    // A creation carries its own changelog (every field it set, from nothing) under an id no other change has.
    expect(bodies[0]?.changelog).toMatchObject({ items: expect.arrayContaining([{ field: 'labels', fieldtype: 'jira', fieldId: 'labels', from: null, fromString: null, to: null, toString: 'service:managed' }]) });
    const changelogIds = [(bodies[0]?.changelog as { id: string }).id, ...issue.histories.map((h) => h.id)];
    expect(new Set(changelogIds).size).toBe(changelogIds.length);
  });

  it('sends no signature when the secret is empty, and can be pointed at another gateway', async () => {
    sim.webhooks.setTarget({ url: `${receiver.url}/other`, secret: '' });
    sim.state.createIssue({ projectKey: 'PROJ', issueType: 'Bug', summary: 'B' });
    await sim.webhooks.flush();
    expect(receiver.received[0]?.headers['x-hub-signature']).toBeUndefined();
    expect(sim.webhooks.deliveries[0]?.url).toBe(`${receiver.url}/other`);
  });

  it('records a delivery failure when the gateway is down instead of throwing', async () => {
    await receiver.close();
    sim.state.createIssue({ projectKey: 'PROJ', issueType: 'Bug', summary: 'B' });
    await sim.webhooks.flush();
    expect(sim.webhooks.deliveries[0]?.status).toBeUndefined();
    expect(sim.webhooks.deliveries[0]?.error).toBeTruthy();
  });
});
