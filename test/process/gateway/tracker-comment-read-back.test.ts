import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { signHmacSha256 } from '../../../src/gateway/webhook-signature';
import { NotFoundProviderError, RetryableProviderError } from '../../../src/providers/provider-errors';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { collectTrackerObservations } from '../../../src/poller/tracker-poll';
import { markdownToAdf } from '../../../src/providers/tracker/adf/markdown-to-adf';
import type { AdfDocument } from '../../../src/providers/tracker/adf/adf-types';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import { applyObservation, emptyLedger } from '../../../workflows/ledger/observation-ledger';
import type { Observation } from '../../../workflows/ledger/observation';

// Issue 42 point 2, end to end: a comment made in the tracker simulator reaches the real gateway by its webhook and
// the real poller by REST v3; each must be one fact (`duplicate` the second time, never `conflict`). Where the wiki
// form lost something (a mention keeps only an account id), the gateway reads the comment back through REST.

const SECRET = 'read-back-tracker-secret';
const EMAIL = 'svc@example.com';
const TOKEN = 'read-back-token-0123456789';
const stops: Array<() => Promise<void>> = [];
afterEach(async () => { while (stops.length) await stops.pop()!(); });

async function world(options: { reader?: boolean; failWith?: Error } = {}) {
  const tracker: TrackerSimulator = await startTrackerSimulator({ projects: ['SBX'], credentials: { email: EMAIL, apiToken: TOKEN } });
  stops.push(() => tracker.close());
  const client = createTrackerClient({ baseUrl: tracker.url, email: EMAIL, apiToken: TOKEN, timeoutMs: 5_000, retry: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 1 } });
  const signalled: Observation[] = [];
  const signalledTo: string[] = [];
  const workflows = {
    startOrSignal: async (_input: unknown, observation: Observation) => { signalled.push(observation); return { workflowId: `ticket-${observation.ticket_key}` }; },
    signal: async (key: string, observation: Observation) => { signalled.push(observation); signalledTo.push(key); return 'signalled' as const; },
    findTicketByPullRequest: async () => undefined,
  } as unknown as TicketWorkflowsPort;
  const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: SECRET, SCMHOST_WEBHOOK_SECRET: 'unused-secret' }).config!;
  const comments = options.reader === false ? undefined : {
    adfBodyOf: async (key: string, id: string) => {
      if (options.failWith) throw options.failWith;
      return (await client.getComment(key, id)).bodyAdf;
    },
  };
  const issueLabels = options.reader === false ? undefined : { labelsOf: async (key: string) => (await client.getIssue(key)).labels };
  const app = createGatewayApp({ config, workflows, metrics: createServiceMetrics(), logger: createLogger({ level: 'error', write: () => undefined }), comments, issueLabels });
  const server: ListeningServer = await listen(createServer(app), '127.0.0.1', 0, 'read-back gateway');
  stops.push(() => server.close());
  tracker.webhooks.setTarget({ url: `${server.url}/api/v1/webhooks/tracker`, secret: SECRET });
  /** Sends a delivery of the simulator again with another comment body, signed, and answers the gateway's reply. */
  const resend = async (payload: unknown, body: string) => {
    const raw = JSON.stringify({ ...(payload as object), comment: { ...(payload as { comment: object }).comment, body } });
    const answer = await fetch(`${server.url}/api/v1/webhooks/tracker`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-hub-signature': signHmacSha256(raw, SECRET) } });
    return { status: answer.status, body: await answer.json() as { error?: { code: string; message: string }; ignored?: string } };
  };
  return { tracker, client, signalled, signalledTo, resend, deliveries: () => tracker.webhooks.deliveries };
}

function mentionComment(accountId: string, displayName: string, rest: string): AdfDocument {
  return { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [
    { type: 'mention', attrs: { id: accountId, text: `@${displayName}` } },
    { type: 'text', text: rest },
  ] }] };
}

