import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { loadServiceConfig } from '../config/service-config';
import type { SmokeStep } from './smoke-checks';
import { pinDefinition } from '../definition-rules/definition-digest';
import { createLogger } from '../logging/logger';
import { startDevServer } from '../temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../temporal/dev-stack-config';
import { findTemporalCli, projectRoot } from '../temporal/temporal-cli-locator';
import { startWorker, type RunningWorker } from '../worker';
import type { WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import { searchAttributes, ticketWorkflowId, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { StationActivity } from '../../workflows/runtime/station-types';

/** Two stations in a row: the smallest graph that shows a run resuming at the node where its worker went away. */
const SMOKE_DEFINITION: WorkflowDefinition = {
  apiVersion: 'service/v1', name: 'smoke_test', revision: 1, entry: 'first',
  nodes: {
    first: { kind: 'station', station: 'smoke_first', on: { done: 'second' } },
    second: { kind: 'station', station: 'smoke_second', on: { done: 'finished' } },
    finished: { kind: 'end', result: 'completed' },
  },
};

const NAME = '2-node graph resumes after a worker restart';

/** A loopback port free right now, for the disposable dev server. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * SPEC 4.8 step 1: a real Temporal dev server on a disposable SQLite file, the real ticket workflow walking a pinned
 * two-station definition; the first worker stops while the first station runs, a second worker picks the same
 * station up again and the run completes at the end node.
 */
export async function checkTwoNodeGraphResumes(env: NodeJS.ProcessEnv = process.env): Promise<SmokeStep> {
  const cli = (() => {
    try {
      return findTemporalCli({ env });
    } catch {
      return undefined;
    }
  })();
  if (!cli) return { name: NAME, status: 'failed', detail: 'no Temporal CLI: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or run `service temporal-cli` once' };
  const dataDir = mkdtempSync(join(tmpdir(), 'service-smoke-'));
  const root = projectRoot();
  const plan = planDevServer(parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8')), root, { dataDir, port: await freePort(), headless: true });
  const server = await startDevServer(cli, plan, { timeoutMs: 90_000 });
  const taskQueue = `smoke-test-${process.pid}`;
  const loaded = loadServiceConfig({
    ...env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: plan.namespace, SERVICE_TASK_QUEUE: taskQueue,
    SERVICE_POLL_INTERVAL_SECONDS: '0', SERVICE_WORKER_METRICS_PORT: '0', SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
  });
  const logger = createLogger({ level: 'error', write: () => undefined });
  const calls: string[] = [];
  const stationsOf = (worker: string): Record<string, StationActivity> => ({
    smoke_first: async () => {
      calls.push(`smoke_first@${worker}`);
      // On the first worker the station never finishes by itself: that worker is stopped under it.
      if (worker === 'a') await Context.current().cancelled.catch(() => undefined).then(() => { throw new Error('worker a stopped'); });
      return { outcome: 'done', summary: `first station on worker ${worker}` };
    },
    smoke_second: async () => {
      calls.push(`smoke_second@${worker}`);
      return { outcome: 'done', summary: `second station on worker ${worker}` };
    },
  });
  let worker: RunningWorker | undefined;
  let connection: Connection | undefined;
  try {
    if (!loaded.config) return { name: NAME, status: 'failed', detail: loaded.problems.join('; ') };
    worker = await startWorker(loaded.config, logger, { stations: stationsOf('a') });
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: plan.namespace });
    const handle = await client.workflow.start(TICKET_WORKFLOW_TYPE, {
      workflowId: ticketWorkflowId('SMOKE-1'), taskQueue,
      args: [{ ticket_key: 'SMOKE-1', project_key: 'SMOKE', issue_type: 'Task', workflow_kind: 'task_takeover', definition: pinDefinition(SMOKE_DEFINITION), settings: { station_heartbeat_seconds: 3 } }],
      typedSearchAttributes: [{ key: searchAttributes.ticketKey, value: 'SMOKE-1' }],
    });
    const deadline = Date.now() + 60_000;
    while (!calls.includes('smoke_first@a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (!calls.includes('smoke_first@a')) return { name: NAME, status: 'failed', detail: 'the first station never started on the first worker' };
    await worker.stop();
    worker = await startWorker(loaded.config, logger, { stations: stationsOf('b') });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([handle.result(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('the run did not complete within 90 s')), 90_000); })]);
    } finally {
      clearTimeout(timer);
    }
    const resumed = calls.includes('smoke_first@b') && calls.includes('smoke_second@b');
    return resumed
      ? { name: NAME, status: 'passed', detail: `Temporal dev server ${server.address}; ${calls.join(' → ')}; completed at the end node` }
      : { name: NAME, status: 'failed', detail: `the run completed without resuming on the second worker (${calls.join(', ')})` };
  } catch (error) {
    return { name: NAME, status: 'failed', detail: `${(error as Error).message} (stations: ${calls.join(', ') || 'none ran'})` };
  } finally {
    await worker?.stop().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
