import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollerScheduleId } from '../../src/poller/poller-schedule';
import { ticketWorkflowId } from '../../workflows/messages';
import type { ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { pollNow } from '../helpers/poller';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

const TRACKER_SECRET = 'poller-tracker-secret';
const SCMHOST_SECRET = 'poller-scmhost-secret';
const TOKEN = 'poller-operator-token';
const TASK_QUEUE = 'it-poller';

type Json = Record<string, any>;

describe('the poller delivers the same facts as the webhooks', () => {
  let world: World;
  let tracker: TrackerSimulator;
  let scmhost: ScmhostSimulator;
  let stack: ServiceStack;
  let client: Client;

  beforeAll(async () => {
    world = await startWorld({
      name: 'poller',
      tracker: { projects: ['POL'] },
      scm: { github: ['acme/api'] },
      operatorToken: TOKEN,
      env: {
        SERVICE_TASK_QUEUE: TASK_QUEUE,
        TRACKER_WEBHOOK_SECRET: TRACKER_SECRET,
        SCMHOST_WEBHOOK_SECRET: SCMHOST_SECRET,
        SCMHOST_KNOWN_REPOS: 'acme/api',
        // Polls only when the test triggers the schedule.
        SERVICE_POLL_INTERVAL_SECONDS: '3600',
        // Each poll reads from the last one's watermark less one second (the default minute would make the idle-ticket
        // test wait a minute).
        SERVICE_POLL_OVERLAP_SECONDS: '1',
      },
    });
    // A configured project: its tickets pass intake instead of blocking for setup.
    world.tracker.state.setProperty(world.tracker.state.project('POL').properties, 'service.repos', ['acme/api']);
    ({ tracker, scm: scmhost, stack, client } = world);
  });

  afterAll(async () => {
    expect(await stack.stop()).toEqual([0, 0]);
    await world?.close();
  });

  /**
   * The service's own label writes (these tickets block at the first station this build does not implement) come
   * back as changelog facts too; these tests are about the facts people and the source host made.
   */
  const servicesOwnLabels = (entry: Json) => {
    const change = entry.details.facts?.label_change as { added: string[]; removed: string[] } | undefined;
    return change !== undefined && [...change.added, ...change.removed].every((label) => label === 'service:blocked' || label.endsWith('-pending'));
  };

  async function decisions(key: string, count: number): Promise<Json[]> {
    return eventually(async () => {
      const page = await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN);
      const found = page.status === 200 ? (page.body.entries as Json[]).filter((e) => e.kind === 'observation_decision' && !servicesOwnLabels(e)) : [];
      return found.length >= count ? found : undefined;
    }, 60_000, `${count} decisions on ${key}`);
  }

  const poll = () => pollNow(client, TASK_QUEUE);

  it('creates the poller schedule at worker start, with overlap skip', async () => {
    const description = await client.schedule.getHandle(pollerScheduleId(TASK_QUEUE)).describe();
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'pollWorkflow', taskQueue: TASK_QUEUE });
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.spec.intervals?.[0]?.every).toBe(3_600_000);
  });

  it('calls the facts webhooks already delivered duplicates: one accepted, one duplicate each', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'POL', issueType: 'Feature', summary: 'Poll me', labels: ['service:managed'] });
    tracker.state.addComment(issue.key, '? which format');
    tracker.state.updateLabels(issue.key, [{ add: 'service:prd-approved' }]);
    await tracker.webhooks.flush();
    expect(tracker.webhooks.deliveries.filter((d) => d.payload && (d.payload as Json).issue?.key === issue.key).slice(0, 3).map((d) => d.status)).toEqual([200, 200, 200]);
    await decisions(issue.key, 3);

    await poll();
    const found = await decisions(issue.key, 6);
    const byIdentity = new Map<string, string[]>();
    for (const entry of found) byIdentity.set(entry.details.delivery_identity, [...(byIdentity.get(entry.details.delivery_identity) ?? []), `${entry.details.source}:${entry.status}`]);
    expect([...byIdentity.values()]).toEqual([
      ['webhook:accepted', 'poller:duplicate'],
      ['webhook:accepted', 'poller:duplicate'],
      ['webhook:accepted', 'poller:duplicate'],
    ]);
  });

  it('recovers facts whose webhooks were lost, and calls the late webhooks duplicates', async () => {
    tracker.webhooks.setTarget(undefined);
    const issue = tracker.state.createIssue({ projectKey: 'POL', issueType: 'Bug', summary: 'Lost webhooks', labels: ['service:managed'] });
    tracker.state.addComment(issue.key, '! more detail');
    const lost = tracker.webhooks.deliveries.filter((d) => (d.payload as Json).issue?.key === issue.key);
    tracker.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/tracker`, secret: TRACKER_SECRET });
    expect(lost).toHaveLength(2);

    await poll();
    const recovered = await decisions(issue.key, 2);
    expect(recovered.map((e) => [e.details.event, e.details.source, e.status])).toEqual([
      ['issue_created', 'poller', 'accepted'],
      ['issue_commented', 'poller', 'accepted'],
    ]);
    const view = await getJson(`${stack.api}/api/v1/workflows/${issue.key}/execution`, TOKEN);
    expect(view.body).toMatchObject({ workflow_type: 'bug', ticket_key: issue.key });

    for (const delivery of lost) {
      expect((await postWebhook(`${stack.api}/api/v1/webhooks/tracker`, delivery.payload, { secret: TRACKER_SECRET })).status).toBe(200);
    }
    const all = await decisions(issue.key, 4);
    expect(all.slice(2).map((e) => [e.details.source, e.status])).toEqual([['webhook', 'duplicate'], ['webhook', 'duplicate']]);
  });

  it('polls open service pull requests with their reviews, check runs and comments', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'POL', issueType: 'Feature', summary: 'PR facts', labels: ['service:managed'] });
    await tracker.webhooks.flush();
    await decisions(issue.key, 1);
    const repo = scmhost.state.repo('acme', 'api');
    const branch = `service/${issue.key.toLowerCase()}`;
    const sha = scmhost.state.pushBranch(repo, branch);
    const pull = scmhost.state.createPull(repo, { title: `[${issue.key}] PR facts`, head: branch, base: 'main' }, scmhost.state.user('service-bot', 'Bot'));
    scmhost.state.submitReview(repo, pull.number, { state: 'CHANGES_REQUESTED', body: 'please rename' });
    scmhost.state.reportCheckRun(repo, { name: 'unit tests', headSha: sha, status: 'completed', conclusion: 'failure' });
    scmhost.state.addIssueComment(repo, pull.number, '/service skip-gate lint');
    await scmhost.webhooks.flush();
    const fromWebhooks = await decisions(issue.key, 5);
    expect(fromWebhooks.slice(1).map((e) => [e.details.event, e.status])).toEqual([
      ['pull_request', 'accepted'], ['pull_request_review', 'accepted'], ['check_run', 'accepted'], ['issue_comment', 'accepted'],
    ]);

    await poll();
    // The ticket was created inside the poll window, so its creation comes again too.
    const afterPoll = await decisions(issue.key, 10);
    expect(afterPoll.slice(5).map((e) => [e.details.event, e.details.source, e.status]).sort()).toEqual([
      ['check_run', 'poller', 'duplicate'], ['issue_comment', 'poller', 'duplicate'], ['issue_created', 'poller', 'duplicate'],
      ['pull_request', 'poller', 'duplicate'], ['pull_request_review', 'poller', 'duplicate'],
    ]);
  });

  it('recovers a merge and a close whose webhooks were lost: accepted once, the late webhooks are duplicates', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'POL', issueType: 'Feature', summary: 'Merged while we were away', labels: ['service:managed'] });
    await tracker.webhooks.flush();
    await decisions(issue.key, 1);
    const repo = scmhost.state.repo('acme', 'api');
    const bot = scmhost.state.user('service-bot', 'Bot');
    const branch = `service/${issue.key.toLowerCase()}`;
    scmhost.state.pushBranch(repo, branch);
    const merged = scmhost.state.createPull(repo, { title: `[${issue.key}] merge me`, head: branch, base: 'main' }, bot);
    scmhost.state.pushBranch(repo, `${branch}-b`);
    const closed = scmhost.state.createPull(repo, { title: `[${issue.key}] close me`, head: `${branch}-b`, base: 'main' }, bot);
    await scmhost.webhooks.flush();
    await decisions(issue.key, 3);

    scmhost.webhooks.setTarget(undefined);
    scmhost.state.mergePull(repo, merged.number);
    scmhost.state.updatePull(repo, closed, { state: 'closed' }, bot);
    const lost = scmhost.webhooks.deliveries.filter((d) => (d.payload as Json).action === 'closed');
    scmhost.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/scmhost`, secret: SCMHOST_SECRET });
    expect(lost).toHaveLength(2);

    await poll();
    const afterPoll = await decisions(issue.key, 5);
    const closing = afterPoll.filter((e) => /:(merged|closed)/.test(e.details.delivery_identity));
    expect(closing.map((e) => [e.details.source, e.status]).sort()).toEqual([['poller', 'accepted'], ['poller', 'accepted']]);
    expect(closing.some((e) => e.details.facts.pull_request.merged === true)).toBe(true);

    for (const delivery of lost) {
      const response = await postWebhook(`${stack.api}/api/v1/webhooks/scmhost`, delivery.payload, { secret: SCMHOST_SECRET, signatureHeader: 'x-hub-signature-256', headers: { 'x-github-event': 'pull_request' } });
      expect(response.status).toBe(200);
    }
    const afterWebhooks = await eventually(async () => {
      const found = (await decisions(issue.key, 5)).filter((e) => /:(merged|closed)/.test(e.details.delivery_identity));
      return found.length >= 4 ? found : undefined;
    }, 30_000, 'the late merge and close webhooks');
    expect(afterWebhooks.filter((e) => e.details.source === 'webhook').map((e) => e.status)).toEqual(['duplicate', 'duplicate']);
  });

  /** The history length once the workflow has stopped writing (its own effects settle within a few seconds). */
  async function settledHistoryLength(key: string): Promise<number> {
    const handle = client.workflow.getHandle(ticketWorkflowId(key));
    let last = -1;
    return eventually(async () => {
      const length = (await handle.describe()).historyLength;
      if (length === last) return length;
      last = length;
      await new Promise((r) => setTimeout(r, 1_000));
      return undefined;
    }, 60_000, `a settled history of ${key}`);
  }

  it('reads only what changed since the last poll: an idle ticket gets no history events, a changed one its fact', async () => {
    const idle = tracker.state.createIssue({ projectKey: 'POL', issueType: 'Feature', summary: 'Nothing happens here', labels: ['service:managed'] });
    tracker.state.addComment(idle.key, '? a question answered long ago');
    // The ticket's workflow starts from its creation: the tracker's webhooks go first, then the pull request's.
    await tracker.webhooks.flush();
    const repo = scmhost.state.repo('acme', 'api');
    const branch = `service/${idle.key.toLowerCase()}`;
    const sha = scmhost.state.pushBranch(repo, branch);
    const pull = scmhost.state.createPull(repo, { title: `[${idle.key}] idle`, head: branch, base: 'main' }, scmhost.state.user('service-bot', 'Bot'));
    scmhost.state.submitReview(repo, pull.number, { state: 'COMMENTED', body: 'looks fine so far' });
    scmhost.state.reportCheckRun(repo, { name: 'unit tests', headSha: sha, status: 'completed', conclusion: 'success' });
    const changed = tracker.state.createIssue({ projectKey: 'POL', issueType: 'Feature', summary: 'Someone comments later', labels: ['service:managed'] });
    await tracker.webhooks.flush();
    await scmhost.webhooks.flush();
    await decisions(idle.key, 5);
    await decisions(changed.key, 1);

    // The first poll after these facts reads them again (duplicates); from then on nothing happens to `idle`. The
    // pauses let the one-second overlap pass, and the up to one second the window gains by being counted in whole
    // seconds, so that the facts are older than the next poll's window.
    await settledHistoryLength(idle.key);
    await settledHistoryLength(changed.key);
    await new Promise((r) => setTimeout(r, 2_500));
    await poll();
    await decisions(idle.key, 10);
    await decisions(changed.key, 2);
    const before = await settledHistoryLength(idle.key);

    tracker.webhooks.setTarget(undefined);
    tracker.state.addComment(changed.key, '! a detail whose webhook was lost');
    tracker.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/tracker`, secret: TRACKER_SECRET });
    await new Promise((r) => setTimeout(r, 2_500));
    await poll();
    const recovered = await decisions(changed.key, 3);
    expect(recovered.map((e) => [e.details.event, e.details.source, e.status])).toEqual([
      ['issue_created', 'webhook', 'accepted'], ['issue_created', 'poller', 'duplicate'], ['issue_commented', 'poller', 'accepted'],
    ]);
    await poll();

    expect(await settledHistoryLength(idle.key)).toBe(before);
    // The changed ticket's comment came once from the poller; the poll after the overlap did not bring it again.
    expect(await decisions(changed.key, 3)).toHaveLength(3);
  });
});
