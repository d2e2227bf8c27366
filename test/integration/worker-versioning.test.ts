import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import type { WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import { ticketWorkflowId } from '../../workflows/messages';
import { freePort } from '../helpers/free-port';
import { startService, type ServiceProcess } from '../helpers/service-process';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';
import { setCurrentVersion } from '../helpers/worker-deployment';

const SECRET = 'versioning-tracker-secret';
const TOKEN = 'versioning-operator-token';
const TASK_QUEUE = 'it-worker-versioning';
const DEPLOYMENT = 'it-versioning';
const WORKER = join(__dirname, '..', 'helpers', 'registry-test-worker.cjs');
type Json = Record<string, any>;

const feature: WorkflowDefinition = {
  apiVersion: 'service/v1', name: 'feature', revision: 3, entry: 'generate_prd',
  nodes: {
    generate_prd: { kind: 'station', station: 'generate_prd', on: { generated: 'prd_gate' } },
    prd_gate: { kind: 'gate', gate: 'artifact_approval', artifact: 'prd', pending_label: 'service:prd-pending', accepts: ['service:prd-approved'], on: { approved: 'generate_spec' } },
    generate_spec: { kind: 'station', station: 'generate_spec', on: { generated: 'done' } },
    done: { kind: 'end', result: 'completed' },
  },
};

/**
 * Worker Deployment Versioning against the dev server: two worker builds of one deployment on one task queue. A
 * ticket started while build A was current is PINNED to A: after B becomes current it still runs only on A (its
 * stations name the build that ran them); a ticket started after the switch runs on B; a ticket migrated after the
 * switch moves to B with its new definition.
 */
describe('worker deployment versioning: a ticket stays on the build it started on', () => {
  let world: World;
  let tracker: TrackerSimulator;
  let stack: ServiceStack;
  let workerB: ServiceProcess | undefined;
  let client: Client;
  const files = mkdtempSync(join(tmpdir(), 'versioning-'));

  // The CLI the suite's global setup found (TEMPORAL_CLI_PATH, .tools/bin or PATH).
  const setCurrent = (buildId: string) => setCurrentVersion(inject('temporalCliPath'), inject('temporalAddress'), DEPLOYMENT, buildId);

  beforeAll(async () => {
    world = await startWorld({
      name: 'versioning',
      tracker: { projects: ['WV'] },
      worker: 'registry-test',
      operatorToken: TOKEN,
      env: {
        SERVICE_TASK_QUEUE: TASK_QUEUE,
        TRACKER_WEBHOOK_SECRET: SECRET,
        SERVICE_EFFECT_TIMEOUT_SECONDS: '5',
        SERVICE_POLL_INTERVAL_SECONDS: '0',
        SERVICE_DEPLOYMENT_NAME: DEPLOYMENT,
        SERVICE_BUILD_ID: 'build-a',
      },
    });
    ({ tracker, stack, client } = world);
    await setCurrent('build-a');
  });

  afterAll(async () => {
    await workerB?.stop();
    await world?.close();
    rmSync(files, { recursive: true, force: true });
  });

  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body as Json;
  const written = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body));
  const waitFor = (key: string, what: string, predicate: (view: Json) => boolean) => eventually(async () => {
    const view = await execution(key);
    return view.ticket_key && predicate(view) ? view : undefined;
  }, 90_000, `${key}: ${what}`);
  const newTicket = () => tracker.state.createIssue({ projectKey: 'WV', issueType: 'Story', summary: 'Versioned', labels: ['service:managed'] }).key;
  const versioning = async (key: string) => (await client.workflow.getHandle(ticketWorkflowId(key)).describe()).raw.workflowExecutionInfo?.versioningInfo;

  it('keeps a ticket started on build A on A after B becomes current; a new ticket runs on B; a migrated one moves to B', async () => {
    const path = join(files, 'feature.json');
    writeFileSync(path, JSON.stringify(feature));
    const publish = startService(['definitions', 'publish', path], stack.env);
    expect(await publish.exited).toBe(0);

    // Two tickets start on A; `third` will be migrated after B becomes current.
    const first = newTicket();
    const third = newTicket();
    for (const key of [first, third]) {
      await waitFor(key, 'at the gate on build A', (v) => v.current_position === 'prd_gate' && v.checkpoint.is_paused && written(key).length === 1);
      expect(written(key)[0]).toBe(`PRD of ${key} (generate_prd, visit 1, build build-a)`);
    }

    const metricsPort = await freePort();
    workerB = startService([], { ...stack.env, SERVICE_BUILD_ID: 'build-b', SERVICE_WORKER_METRICS_PORT: String(metricsPort) }, WORKER);
    await workerB.waitForOutput(/worker polling task queue/);
    await setCurrent('build-b');

    const second = newTicket();
    await waitFor(second, 'at the gate on build B', (v) => v.current_position === 'prd_gate' && v.checkpoint.is_paused && written(second).length === 1);
    expect(written(second)[0]).toBe(`PRD of ${second} (generate_prd, visit 1, build build-b)`);

    // A migration moves the definition and, with versioning on, the run's pin to the current build.
    const r4 = join(files, 'feature-r4.json');
    writeFileSync(r4, JSON.stringify({ ...feature, revision: 4, description: 'the same graph, published again' }));
    expect(await startService(['definitions', 'publish', r4], stack.env).exited).toBe(0);
    const migrate = startService(['migrate', third, '--to', '4', '--apply'], stack.env);
    expect(await migrate.exited).toBe(0);
    expect(migrate.output()).toContain(`${third}: its worker-build pin moved from build-a to the current build build-b of ${DEPLOYMENT}`);

    for (const key of [first, second, third]) tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    for (const key of [first, second, third]) await waitFor(key, 'completed', (v) => v.status === 'completed');
    expect(written(first)[1]).toBe(`Spec of ${first} (generate_spec, visit 1, build build-a)`);
    expect(written(second)[1]).toBe(`Spec of ${second} (generate_spec, visit 1, build build-b)`);
    expect(written(third)[1]).toBe(`Spec of ${third} (generate_spec, visit 1, build build-b)`);
    expect((await versioning(third))?.versioningOverride?.pinned?.version?.buildId).toBe('build-b');

    const pinnedFirst = await versioning(first);
    const pinnedSecond = await versioning(second);
    expect({ behavior: pinnedFirst?.behavior, build: pinnedFirst?.deploymentVersion?.buildId }).toEqual({ behavior: 1, build: 'build-a' });
    expect({ behavior: pinnedSecond?.behavior, build: pinnedSecond?.deploymentVersion?.buildId }).toEqual({ behavior: 1, build: 'build-b' });
  });
});
