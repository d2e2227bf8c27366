import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import { signHmacSha256 } from '../../../src/gateway/webhook-signature';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { loadServiceConfig } from '../../../src/config/service-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { NotFoundProviderError, RetryableProviderError } from '../../../src/providers/provider-errors';
import type { IssueKeyResolver } from '../../../src/ingress/tracker/comment-issue';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import type { Observation } from '../../../workflows/ledger/observation';
import { fixture, FIXTURES } from '../../helpers/fixtures';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The gateway's HTTP contract for genuine vendor deliveries, with a port that records what would be signalled.
// The same deliveries go through a real Temporal server in test/integration/ingress-delivery-patterns.test.ts.

type Json = Record<string, any>;
const SECRET = 'unit-scmhost-secret';
const TRACKER_SECRET = 'unit-tracker-secret';

let server: ListeningServer | undefined;
afterEach(async () => server?.close());

async function gateway(options: { issueKeys?: IssueKeyResolver } = {}) {
  const signalled: Observation[] = [];
  const workflows = {
    startOrSignal: async (_input: unknown, observation: Observation) => { signalled.push(observation); return { workflowId: `ticket-${observation.ticket_key}` }; },
    signal: async (_key: string, observation: Observation) => { signalled.push(observation); return 'signalled' as const; },
    findTicketByPullRequest: async () => undefined,
  } as unknown as TicketWorkflowsPort;
  const metrics = createServiceMetrics();
  const config = loadServiceConfig({ SCMHOST_WEBHOOK_SECRET: SECRET, TRACKER_WEBHOOK_SECRET: TRACKER_SECRET }).config!;
  const app = createGatewayApp({ config, workflows, metrics, logger: createLogger({ level: 'error', write: () => undefined }), issueKeys: options.issueKeys });
  server = await listen(createServer(app), '127.0.0.1', 0, 'test gateway');
  const url = server.url;
  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers, body });
    return { status: response.status, body: await response.json() as Json };
  };
  return {
    signalled,
    metrics: () => metrics.registry.metrics(),
    tracker: (payload: unknown) => {
      const body = JSON.stringify(payload);
      return post('/api/v1/webhooks/tracker', body, { 'content-type': 'application/json', 'x-hub-signature': signHmacSha256(body, TRACKER_SECRET) });
    },
    scmhost: (event: string, body: string, contentType: string) => post('/api/v1/webhooks/scmhost', body, {
      'content-type': contentType, 'x-github-event': event, 'x-hub-signature-256': signHmacSha256(body, SECRET),
    }),
  };
}

