import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fixture } from '../helpers/fixtures';
import { freePort } from '../helpers/free-port';
import { startService } from '../helpers/service-process';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

const SECRET = 'tracker-webhook-secret-it';
const TOKEN = 'operator-token-it-0001';
const TASK_QUEUE = 'it-foundation';

type Json = Record<string, any>;

function createdPayload(key: string, options: { labels?: string[]; issueType?: string } = {}): Json {
  const payload = fixture<Json>('tracker/jira-issue-created.json');
  payload.issue.key = key;
  payload.issue.id = `9${key.replace(/\D/g, '')}`;
  payload.issue.fields.labels = options.labels ?? ['service:managed'];
  payload.issue.fields.issuetype.name = options.issueType ?? 'Feature';
  return payload;
}

function commentPayload(key: string, id: string, text: string): Json {
  const payload = fixture<Json>('tracker/jira-comment-created.json');
  payload.issue.key = key;
  payload.comment.id = id;
  payload.comment.body = text;
  return payload;
}

describe('worker and gateway against a real Temporal dev server', () => {
  const temporalAddress = inject('temporalAddress');
  let world: World;
  let stack: ServiceStack;
  let api: string;

  beforeAll(async () => {
    world = await startWorld({ name: 'foundation', operatorToken: TOKEN, env: { SERVICE_TASK_QUEUE: TASK_QUEUE, TRACKER_WEBHOOK_SECRET: SECRET } });
    stack = world.stack;
    api = stack.api;
  });

  afterAll(async () => {
    expect(await stack.stop()).toEqual([0, 0]);
    await world?.close();
  });

  const webhook = (payload: unknown, options: Parameters<typeof postWebhook>[2] = { secret: SECRET }) =>
    postWebhook(`${api}/api/v1/webhooks/tracker`, payload, options);

  it('answers the health check', async () => {
    expect(await getJson(`${api}/api/v1/health`)).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('starts ticket-<KEY> from a signed, managed issue_created and serves its execution view', async () => {
    const response = await webhook(createdPayload('FND-1'));
    expect(response).toMatchObject({ status: 200, body: { status: 'queued', workflow_id: 'ticket-FND-1' } });

    // A Feature pins the built-in feature definition, passes intake and stops at the first station this build does
    // not implement, saying so, instead of pretending to write a PRD.
    const view = await eventually(async () => {
      const result = await getJson(`${api}/api/v1/workflows/FND-1/execution`, TOKEN);
      return result.status === 200 && result.body.observations_received === 1 && result.body.status === 'blocked' ? result.body : undefined;
    }, 30_000, 'the execution view of FND-1');
    expect(view).toMatchObject({
      schema_version: '1.0',
      ticket_key: 'FND-1',
      workflow_id: 'ticket-FND-1',
      workflow_type: 'feature',
      status: 'blocked',
      current_position: 'generate_prd',
      definition: { name: 'feature', revision: 2 },
      waiting: { code: 'station_not_available' },
      permitted_commands: expect.arrayContaining(['service:retry']),
      retry_count: 0,
      migration: null,
      last_observation: { observation_id: 'tracker:issue:91:created', source_system: 'tracker', stale: false, conflicting: false },
      checkpoint: { current_node: 'generate_prd', is_blocked: true, is_paused: false, ci_fix_attempts: 0, ci_skipped_checks: [] },
    });
    expect(view.definition.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(view.station_attempts.map((a: Json) => [a.station, a.status, a.outcome])).toEqual([['intake', 'succeeded', 'configured'], ['generate_prd', 'not_available', null]]);

    const pulse = await getJson(`${api}/api/v1/org-pulse/workflows/FND-1`, TOKEN);
    expect(pulse).toMatchObject({ status: 200, body: { schema_version: '1.0', ticket_key: 'FND-1', status: 'blocked', current_position: 'generate_prd', workflow: 'feature', workflow_revision: 2, observation_available: true, migration_eligible: null } });
  });

  it('writes status and node search attributes that operators can filter on', async () => {
    await webhook(createdPayload('FND-2', { issueType: 'Bug' }));
    const connection = await Connection.connect({ address: temporalAddress });
    try {
      const client = new Client({ connection });
      const found = await eventually(async () => {
        for await (const execution of client.workflow.list({ query: `ServiceTicketKey = "FND-2" AND ServiceStatus = "blocked" AND ServiceNode = "triage_check"` })) {
          return execution;
        }
        return undefined;
      }, 30_000, 'FND-2 in visibility');
      expect(found.workflowId).toBe('ticket-FND-2');
      expect(found.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value])).toEqual(expect.arrayContaining([['ServiceWorkflowType', 'bug']]));
    } finally {
      await connection.close();
    }
  });

  it('records each delivery for an existing ticket on its timeline, in order, with paging', async () => {
    await webhook(createdPayload('FND-3'));
    expect((await webhook(commentPayload('FND-3', '501', '? which format'))).status).toBe(200);
    const labels = fixture<Json>('tracker/jira-issue-updated-labels.json');
    labels.issue.key = 'FND-3';
    expect((await webhook(labels)).body).toMatchObject({ status: 'queued', delivery_identity: 'tracker:changelog:10237' });

    const page = await eventually(async () => {
      const result = await getJson(`${api}/api/v1/workflows/FND-3/execution/timeline?cursor=0&limit=200`, TOKEN);
      const entries = result.status === 200 ? (result.body.entries as Json[]) : [];
      const view = await getJson(`${api}/api/v1/workflows/FND-3/execution`, TOKEN);
      // Settled: three command decisions, the block reported (label, comment), the question answered, the stray
      // approval label taken off and answered (the writes fail: no tracker).
      const settled = view.body.status === 'blocked' && view.body.effects.length === 5 && view.body.effects.every((e: Json) => e.status === 'terminal_failure');
      return settled && entries.filter((entry) => entry.kind === 'command_decision').length >= 3 ? result.body : undefined;
    }, 30_000, 'three command decisions');
    expect(page.entries[0]).toMatchObject({ kind: 'workflow_started', event_id: 1 });
    // Without a tracker configured the intake cannot read the project configuration, and says so.
    expect(page.entries.find((entry: Json) => entry.kind === 'station_attempt').summary).toContain('Project configuration not checked');
    const decided = page.entries.filter((entry: Json) => entry.kind === 'observation_decision');
    expect(decided.map((entry: Json) => [entry.details.event, entry.status])).toEqual([['issue_created', 'accepted'], ['issue_commented', 'accepted'], ['issue_updated', 'accepted']]);
    expect(decided[1].details).toMatchObject({ delivery_identity: 'tracker:comment:501@2026-11-23T07:10:00.000Z', facts: { comment: { body: '? which format' } } });
    expect(decided[2].details.facts.label_change).toEqual({ added: ['service:prd-approved'], removed: ['service:prd-pending'] });

    const first = await getJson(`${api}/api/v1/workflows/FND-3/execution/timeline?limit=3`, TOKEN);
    expect(first.body).toMatchObject({ schema_version: '1.0', next_cursor: 3 });
    expect(first.body.entries).toHaveLength(3);
    const total = first.body.total as number;
    const rest = await getJson(`${api}/api/v1/workflows/FND-3/execution/timeline?cursor=${total - 2}&limit=3`, TOKEN);
    expect(rest.body).toMatchObject({ next_cursor: null, total });
    expect((rest.body.entries as Json[]).map((entry) => entry.event_id)).toEqual([total - 1, total]);
    // Every accepted fact went through the command boundary; none is a command where the ticket stands.
    expect(page.entries.filter((entry: Json) => entry.kind === 'command_decision').map((entry: Json) => entry.status)).toEqual(['ignored', 'ignored', 'ignored']);
  });

  it('rejects a missing or wrong signature with 401 and starts nothing', async () => {
    const missing = await webhook(createdPayload('FND-4'), {});
    expect(missing).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature' } } });
    const wrong = await webhook(createdPayload('FND-4'), { secret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    expect((await getJson(`${api}/api/v1/workflows/FND-4/execution`, TOKEN)).status).toBe(404);
  });

  it('answers 400 with a JSON error for invalid JSON and for a body without the fields it uses', async () => {
    const broken = await webhook(undefined, { secret: SECRET, rawBody: '{"webhookEvent": ' });
    expect(broken).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
    const noIssue = await webhook({ webhookEvent: 'jira:issue_created' });
    expect(noIssue.status).toBe(400);
    expect((noIssue.body.error as Json).message).toContain('issue');
  });

  it('accepts a multi-megabyte payload', async () => {
    const payload = createdPayload('FND-5');
    payload.issue.fields.description = { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: 'x'.repeat(3_000_000) }] }] };
    expect((await webhook(payload)).status).toBe(200);
  });

  it('ignores unmanaged tickets and events for tickets without a workflow, with 200', async () => {
    const unmanaged = await webhook(createdPayload('FND-6', { labels: ['other'] }));
    expect(unmanaged).toMatchObject({ status: 200, body: { ignored: 'ticket is not labelled service:managed' } });
    const orphan = await webhook(commentPayload('FND-7', '601', 'hello'));
    expect(orphan).toMatchObject({ status: 200, body: { ignored: 'no running workflow for FND-7' } });
    expect((await getJson(`${api}/api/v1/workflows/FND-6/execution`, TOKEN)).status).toBe(404);
    expect((await getJson(`${api}/api/v1/workflows/FND-7/execution`, TOKEN)).status).toBe(404);
  });

  it('guards the read API with the operator token and validates paging', async () => {
    await webhook(createdPayload('FND-8'));
    const path = `${api}/api/v1/workflows/FND-8/execution`;
    expect((await getJson(path)).status).toBe(401);
    expect((await getJson(path, 'wrong-token')).status).toBe(401);
    expect((await getJson(`${path}?token=${TOKEN}`)).status).toBe(401);
    expect((await getJson(`${path}?access_token=${TOKEN}`)).status).toBe(401);
    expect((await getJson(`${api}/api/v1/org-pulse/workflows/FND-8`)).status).toBe(401);
    expect((await getJson(`${api}/api/v1/workflows/NOPE-404/execution`, TOKEN))).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await getJson(`${api}/api/v1/org-pulse/workflows/NOPE-404`, TOKEN)).status).toBe(404);
    for (const query of ['limit=201', 'limit=abc', 'limit=1.5', 'limit=0', 'cursor=-1']) {
      expect((await getJson(`${path}/timeline?${query}`, TOKEN)).status, query).toBe(400);
    }
    expect((await getJson(`${path}/timeline?limit=200`, TOKEN)).status).toBe(200);
  });

  it('keeps deliveries Temporal accepted while the worker is down and processes them when it is back', async () => {
    await webhook(createdPayload('FND-9'));
    await eventually(async () => ((await getJson(`${api}/api/v1/workflows/FND-9/execution`, TOKEN)).status === 200 ? true : undefined));
    expect(await stack.worker.stop()).toBe(0);
    expect((await webhook(commentPayload('FND-9', '901', '! more detail please'))).status).toBe(200);
    await stack.restartWorker();
    const page = await eventually(async () => {
      const result = await getJson(`${api}/api/v1/workflows/FND-9/execution/timeline`, TOKEN);
      const decided = result.status === 200 ? (result.body.entries as Json[]).filter((entry) => entry.kind === 'observation_decision') : [];
      return decided.length === 2 ? result.body : undefined;
    }, 90_000, 'the comment after the worker restart');
    expect(page.entries.filter((entry: Json) => entry.kind === 'observation_decision').at(-1).details.delivery_identity).toBe('tracker:comment:901@2026-11-23T07:10:00.000Z');
  });

  it('exposes the metric families on the gateway and the worker', async () => {
    // Counters are per process: start a workflow on the worker running now.
    expect((await webhook(createdPayload('FND-10'))).status).toBe(200);
    const gatewayMetrics = await (await fetch(`${api}/metrics`)).text();
    expect(gatewayMetrics).toMatch(/service_webhooks_received_total\{source="tracker",event="issue_created"\} [1-9]/);
    expect(gatewayMetrics).toMatch(/service_webhooks_failed_total\{source="tracker",event="unknown"\} [1-9]/);
    for (const family of ['service_workflows_completed_total', 'service_workflows_failed_total', 'service_ci_fix_attempts_total',
      'service_agent_duration_seconds', 'service_phase_duration_seconds', 'service_webhooks_processed_total',
      'service_external_api_latency_seconds', 'service_read_model_latency_seconds', 'service_execution_waiting_age_seconds',
      'service_execution_retry_count', 'service_execution_drift_state', 'service_execution_blocked_state',
      'service_execution_migration_eligibility']) {
      expect(gatewayMetrics).toContain(`# TYPE ${family} `);
    }
    const workerMetrics = await eventually(async () => {
      const text = await (await fetch(stack.workerMetricsUrl)).text();
      return /service_workflows_started_total\{type="feature"\} [1-9]/.test(text) ? text : undefined;
    }, 30_000, 'a started feature workflow on the worker');
    expect(workerMetrics).toContain('# TYPE service_webhooks_received_total counter');
  });
});

