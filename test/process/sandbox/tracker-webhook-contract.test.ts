/**
 * Contract: the tracker simulator's webhooks must read like Jira's. The fixtures under test/fixtures/tracker follow
 * Jira Cloud's documented payloads; every field the gateway uses must sit at the same path with the same JSON type in
 * the simulator's payload of the same event, and both must normalise to the same kind of observation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseTrackerEvent } from '../../../src/ingress/tracker/normalise-tracker-event';
import { trackerWebhookSchema } from '../../../src/ingress/tracker/tracker-webhook-schema';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { verifyHmacSha256 } from '../../../src/gateway/webhook-signature';
import { fixture } from '../../helpers/fixtures';
import { startWebhookReceiver } from './webhook-receiver';

const USED_PATHS = [
  'webhookEvent', 'timestamp', 'issue.id', 'issue.key', 'issue.fields.summary', 'issue.fields.labels', 'issue.fields.issuetype.name',
  'issue.fields.status.name', 'issue.fields.project.key', 'issue.fields.created', 'issue.fields.updated',
  'changelog.id', 'changelog.items', 'comment.id', 'comment.body', 'comment.author.accountId', 'comment.created', 'comment.updated',
];

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), value);
}
const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

describe('tracker simulator webhooks against Jira-shaped fixtures', () => {
  let simulator: TrackerSimulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const secret = 'contract-secret';

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    simulator = await startTrackerSimulator({ projects: ['PROJ'], webhook: { url: receiver.url, secret } });
    const issue = simulator.state.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'Export', labels: ['service:managed', 'service:prd-pending'] });
    simulator.state.updateLabels(issue.key, [{ add: 'service:prd-approved' }, { remove: 'service:prd-pending' }]);
    simulator.state.addComment(issue.key, '? which columns');
    await simulator.webhooks.flush();
  });
  afterAll(async () => {
    await simulator?.close();
    await receiver?.close();
  });

  it.each([
    ['jira-issue-created.json', 'jira:issue_created', 'issue_created'],
    ['jira-issue-updated-labels.json', 'jira:issue_updated', 'issue_updated'],
    ['jira-comment-created.json', 'comment_created', 'issue_commented'],
  ])('%s: same paths and types for every used field, same normalised event', (file, webhookEvent, event) => {
    const real = fixture(`tracker/${file}`);
    const delivered = receiver.received.find((r) => r.json.webhookEvent === webhookEvent);
    expect(delivered, `the simulator sent ${webhookEvent}`).toBeDefined();
    expect(verifyHmacSha256(Buffer.from(delivered!.body), String(delivered!.headers['x-hub-signature']), secret)).toEqual({ ok: true });
    for (const path of USED_PATHS) {
      const expected = at(real, path);
      if (expected === undefined) continue;
      expect(typeOf(at(delivered!.json, path)), path).toBe(typeOf(expected));
    }
    const fromSimulator = normaliseTrackerEvent(trackerWebhookSchema.parse(delivered!.json));
    const fromFixture = normaliseTrackerEvent(trackerWebhookSchema.parse(real));
    expect(fromSimulator.kind === 'observation' && fromSimulator.event).toBe(event);
    expect(fromFixture.kind === 'observation' && fromFixture.event).toBe(event);
    const pattern = (o: typeof fromSimulator) => (o.kind === 'observation' ? o.observation.delivery_identity.replace(/[0-9T:.Z-]+/g, '#') : '');
    expect(pattern(fromSimulator)).toBe(pattern(fromFixture));
  });

  it('reports the label change of the simulator the way the fixture does', () => {
    const delivered = receiver.received.find((r) => r.json.webhookEvent === 'jira:issue_updated')!;
    const result = normaliseTrackerEvent(trackerWebhookSchema.parse(delivered.json));
    expect(result.kind === 'observation' && result.observation.facts.label_change).toEqual({ added: ['service:prd-approved'], removed: ['service:prd-pending'] });
  });
});
