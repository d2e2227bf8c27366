import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { pollNow } from '../helpers/poller';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';

const SECRET = 'own-writes-tracker-secret';
const TOKEN = 'own-writes-operator-token';
type Json = Record<string, any>;

/**
 * The service's own tracker writes come back as webhooks. On a Jira Cloud whose profiles keep e-mails private they
 * name the service account by its account id only, and so does its REST API, which the poller reads. The gateway and
 * the worker learn that id from the tracker (`/myself`) and still drop them, while what a person does reaches the ticket.
 */
describe('the service account\'s own writes, named by account id only', () => {
  let tracker: TrackerSimulator;
  let running: World;
  let stack: ServiceStack;
  let client: Client;

  beforeAll(async () => {
    running = await startWorld({
      name: 'own-writes',
      tracker: { projects: ['OWN'], privateEmails: true },
      operatorToken: TOKEN,
      env: {
        TRACKER_WEBHOOK_SECRET: SECRET,
        // Polls only when the test triggers the schedule, from the last watermark less one second.
        SERVICE_POLL_INTERVAL_SECONDS: '3600',
        SERVICE_POLL_OVERLAP_SECONDS: '1',
      },
    });
    ({ tracker, stack, client } = running);
    await stack.gateway.waitForOutput(/tracker service account recognised by its account id too/, 30_000);
    await stack.worker.waitForOutput(/tracker service account recognised by its account id too/, 30_000);
  });

  afterAll(async () => {
    await running?.close();
  });

  const timeline = async (key: string): Promise<Json[]> => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN)).body.entries ?? [];
  const ignored = async (reason: string) => Number(new RegExp(`service_webhooks_ignored_total\\{source="tracker",reason="${reason}"\\} (\\d+)`).exec(await (await fetch(`${stack.api}/metrics`)).text())?.[1] ?? 0);

  it('drops the blocked label and the blocking comment, and decides a person\'s comment', async () => {
    // Intake blocks: the project names no repositories. Blocking writes service:blocked and a comment.
    const key = tracker.state.createIssue({ projectKey: 'OWN', issueType: 'Feature', summary: 'Parked here', labels: ['service:managed'] }).key;
    await eventually(async () => (tracker.state.issue(key).labels.includes('service:blocked') && tracker.state.issue(key).comments.length > 0 ? true : undefined), 60_000, `${key} blocked`);
    await tracker.webhooks.flush();
    expect(await ignored('own_change')).toBeGreaterThanOrEqual(1);
    expect(await ignored('own_comment')).toBeGreaterThanOrEqual(1);

    tracker.state.addComment(key, 'The repositories are set now.');
    await tracker.webhooks.flush();
    const entries = await eventually(async () => {
      const all = await timeline(key);
      return all.filter((e) => e.kind === 'observation_decision').length >= 2 ? all : undefined;
    }, 30_000, `${key}: the person's comment decided`);
    // The creation and the person's comment: nothing of what the service wrote itself.
    expect(entries.filter((e) => e.kind === 'observation_decision').map((e) => [e.details.event, e.status])).toEqual([['issue_created', 'accepted'], ['issue_commented', 'accepted']]);
  });

  it('drops them on the poller\'s path too, when their webhooks were lost', async () => {
    tracker.webhooks.setTarget(undefined);
    try {
      const key = tracker.state.createIssue({ projectKey: 'OWN', issueType: 'Feature', summary: 'Polled here', labels: ['service:managed'] }).key;
      // The first poll starts the ticket (its creation's webhook was lost); intake blocks it and writes to the tracker.
      await pollNow(client, 'it-own-writes');
      await eventually(async () => (tracker.state.issue(key).labels.includes('service:blocked') && tracker.state.issue(key).comments.length > 0 ? true : undefined), 60_000, `${key} blocked`);
      // Past the one-second overlap and the second that whole-second rounding adds: the next poll reads the writes.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      tracker.state.addComment(key, 'Set up now, please look again.');
      await pollNow(client, 'it-own-writes');
      const entries = await eventually(async () => {
        const all = await timeline(key);
        return all.some((e) => e.kind === 'observation_decision' && e.details.event === 'issue_commented') ? all : undefined;
      }, 30_000, `${key}: the person's comment decided`);
      // The creation (and its second reading, a duplicate) and the person's comment: none of the service's own writes.
      expect(entries.filter((e) => e.kind === 'observation_decision').map((e) => [e.details.event, e.details.source, e.status]))
        .toEqual(expect.arrayContaining([['issue_created', 'poller', 'accepted'], ['issue_commented', 'poller', 'accepted']]));
      expect(entries.filter((e) => e.kind === 'observation_decision' && (e.details.event === 'issue_updated' || /blocked/i.test(JSON.stringify(e.details.facts.comment ?? '')))))
        .toEqual([]);
    } finally {
      tracker.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/tracker`, secret: SECRET });
    }
  });
});