describe('tracker deliveries without an issue object', () => {
  it.each([
    ['jira-cloud-worklog-created.json', 'worklog_created'],
    ['jira-cloud-attachment-created.json', 'attachment_created'],
    ['jira-cloud-issuelink-created.json', 'issuelink_created'],
    ['jira-cloud-project-created.json', 'project_created'],
    ['jira-cloud-user-created.json', 'user_created'],
    ['jira-cloud-sprint-started.json', 'sprint_started'],
  ])('answers %s with 200 and a reason, and counts it', async (name, event) => {
    const gw = await gateway();
    expect(await gw.tracker(fixture(`tracker/${name}`))).toEqual({ status: 200, body: { ignored: `unsupported tracker event "${event}"` } });
    expect(gw.signalled).toEqual([]);
    expect(await gw.metrics()).toMatch(/service_webhooks_ignored_total\{source="tracker",reason="unsupported_event"\} 1/);
  });

  it('refuses an issue event without its issue: no Jira sends one', async () => {
    const gw = await gateway();
    const answer = await gw.tracker({ webhookEvent: 'jira:issue_updated', timestamp: 1 });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_payload', message: expect.stringContaining('issue') } } });
  });

  it('still refuses a body that is no tracker webhook at all', async () => {
    const gw = await gateway();
    expect((await gw.tracker({ hello: 'world' })).body).toMatchObject({ error: { code: 'invalid_payload' } });
  });

  it('looks up the issue of a Server/DC comment event once and signals its ticket', async () => {
    const asked: string[] = [];
    const gw = await gateway({ issueKeys: { keyOf: async (id) => { asked.push(id); return 'PROJ-42'; } } });
    const answer = await gw.tracker(fixture('tracker/jira-server-comment-created.json'));
    expect(answer).toEqual({ status: 200, body: { status: 'queued', ticket_key: 'PROJ-42', delivery_identity: 'tracker:comment:10300@2026-11-23T07:20:00.000Z' } });
    expect(asked).toEqual(['10042']);
    expect(gw.signalled[0]).toMatchObject({ ticket_key: 'PROJ-42', event: 'issue_commented', facts: { comment: { body: '? Which columns does the export include?' } } });
  });

  it('answers 200 when the issue is gone, 503 when the tracker cannot be asked, and says what to set without credentials', async () => {
    const gone = await gateway({ issueKeys: { keyOf: async () => { throw new NotFoundProviderError('no issue', { provider: 'tracker', operation: 'getIssue', method: 'GET', path: '/issue/10042', status: 404 }); } } });
    expect(await gone.tracker(fixture('tracker/jira-server-comment-created.json'))).toEqual({ status: 200, body: { ignored: 'comment on issue 10042, which the tracker does not know' } });
    await server?.close();
    const down = await gateway({ issueKeys: { keyOf: async () => { throw new RetryableProviderError('timeout', { provider: 'tracker', operation: 'getIssue', method: 'GET', path: '/issue/10042' }); } } });
    expect(await down.tracker(fixture('tracker/jira-server-comment-updated.json'))).toMatchObject({ status: 503, body: { error: { code: 'tracker_unavailable' } } });
    await server?.close();
    const unconfigured = await gateway();
    expect((await unconfigured.tracker(fixture('tracker/jira-server-comment-created.json'))).body.ignored).toContain('set TRACKER_BASE_URL, TRACKER_USER_EMAIL and TRACKER_API_TOKEN');
  });
});

describe('GitHub deliveries', () => {
  const form = readFileSync(join(FIXTURES, 'scmhost/issue-comment-created.form-urlencoded'), 'utf8');
  const titled = (body: string) => {
    const payload = JSON.parse(new URLSearchParams(body).get('payload')!) as Json;
    payload.issue.title = '[PROJ-42] Export invoices';
    payload.issue.pull_request = { url: 'https://api.github.com/repos/acme/api/pulls/1' };
    return payload;
  };

  it('takes a form-encoded delivery signed over its raw body, as it takes the JSON one', async () => {
    const gw = await gateway();
    const payload = titled(form);
    const encoded = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const asForm = await gw.scmhost('issue_comment', encoded, 'application/x-www-form-urlencoded');
    const asJson = await gw.scmhost('issue_comment', JSON.stringify(payload), 'application/json');
    expect(asForm).toMatchObject({ status: 200, body: { status: 'queued', ticket_key: 'PROJ-42', routed_by: 'title' } });
    expect(asJson.body).toEqual(asForm.body);
    expect(gw.signalled[0]!.delivery_identity).toBe(gw.signalled[1]!.delivery_identity);
  });

  it('refuses a form-encoded delivery signed over something else, and one without a payload field', async () => {
    const gw = await gateway();
    const encoded = new URLSearchParams({ payload: JSON.stringify(titled(form)) }).toString();
    const response = await fetch(`${server!.url}/api/v1/webhooks/scmhost`, {
      method: 'POST', body: encoded,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'issue_comment', 'x-hub-signature-256': signHmacSha256(decodeURIComponent(encoded), SECRET) },
    });
    expect(response.status).toBe(401);
    expect(await gw.scmhost('issue_comment', 'other=1', 'application/x-www-form-urlencoded')).toMatchObject({ status: 400, body: { error: { code: 'invalid_json', message: 'a form-encoded webhook needs a payload field holding the JSON' } } });
  });
});
