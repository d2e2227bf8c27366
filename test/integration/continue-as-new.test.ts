import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

const SECRET = 'can-tracker-secret';
const TOKEN = 'can-operator-token';

type Json = Record<string, any>;

describe('long-lived tickets: continue-as-new, retention and deterministic replay', () => {
  let world: World;
  let stack: ServiceStack;
  let client: Client;

  beforeAll(async () => {
    world = await startWorld({
      name: 'continue-as-new',
      operatorToken: TOKEN,
      env: { TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_HISTORY_EVENT_LIMIT: '60', SERVICE_RETENTION_TIMELINE_ENTRIES: '20', SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    ({ stack, client } = world);
  });

  afterAll(async () => {
    expect(await stack.stop()).toEqual([0, 0]);
    await world?.close();
  });

  const webhook = (payload: unknown) => postWebhook(`${stack.api}/api/v1/webhooks/tracker`, payload, { secret: SECRET });
  const created = (key: string) => {
    const payload = fixture<Json>('tracker/jira-issue-created.json');
    payload.issue.key = key;
    payload.issue.id = `8${key.replace(/\D/g, '')}`;
    return payload;
  };
  const comment = (key: string, id: number) => {
    const payload = fixture<Json>('tracker/jira-comment-created.json');
    payload.issue.key = key;
    payload.comment.id = String(id);
    payload.comment.body = `note ${id}`;
    return payload;
  };

  it('continues as new with the ledger, the run id and the timeline cursor intact, trimming by retention', async () => {
    expect((await webhook(created('CAN-1'))).status).toBe(200);
    const firstRunId = await eventually(async () => (await getJson(`${stack.api}/api/v1/workflows/CAN-1/execution`, TOKEN)).body.run_id as string | undefined);
    for (let id = 1; id <= 40; id += 1) expect((await webhook(comment('CAN-1', 1000 + id))).status).toBe(200);
    const handle = client.workflow.getHandle('ticket-CAN-1');
    const description = await eventually(async () => {
      const described = await handle.describe();
      const view = await getJson(`${stack.api}/api/v1/workflows/CAN-1/execution`, TOKEN);
      return described.runId !== view.body.run_id && view.body.observations_received === 41 ? { described, view: view.body } : undefined;
    }, 60_000, 'CAN-1 to continue as new and record all 41 deliveries');
    // The run id of the execution view is the chain's first run: stable across continue-as-new (effect keys use it).
    expect(description.view.run_id).toBe(firstRunId);
    expect(description.described.runId).not.toBe(firstRunId);

    // The ledger came along: a redelivery of the first comment is still a duplicate.
    expect((await webhook(comment('CAN-1', 1001))).status).toBe(200);
    const last = await eventually(async () => {
      const page = await getJson(`${stack.api}/api/v1/workflows/CAN-1/execution/timeline?cursor=0&limit=200`, TOKEN);
      const entries = page.body.entries as Json[];
      const decision = entries.filter((e) => e.kind === 'observation_decision').at(-1);
      return decision?.details.delivery_identity.startsWith('tracker:comment:1001@') ? page.body : undefined;
    }, 30_000, 'the redelivered comment');
    const decisions = (last.entries as Json[]).filter((e) => e.kind === 'observation_decision');
    expect(decisions.at(-1)!.status).toBe('duplicate');
    expect(last.entries.some((e: Json) => e.kind === 'workflow_continued')).toBe(true);
    // Retention kept a bounded window, and cursors still count from the very first entry.
    expect(last.total).toBeGreaterThan(last.entries.length);
    expect(last.entries[0].event_id).toBeGreaterThan(1);
    const page = await getJson(`${stack.api}/api/v1/workflows/CAN-1/execution/timeline?cursor=${last.total - 2}&limit=5`, TOKEN);
    // The ticket may have continued as new once more since (a `workflow_continued` entry after these two).
    expect(page.body.entries.map((e: Json) => e.event_id).slice(0, 2)).toEqual([last.total - 1, last.total]);
  });

  it('replays the recorded histories of every run deterministically with the current workflow code', async () => {
    expect((await webhook(created('CAN-2'))).status).toBe(200);
    // A conflicting redelivery blocks the ticket (its block effects fail: no tracker here), covering more paths.
    const first = comment('CAN-2', 2001);
    expect((await webhook(first)).status).toBe(200);
    first.comment.body = 'same id and time, other text';
    expect((await webhook(first)).status).toBe(200);
    await eventually(async () => {
      const view = await getJson(`${stack.api}/api/v1/workflows/CAN-2/execution`, TOKEN);
      return view.body.status === 'blocked' && view.body.effects.length === 2 && view.body.effects.every((e: Json) => e.status === 'terminal_failure') ? true : undefined;
    }, 30_000, 'CAN-2 blocked on conflicting evidence');

    const { Worker } = await import('@temporalio/worker');
    const histories = [];
    for await (const execution of client.workflow.list({ query: 'TaskQueue = "it-continue-as-new"' })) {
      histories.push({ workflowId: execution.workflowId, history: await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory() });
    }
    expect(histories.length).toBeGreaterThanOrEqual(3);
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath: join(__dirname, '..', '..', 'dist', 'workflows'), replayName: 'integration' }, histories)) {
      results.push(result);
    }
    expect(results.map((r) => [r.workflowId, r.error?.message ?? null])).toEqual(histories.map((h) => [h.workflowId, null]));
  });
});
