import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { fixture, FIXTURES } from '../helpers/fixtures';
import { pollNow } from '../helpers/poller';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson, postWebhook, type PostResult } from '../helpers/webhooks';

/**
 * Issue 11: real delivery patterns (out of order, redelivered, issue-less, form-encoded) through the real gateway, a
 * real worker and a real Temporal dev server. Payloads are the vendors' documented shapes from test/fixtures/, or
 * the tracker simulator's own webhooks replayed in another order.
 */

const TRACKER_SECRET = 'patterns-tracker-secret';
const SCMHOST_SECRET = 'patterns-scmhost-secret';
const TOKEN = 'patterns-operator-token';
const TASK_QUEUE = 'it-delivery-patterns';
/** When the tracker fixtures' tickets were created; their comments and changes follow within the hour. */
const FIXTURES_WRITTEN = '2026-11-23T07:00:00.000+0000';

type Json = Record<string, any>;

describe('ingress under real delivery patterns', () => {
  let world: World;
  let sim: TrackerSimulator;
  let stack: ServiceStack;
  let client: Client;

  beforeAll(async () => {
    // No webhook target: the simulator records its webhooks, and the tests deliver them in the order they choose.
    world = await startWorld({
      name: 'delivery-patterns',
      tracker: { projects: ['DLV'], repos: ['acme/api'], webhooks: false },
      operatorToken: TOKEN,
      env: {
        SERVICE_TASK_QUEUE: TASK_QUEUE,
        TRACKER_WEBHOOK_SECRET: TRACKER_SECRET,
        SCMHOST_WEBHOOK_SECRET: SCMHOST_SECRET,
        // Polls only when a test triggers the schedule.
        SERVICE_POLL_INTERVAL_SECONDS: '3600',
      },
    });
    ({ tracker: sim, stack, client } = world);
  });

  afterAll(async () => {
    expect(await stack?.stop()).toEqual([0, 0]);
    await world?.close();
  });

  const tracker = (payload: unknown): Promise<PostResult> => postWebhook(`${stack.api}/api/v1/webhooks/tracker`, payload, { secret: TRACKER_SECRET });

  async function timeline(key: string, kind: string, atLeast: number): Promise<Json[]> {
    return eventually(async () => {
      const page = await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN);
      const found = page.status === 200 ? (page.body.entries as Json[]).filter((e) => e.kind === kind) : [];
      return found.length >= atLeast ? found : undefined;
    }, 60_000, `${atLeast} ${kind} entries on ${key}`);
  }
  const decisions = (key: string, atLeast: number) => timeline(key, 'observation_decision', atLeast);
  const commandFor = async (key: string, identity: string) =>
    eventually(async () => (await timeline(key, 'command_decision', 1)).find((e) => e.details.delivery_identity === identity), 60_000, `the command decision on ${identity}`);

  /** The simulator's webhooks for one issue, as Jira would have sent them. */
  const webhooksOf = (key: string): Json[] => sim.webhooks.deliveries.map((d) => d.payload as Json).filter((p) => p.issue?.key === key);

  /**
   * A managed ticket in the simulator, started through its issue_created webhook. `createdAt` delivers the creation as
   * of another time: the vendor fixtures moved onto a ticket were written on 2026-11-23, and only what is written after
   * the service took a ticket commands it (a ticket delivered so is never polled: the poller would read today's time).
   */
  async function managedTicket(summary: string, createdAt?: string): Promise<{ key: string; id: string }> {
    const issue = sim.state.createIssue({ projectKey: 'DLV', issueType: 'Story', summary, labels: ['service:managed'] });
    const created = webhooksOf(issue.key).find((p) => p.webhookEvent === 'jira:issue_created')!;
    if (createdAt) created.issue.fields.created = createdAt;
    expect(await tracker(created)).toMatchObject({ status: 200, body: { status: 'queued', ticket_key: issue.key } });
    await decisions(issue.key, 1);
    return { key: issue.key, id: issue.id };
  }

  /** A vendor fixture moved onto one of the simulator's issues. */
  function onIssue(name: string, issue: { key: string; id: string }): Json {
    const payload = fixture<Json>(`tracker/${name}`);
    if (payload.issue) Object.assign(payload.issue, { key: issue.key, id: issue.id });
    if (payload.comment?.self) payload.comment.self = payload.comment.self.replace(/\/issue\/[^/]+\//, `/issue/${issue.id}/`);
    return payload;
  }

  const poll = () => pollNow(client, TASK_QUEUE);

  it('1. accepts a labels change that arrives after a later edit of the summary, decides its command, and the poller only finds duplicates', async () => {
    const ticket = await managedTicket('Late approval');
    sim.state.updateLabels(ticket.key, [{ add: 'service:prd-approved' }]);
    sim.state.editFields(ticket.key, { summary: 'Late approval (renamed)' });
    const [labels, summary] = webhooksOf(ticket.key).filter((p) => p.webhookEvent === 'jira:issue_updated');
    expect(Number(summary!.changelog.id)).toBeGreaterThan(Number(labels!.changelog.id));

    expect((await tracker(summary)).body).toMatchObject({ status: 'queued' });
    expect((await tracker(labels)).body).toMatchObject({ status: 'queued' });
    const found = await decisions(ticket.key, 3);
    expect(found.map((e) => [e.details.delivery_identity, e.status])).toEqual([
      [`tracker:issue:${ticket.id}:created`, 'accepted'],
      [`tracker:changelog:${summary!.changelog.id}`, 'accepted'],
      [`tracker:changelog:${labels!.changelog.id}`, 'accepted'],
    ]);
    expect(found[2]!.details.facts.label_change).toEqual({ added: ['service:prd-approved'], removed: [] });
    // The approval reached the command boundary (what it means depends on where the ticket is).
    await commandFor(ticket.key, `tracker:changelog:${labels!.changelog.id}`);

    // An older change that a later accepted change of the same labels withdrew is stale, and says why.
    const withdrawn = structuredClone(labels!);
    withdrawn.changelog.id = String(Number(labels!.changelog.id) - 1);
    withdrawn.changelog.items = [{ field: 'labels', fieldtype: 'jira', fromString: 'service:managed service:prd-approved', toString: 'service:managed' }];
    expect((await tracker(withdrawn)).status).toBe(200);
    const stale = (await decisions(ticket.key, 4))[3]!;
    expect(stale).toMatchObject({ status: 'stale', details: { reason: `every change of changelog ${withdrawn.changelog.id} on issue ${ticket.id} was superseded: -service:prd-approved by the addition at revision ${labels!.changelog.id}` } });

    // The poller rebuilds the same identities: each fact it finds again is a duplicate, none lost, none twice.
    await poll();
    const identities = found.map((e) => e.details.delivery_identity as string);
    const polled = await eventually(async () => {
      const entries = (await decisions(ticket.key, 4)).filter((e) => e.details.source === 'poller' && identities.includes(e.details.delivery_identity));
      return entries.length >= identities.length ? entries : undefined;
    }, 60_000, 'the poller\'s re-deliveries');
    expect(polled.map((e) => e.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
  });

  it('2. accepts a comment\'s creation that arrives after its edit, commands once, and calls a redelivery a duplicate', async () => {
    const ticket = await managedTicket('Edited first', FIXTURES_WRITTEN);
    const edit = onIssue('jira-cloud-comment-updated.json', ticket);
    const creation = onIssue('jira-cloud-comment-updated.json', ticket);
    creation.webhookEvent = 'comment_created';
    creation.comment.updated = creation.comment.created;
    creation.comment.body = '/service approve';

    expect((await tracker(edit)).body).toMatchObject({ status: 'queued', delivery_identity: 'tracker:comment:10101@2026-11-23T07:15:00.000Z' });
    expect((await tracker(creation)).body).toMatchObject({ status: 'queued', delivery_identity: 'tracker:comment:10101@2026-11-23T07:12:00.000Z' });
    expect((await tracker(creation)).body).toMatchObject({ status: 'queued' });
    const found = await decisions(ticket.key, 4);
    expect(found.slice(1).map((e) => [e.details.delivery_identity, e.status])).toEqual([
      ['tracker:comment:10101@2026-11-23T07:15:00.000Z', 'accepted'],
      ['tracker:comment:10101@2026-11-23T07:12:00.000Z', 'accepted'],
      ['tracker:comment:10101@2026-11-23T07:12:00.000Z', 'duplicate'],
    ]);
    expect(await commandFor(ticket.key, 'tracker:comment:10101@2026-11-23T07:15:00.000Z')).toMatchObject({ details: { reason: expect.stringContaining('edited comment') } });
    const command = await commandFor(ticket.key, 'tracker:comment:10101@2026-11-23T07:12:00.000Z');
    expect(command.details.reason ?? '').not.toContain('edited comment');
    expect((await timeline(ticket.key, 'command_decision', 1)).filter((e) => e.details.delivery_identity === 'tracker:comment:10101@2026-11-23T07:12:00.000Z')).toHaveLength(1);
  });

  it('3. resolves a Server/DC comment event through the tracker, and answers issue-less Cloud events 200', async () => {
    const ticket = await managedTicket('Server comments');
    const comment = onIssue('jira-server-comment-created.json', ticket);
    expect(comment.issue).toBeUndefined();
    expect(await tracker(comment)).toEqual({ status: 200, body: { status: 'queued', ticket_key: ticket.key, delivery_identity: 'tracker:comment:10300@2026-11-23T07:20:00.000Z' } });
    const edit = onIssue('jira-server-comment-updated.json', ticket);
    expect((await tracker(edit)).body).toMatchObject({ status: 'queued', ticket_key: ticket.key });
    const found = await decisions(ticket.key, 3);
    expect(found.slice(1).map((e) => [e.details.event, e.status, e.details.facts.comment.body])).toEqual([
      ['issue_commented', 'accepted', '? Which columns does the export include?'],
      ['issue_commented', 'accepted', '? Which columns does the export include, and in which order?'],
    ]);

    for (const name of ['worklog-created', 'attachment-created', 'issuelink-created', 'project-created', 'user-created', 'sprint-started']) {
      const answer = await tracker(fixture(`tracker/jira-cloud-${name}.json`));
      expect(answer, name).toMatchObject({ status: 200, body: { ignored: expect.stringContaining('unsupported tracker event') } });
    }
    expect(await (await fetch(`${stack.api}/metrics`)).text()).toMatch(/service_webhooks_ignored_total\{source="tracker",reason="unsupported_event"\} ([6-9]|\d\d)/);
  });

  it('4. reads an old-style jira:issue_updated carrying a comment and no event type as a comment, and keeps a change delivered with it', async () => {
    const ticket = await managedTicket('Old-style comment', FIXTURES_WRITTEN);
    const payload = onIssue('jira-server-issue-updated-comment.json', ticket);
    expect((await tracker(payload)).body).toMatchObject({ status: 'queued', delivery_identity: 'tracker:comment:10301@2026-11-23T07:28:00.000Z' });
    const found = await decisions(ticket.key, 2);
    expect(found[1]).toMatchObject({ status: 'accepted', details: { event: 'issue_commented', facts: { comment: { body: '/service approve' } } } });
    await commandFor(ticket.key, 'tracker:comment:10301@2026-11-23T07:28:00.000Z');

    // A transition with a comment carries two facts: the change (here adding service:retry) and the comment.
    const both = onIssue('jira-server-issue-updated-transition-comment.json', ticket);
    expect((await tracker(both)).body).toMatchObject({ status: 'queued', delivery_identity: 'tracker:comment:10302@2026-11-23T07:30:00.000Z' });
    const more = await decisions(ticket.key, 4);
    expect(more.slice(2).map((e) => [e.details.delivery_identity, e.status])).toEqual([
      ['tracker:changelog:10240', 'accepted'],
      ['tracker:comment:10302@2026-11-23T07:30:00.000Z', 'accepted'],
    ]);
    expect(more[2]!.details.facts.label_change).toEqual({ added: ['service:retry'], removed: [] });
    await commandFor(ticket.key, 'tracker:changelog:10240');
  });

  it('5 and 6. takes a form-encoded GitHub delivery signed over its raw body, answers queued, and keeps the ledger\'s decision on the timeline', async () => {
    const ticket = await managedTicket('Form-encoded GitHub');
    const raw = readFileSync(join(FIXTURES, 'scmhost/issue-comment-created.form-urlencoded'), 'utf8');
    const payload = JSON.parse(new URLSearchParams(raw).get('payload')!) as Json;
    payload.issue.title = `[${ticket.key}] Export invoices`;
    payload.issue.pull_request = { url: 'https://api.github.com/repos/acme/api/pulls/61' };
    payload.issue.number = 61;
    payload.repository.full_name = 'acme/api';
    payload.comment.body = 'Looks fine to me';
    const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const send = (body: string, contentType: string) => postWebhook(`${stack.api}/api/v1/webhooks/scmhost`, undefined, {
      rawBody: body, secret: SCMHOST_SECRET, signatureHeader: 'x-hub-signature-256',
      headers: { 'content-type': contentType, 'x-github-event': 'issue_comment', 'x-github-delivery': crypto.randomUUID() },
    });

    expect(await send(form, 'application/x-www-form-urlencoded')).toMatchObject({ status: 200, body: { status: 'queued', ticket_key: ticket.key, routed_by: 'title' } });
    // GitHub's manual "redeliver", this time configured as JSON: queued again, and the ledger calls it a duplicate.
    expect(await send(JSON.stringify(payload), 'application/json')).toMatchObject({ status: 200, body: { status: 'queued', ticket_key: ticket.key } });
    const found = await decisions(ticket.key, 3);
    expect(found.slice(1).map((e) => [e.details.source_system, e.details.event, e.status])).toEqual([['scmhost', 'issue_comment', 'accepted'], ['scmhost', 'issue_comment', 'duplicate']]);
    expect((await send(form, 'application/json')).body).toMatchObject({ error: { code: 'invalid_json' } });
  });
});