describe('a comment seen by webhook and by poller', () => {
  it('is one fact for every command form, also where the wiki form lost a mention (read back through REST)', async () => {
    const w = await world();
    const issue = w.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'two ways', labels: ['service:managed'] });
    const bodies: Array<AdfDocument> = [
      markdownToAdf('/service approve'),
      markdownToAdf('! fewer epics, **please**'),
      markdownToAdf('? why _two_ epics\n\n- one\n- two'),
      markdownToAdf('I pick >option 2, see [the plan](https://example.com/p) and `npm test`'),
      mentionComment('5b10a2844c20165700ede21g', 'Dana Reviewer', ' please /service approve'),
    ];
    for (const body of bodies) w.tracker.state.addComment(issue.key, body);
    await w.tracker.webhooks.flush();

    const byWebhook = w.signalled.filter((o) => o.event === 'issue_commented');
    expect(byWebhook).toHaveLength(bodies.length);
    const byPoller = (await collectTrackerObservations(w.client, { lookbackSeconds: 600, now: new Date() })).filter((o) => o.event === 'issue_commented');
    expect(byPoller).toHaveLength(bodies.length);

    const ledger = emptyLedger();
    for (const observation of byWebhook) expect(applyObservation(ledger, observation).decision).toBe('accepted');
    for (const observation of byPoller) {
      const twin = byWebhook.find((o) => o.delivery_identity === observation.delivery_identity)!;
      expect(twin.facts.comment, observation.delivery_identity).toEqual(observation.facts.comment);
      expect(applyObservation(ledger, observation).decision, observation.delivery_identity).toBe('duplicate');
    }
    // The mention reads as the name it showed, as REST v3 answers it, not as the bare id of the wiki form.
    expect(JSON.stringify(byWebhook.at(-1)!.facts.comment)).toContain('@Dana Reviewer please /service approve');
  });

  it('without tracker credentials reads the wiki form as it is, and the mention is the account id', async () => {
    const w = await world({ reader: false });
    const issue = w.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'no reader', labels: ['service:managed'] });
    w.tracker.state.addComment(issue.key, mentionComment('5b10a2844c20165700ede21g', 'Dana Reviewer', ' please /service approve'));
    await w.tracker.webhooks.flush();
    const comment = w.signalled.find((o) => o.event === 'issue_commented');
    // Only meaningful once the simulator sends wiki markup, as Jira does: the body is then the wiki reading.
    expect(w.deliveries().some((d) => typeof (d.payload as { comment?: { body?: unknown } }).comment?.body === 'string')).toBe(true);
    expect(JSON.stringify(comment?.facts.comment)).toContain('@5b10a2844c20165700ede21g please /service approve');
  });

  it('answers 503 while the tracker cannot be asked for a comment that must be read back, and 200 once it is gone', async () => {
    for (const [failWith, status, answer] of [
      [new RetryableProviderError('connect ECONNREFUSED', { provider: 'tracker', operation: 'getComment', method: 'GET', path: '/issue/SBX-1/comment/1' }), 503, { error: { code: 'tracker_unavailable' } }],
      [new NotFoundProviderError('no comment', { provider: 'tracker', operation: 'getComment', method: 'GET', path: '/issue/SBX-1/comment/1', status: 404 }), 200, { ignored: expect.stringContaining('no longer exists') }],
    ] as const) {
      const w = await world({ failWith });
      const issue = w.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'down', labels: ['service:managed'] });
      w.tracker.state.addComment(issue.key, markdownToAdf('plain'));
      await w.tracker.webhooks.flush();
      const delivered = w.deliveries().find((d) => d.event === 'comment_created')!;
      const before = w.signalled.length;
      const reply = await w.resend(delivered.payload, '[~accountid:5b10a2844c20165700ede21g] please /service approve');
      expect(reply.status).toBe(status);
      expect(reply.body).toMatchObject(answer);
      expect(w.signalled.length).toBe(before);
    }
  });

  it('sends a comment on a provisioned child to the feature: the labels its event leaves out are read from the tracker', async () => {
    const w = await world();
    const feature = w.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'parent', labels: ['service:managed'] });
    const epic = w.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Epic', summary: 'child', labels: ['service:managed', `service:parent:${feature.key}`], parentKey: feature.key });
    w.tracker.state.addComment(epic.key, markdownToAdf('! 1: split it'));
    await w.tracker.webhooks.flush();
    const delivered = w.deliveries().find((d) => d.event === 'comment_created')!;
    // Jira's comment events carry six fields of the issue, labels not among them.
    expect((delivered.payload as { issue: { fields: Record<string, unknown> } }).issue.fields.labels).toBeUndefined();
    const comment = w.signalled.find((o) => o.event === 'issue_commented')!;
    expect(comment.ticket_key).toBe(epic.key);
    expect(w.signalledTo.at(-1)).toBe(feature.key);
  });
});