describe('the gateway without Temporal', () => {
  it('stays healthy and answers webhooks with 503 so the tracker redelivers', async () => {
    const port = await freePort();
    const gateway = startService(['gateway'], {
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
      SERVICE_GATEWAY_HOST: '127.0.0.1',
      SERVICE_GATEWAY_PORT: String(port),
      // This test posts an unsigned webhook: it means local testing without secrets.
      SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'true',
    });
    try {
      await gateway.waitForOutput(/gateway listening on/);
      expect((await getJson(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
      const started = Date.now();
      const response = await postWebhook(`http://127.0.0.1:${port}/api/v1/webhooks/tracker`, createdPayload('FND-20'));
      expect(response).toMatchObject({ status: 503, body: { error: { code: 'temporal_unavailable' } } });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((await getJson(`http://127.0.0.1:${port}/api/v1/workflows/FND-20/execution`)).status).toBe(503);
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });
});

describe('startup configuration', () => {
  it('prints one line per invalid variable and exits non-zero', async () => {
    const worker = startService(['worker'], { CI_MAX_FIX_ATTEMPTS: 'many', CONTAINER_CPU_LIMIT: '-1', STORE_URL: 'redis://localhost:6380/0', LLM_MODEL: 'gemini-2.5-pro' });
    expect(await worker.exited).toBe(1);
    const lines = worker.output().trim().split('\n').filter((line) => line.startsWith('configuration error: '));
    expect(lines).toEqual([
      'configuration error: STORE_URL: the state store is the Temporal frontend; use temporal://host:port/namespace or host:port (got a redis:// URL)',
      'configuration error: CI_MAX_FIX_ATTEMPTS: expected a whole number from 0 to 100, got "many"',
      'configuration error: CONTAINER_CPU_LIMIT: expected a number greater than 0, got "-1"',
      'configuration error: LLM_BACKEND and LLM_MODEL are required together (LLM_BACKEND is missing)',
    ]);
  });

  it('prints the version', async () => {
    const version = startService(['version'], {});
    expect(await version.exited).toBe(0);
    const { version: packageVersion } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(version.output().trim()).toBe(`service v${packageVersion}`);
  });
});
