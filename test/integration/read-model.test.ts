import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { executionQuery, timelineQuery } from '../../workflows/messages';
import { executionViewFromMemo } from '../../workflows/read-model/read-model-memo';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';

const SECRET = 'read-model-tracker-secret';
const TOKEN = 'read-model-operator-token';

/**
 * The read API answers `execution` and recent `timeline` pages from the memo each ticket workflow keeps, read with
 * DescribeWorkflowExecution: no worker, no replay. While a workflow task is pending the memo may be behind, and the
 * answer comes from the workflow itself.
 */
describe('the read model in the workflow memo', () => {
  let tracker: TrackerSimulator;
  let running: World;
  let stack: ServiceStack;
  let client: Client;

  beforeAll(async () => {
    running = await startWorld({
      name: 'read-model',
      tracker: { projects: ['READ'] },
      operatorToken: TOKEN,
      env: { TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_POLL_INTERVAL_SECONDS: '3600' },
    });
    ({ tracker, stack, client } = running);
  });

  afterAll(async () => {
    await running?.close();
  });

  const get = (key: string, path = '') => getJson(`${stack.api}/api/v1/workflows/${key}/execution${path}`, TOKEN);
  const answers = async (route: string, source: string) =>
    Number(new RegExp(`service_read_model_answers_total\\{route="${route}",source="${source}"\\} (\\d+)`).exec(await (await fetch(`${stack.api}/metrics`)).text())?.[1] ?? 0);

  it('answers from the memo what the workflow answers, also while the worker is down, and never a memo that is behind', async () => {
    // Intake blocks (the project names no repositories): the ticket parks, blocked, after its writes to the tracker.
    const key = tracker.state.createIssue({ projectKey: 'READ', issueType: 'Feature', summary: 'Read me', labels: ['service:managed'] }).key;
    await eventually(async () => (tracker.state.issue(key).comments.length > 0 ? true : undefined), 60_000, `${key} blocked`);
    await tracker.webhooks.flush();
    const handle = client.workflow.getHandle(`ticket-${key}`);
    const settled = await eventually(async () => {
      const description = await handle.describe();
      const view = executionViewFromMemo(description.memo);
      return !description.raw.pendingWorkflowTask && view?.checkpoint.is_blocked && view.effects.every((e) => e.status === 'succeeded') ? view : undefined;
    }, 30_000, `${key}: parked with its writes done`);

    // The memo holds what the workflow's own query answers.
    expect(settled).toEqual(await handle.query(executionQuery));
    const fromMemo = await answers('execution', 'memo');
    const served = await get(key);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ ticket_key: key, status: settled.status, observations_received: settled.observations_received, checkpoint: settled.checkpoint });
    expect(await answers('execution', 'memo')).toBe(fromMemo + 1);
    const page = await get(key, '/timeline?limit=50');
    expect(page.body).toEqual(await handle.query(timelineQuery, { cursor: 0, limit: 50 }));
    expect(await answers('timeline', 'memo')).toBeGreaterThanOrEqual(1);

    // No worker: the memo still answers.
    await stack.worker.stop();
    const offline = await get(key);
    expect(offline.status).toBe(200);
    expect(offline.body.observations_received).toBe(settled.observations_received);
    expect((await get(key, '/timeline?limit=50')).body.total).toBe(page.body.total);

    // A person's comment now waits for a worker: the memo is behind, so it is not served; the query cannot be
    // answered without a worker, and the gateway says so rather than answer with the state before the comment.
    tracker.state.addComment(key, 'Repositories are configured now.');
    await tracker.webhooks.flush();
    expect((await handle.describe()).raw.pendingWorkflowTask).toBeTruthy();
    const behind = await get(key);
    expect(behind.status).toBe(503);

    await stack.restartWorker();
    const caughtUp = await eventually(async () => {
      const view = await get(key);
      // Accepted once: a poll at the worker's start may deliver the comment again, decided a duplicate.
      return view.body.observation_decisions?.accepted === (settled.observation_decisions.accepted ?? 0) + 1 ? view.body : undefined;
    }, 30_000, `${key}: the comment decided after the restart`).catch(async (error: Error) => { throw new Error(`${error.message}; before ${JSON.stringify(settled.observation_decisions)}, now ${JSON.stringify((await get(key)).body).slice(0, 2000)}`); });
    expect(caughtUp.status).toBe(settled.status);
  }, 120_000);
});
