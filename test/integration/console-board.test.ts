import { createServer } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadServiceConfig } from '../../src/config/service-config';
import { TemporalTicketListing } from '../../src/console/ticket-listing';
import { createGatewayApp } from '../../src/gateway/app';
import { listen, type ListeningServer } from '../../src/http/listen';
import { createLogger } from '../../src/logging/logger';
import { createServiceMetrics } from '../../src/metrics/service-metrics';
import { gatewayConnectionOptions } from '../../src/temporal/connection-options';
import type { TicketWorkflowsPort } from '../../src/temporal/ticket-workflows';
import { ticketWorkflowId } from '../../workflows/messages';
import { startSyntheticTicket } from '../helpers/listed-ticket-workflows';

const TASK_QUEUE = `console-board-it-${process.pid}`;
const TOKEN = 'console-board-it-token';
/** A timeline chunk of about 1.2 MB: four such tickets make one listing page of 4.8 MB, past gRPC's default 4 MiB. */
const LARGE = { 'timeline.9': Array.from({ length: 1_200 }, (_, i) => ({ event_id: i, kind: 'effect', summary: 'x'.repeat(1_000) })) };

/**
 * The console's board over the gateway's real listing (TemporalTicketListing, with the gateway's connection options)
 * against the real dev server. The tickets are started without a worker, on a task queue of this file, with the
 * search attributes and read model a real ticket publishes (test/helpers/listed-ticket-workflows.ts).
 */
describe('the console\'s board against Temporal visibility', () => {
  let connection: Connection;
  let client: Client;
  let gateway: ListeningServer;

  const board = async () => {
    const page = await (await fetch(`${gateway.url}/console/`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const group = (name: string) => {
      const start = page.indexOf(`<section class="group ${name}"`);
      return [...page.slice(start, page.indexOf('</section>', start)).matchAll(/data-ticket="([^"]+)"/g)].map((m) => m[1]).sort();
    };
    return { waiting: group('waiting_on_person'), running: group('running'), blocked: group('blocked'), done: group('done'), listedAt: /data-listed-at="([^"]+)"/.exec(page)?.[1] };
  };

  beforeAll(async () => {
    const { config } = loadServiceConfig({
      TRACKER_WEBHOOK_SECRET: 'it-tracker-secret', SCMHOST_WEBHOOK_SECRET: 'it-scmhost-secret', SERVICE_OPERATOR_TOKEN: TOKEN,
      TEMPORAL_ADDRESS: inject('temporalAddress'), SERVICE_TASK_QUEUE: TASK_QUEUE,
    });
    connection = await Connection.connect({ ...gatewayConnectionOptions(config!.temporal), connectTimeout: 5_000 });
    client = new Client({ connection });
    await Promise.all([
      startSyntheticTicket(client, TASK_QUEUE, 'CBIT-1', 'gate', LARGE),
      startSyntheticTicket(client, TASK_QUEUE, 'CBIT-2', 'running', LARGE),
      startSyntheticTicket(client, TASK_QUEUE, 'CBIT-3', 'blocked', LARGE),
      startSyntheticTicket(client, TASK_QUEUE, 'CBIT-4', 'running', LARGE),
    ]);
    await client.workflow.getHandle(ticketWorkflowId('CBIT-4')).terminate('console board test: ended');
    for (const deadline = Date.now() + 30_000; ;) {
      const listed = await client.workflow.count(`TaskQueue = "${TASK_QUEUE}" AND (ExecutionStatus = 'Running' OR ExecutionStatus = 'Terminated')`);
      const ended = await client.workflow.count(`TaskQueue = "${TASK_QUEUE}" AND ExecutionStatus = 'Terminated'`);
      if (listed.count === 4 && ended.count === 1) break;
      if (Date.now() > deadline) throw new Error(`visibility lists ${listed.count} of 4 tickets, ${ended.count} of 1 ended`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const app = createGatewayApp({
      config: config!, workflows: {} as TicketWorkflowsPort, metrics: createServiceMetrics(), logger: createLogger({ level: 'error', write: () => undefined }),
      console: { tickets: new TemporalTicketListing(connection, client, TASK_QUEUE, { refreshAfterMs: 200 }), budgets: { ticket: null, stage: null, stages: {} } },
    });
    gateway = await listen(createServer(app), '127.0.0.1', 0, 'console board test gateway');
  });

  afterAll(async () => {
    await gateway?.close();
    await connection?.close();
  });

  it('lists the tickets in their groups from one page of more than 4 MiB', async () => {
    // The SDK's default connection keeps grpc-js's 4 MiB limit and cannot read this page (its retries left out).
    const plain = await Connection.connect({ address: inject('temporalAddress'), interceptors: [] });
    try {
      await expect(plain.workflowService.listWorkflowExecutions({ namespace: 'default', query: `TaskQueue = "${TASK_QUEUE}"`, pageSize: 100 })).rejects.toThrow(/RESOURCE_EXHAUSTED|larger than max/);
    } finally {
      await plain.close();
    }
    expect(await board()).toMatchObject({ waiting: ['CBIT-1'], running: ['CBIT-2'], blocked: ['CBIT-3'], done: ['CBIT-4'] });
  });

  it('shows a ticket that ended and one that started on a later request, the listing read again in the background', async () => {
    const before = await board();
    await client.workflow.getHandle(ticketWorkflowId('CBIT-2')).terminate('console board test: a change');
    await startSyntheticTicket(client, TASK_QUEUE, 'CBIT-5', 'gate');
    let seen = before;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      seen = await board();
      if (seen.done.includes('CBIT-2') && seen.waiting.includes('CBIT-5')) break;
    }
    expect(seen).toMatchObject({ waiting: ['CBIT-1', 'CBIT-5'], running: [], blocked: ['CBIT-3'], done: ['CBIT-2', 'CBIT-4'] });
    expect(Date.parse(seen.listedAt!)).toBeGreaterThan(Date.parse(before.listedAt!));
  });
});
