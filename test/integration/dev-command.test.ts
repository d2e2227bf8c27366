import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { fixture } from '../helpers/fixtures';
import { freePort } from '../helpers/free-port';
import { startService } from '../helpers/service-process';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

type Json = Record<string, any>;
const TOKEN = 'dev-operator-token';

/** The gateway's and the worker's metrics ports, as the banner of `service dev` names them. */
function bannerPorts(output: string): { gateway: number; metrics: number } {
  const gateway = /API {10}http:\/\/127\.0\.0\.1:(\d+)\/api\/v1/.exec(output)?.[1];
  const metrics = /http:\/\/127\.0\.0\.1:(\d+)\/metrics \(worker\)/.exec(output)?.[1];
  if (!gateway || !metrics) throw new Error(`the banner of service dev names no gateway or worker metrics URL:\n${output}`);
  return { gateway: Number(gateway), metrics: Number(metrics) };
}

async function portIsFree(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1_000) });
    return false;
  } catch {
    return true;
  }
}

describe('service dev', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'service-dev-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const devStack = async (stackFile?: string, extraEnv: NodeJS.ProcessEnv = { SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'true' }, dir = dataDir) => {
    // The gateway and the worker's metrics take ports the system gives them (0), read back from the banner: a port
    // picked here and bound seconds later, after the dev server has taken ports of its own, was once taken meanwhile.
    const ports = { temporal: await freePort(), ui: await freePort(), gateway: 0, metrics: 0 };
    const args = ['dev', '--data-dir', dir, '--temporal-port', String(ports.temporal), '--ui-port', String(ports.ui)];
    if (stackFile) args.push('--config', stackFile);
    const dev = startService(args, {
      TEMPORAL_CLI_PATH: inject('temporalCliPath'),
      // Local development without secrets: the tests post unsigned webhooks, which needs the explicit opt-in.
      ...extraEnv,
      SERVICE_OPERATOR_TOKEN: TOKEN,
      SERVICE_TASK_QUEUE: 'it-dev',
      SERVICE_GATEWAY_HOST: '127.0.0.1',
      SERVICE_GATEWAY_PORT: String(ports.gateway),
      SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
      SERVICE_WORKER_METRICS_PORT: String(ports.metrics),
    });
    await dev.waitForOutput(/Press Ctrl-C to stop/, 120_000);
    Object.assign(ports, bannerPorts(dev.output()));
    return { dev, ports, api: `http://127.0.0.1:${ports.gateway}` };
  };

  it('starts the dev server, worker and gateway, says where they are, and stops them all on Ctrl-C', async () => {
    const { dev, ports, api } = await devStack();
    try {
      const out = dev.output();
      expect(out).toContain(`API          ${api}/api/v1`);
      expect(out).toContain(`Temporal UI  http://127.0.0.1:${ports.ui}`);
      expect(out).toContain(`Metrics      ${api}/metrics (gateway)  http://127.0.0.1:${ports.metrics}/metrics (worker)`);
      expect(out).toContain(join(dataDir, 'temporal.db'));
      expect(out).toContain('UNSIGNED WEBHOOKS ACCEPTED: SERVICE_ALLOW_UNSIGNED_WEBHOOKS=true and TRACKER_WEBHOOK_SECRET, SCMHOST_WEBHOOK_SECRET are not set');
      expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).status).toBe(200);

      const payload = fixture<Json>('tracker/jira-issue-created.json');
      payload.issue.key = 'DEV-1';
      expect((await postWebhook(`${api}/api/v1/webhooks/tracker`, payload)).status).toBe(200);
      await eventually(async () => ((await getJson(`${api}/api/v1/workflows/DEV-1/execution`, TOKEN)).status === 200 ? true : undefined));
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
    }
    expect(dev.output()).toContain('stopped');
    for (const port of [ports.gateway, ports.metrics, ports.ui]) expect(await portIsFree(port)).toBe(true);
  });

  it('starts again on the same SQLite file, keeps the ticket, and registers new search attributes on the existing database', async () => {
    const stack = readFileSync(join(__dirname, '..', '..', 'temporal-dev.yaml'), 'utf8')
      .replace('search_attributes:\n', 'search_attributes:\n  ServiceExtraForTest: Keyword\n');
    const stackFile = join(dataDir, 'stack.yaml');
    writeFileSync(stackFile, stack);
    const { dev, ports, api } = await devStack(stackFile);
    try {
      const view = await eventually(async () => {
        const response = await getJson(`${api}/api/v1/workflows/DEV-1/execution`, TOKEN);
        return response.status === 200 ? response.body : undefined;
      }, 60_000, 'DEV-1 after the restart');
      expect(view).toMatchObject({ ticket_key: 'DEV-1', observations_received: 1, last_observation: { observation_id: 'tracker:issue:10042:created' } });
      const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
      try {
        const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
        expect(Object.keys(listed.customAttributes ?? {})).toEqual(expect.arrayContaining(['ServiceStatus', 'ServiceNode', 'ServiceExtraForTest']));
      } finally {
        await connection.close();
      }
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
    }
  });

  it('--sandbox wires the simulators: a ticket created in the tracker simulator starts its workflow through a signed webhook', async () => {
    const sandboxDir = mkdtempSync(join(tmpdir(), 'service-sandbox-'));
    const ports = { temporal: await freePort(), gateway: 0, metrics: 0 };
    const dev = startService(['dev', '--sandbox', '--headless', '--data-dir', sandboxDir, '--temporal-port', String(ports.temporal)], {
      TEMPORAL_CLI_PATH: inject('temporalCliPath'),
      SERVICE_OPERATOR_TOKEN: TOKEN,
      SERVICE_TASK_QUEUE: 'it-dev-sandbox',
      SERVICE_GATEWAY_HOST: '127.0.0.1',
      SERVICE_GATEWAY_PORT: String(ports.gateway),
      SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
      SERVICE_WORKER_METRICS_PORT: String(ports.metrics),
    });
    try {
      await dev.waitForOutput(/Press Ctrl-C to stop/, 120_000);
      Object.assign(ports, bannerPorts(dev.output()));
      const trackerUrl = dev.output().match(/Sandbox {6}tracker (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
      expect(trackerUrl).toBeDefined();
      const created = await fetch(`${trackerUrl}/rest/api/3/issue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('ada@sandbox.local:x').toString('base64')}` },
        body: JSON.stringify({ fields: { project: { key: 'SBX' }, issuetype: { name: 'Feature' }, summary: 'Try me', labels: ['service:managed'] } }),
      });
      expect(created.status).toBe(201);
      const { key } = await created.json() as { key: string };
      const api = `http://127.0.0.1:${ports.gateway}`;
      const timeline = await eventually(async () => {
        const page = await getJson(`${api}/api/v1/workflows/${key}/execution/timeline`, TOKEN);
        const station = page.status === 200 ? (page.body.entries as Json[]).find((e) => e.kind === 'station_attempt') : undefined;
        return station ? page.body : undefined;
      }, 60_000, `${key} through the sandbox`);
      expect(timeline.entries.find((e: Json) => e.kind === 'station_attempt')).toMatchObject({ status: 'succeeded', details: { station: 'intake', outcome: 'configured' } });
      expect(timeline.entries.find((e: Json) => e.kind === 'station_attempt').summary).toContain('sandbox/app');
      expect(timeline.entries.find((e: Json) => e.kind === 'observation_decision')).toMatchObject({ status: 'accepted', details: { source: 'webhook', event: 'issue_created' } });
      // The banner names the read API's token (yours when you set one), and the simulated model writes the PRD.
      expect(dev.output()).toContain(`read API token (SERVICE_OPERATOR_TOKEN): ${TOKEN}`);
      // The sandbox makes up its own webhook secrets (and signs its simulators' webhooks): no opt-in, no warning.
      expect(dev.output()).not.toContain('UNSIGNED WEBHOOKS ACCEPTED');
      const atGate = await eventually(async () => {
        const view = await getJson(`${api}/api/v1/workflows/${key}/execution`, TOKEN);
        return view.body.current_position === 'prd_approval_gate' && view.body.checkpoint?.is_paused ? view.body : undefined;
      }, 60_000, `${key} at the PRD gate`);
      expect(atGate.artifacts.prd.version).toBe(1);
      const issue = await (await fetch(`${trackerUrl}/rest/api/3/issue/${key}`, { headers: { authorization: `Basic ${Buffer.from('ada@sandbox.local:x').toString('base64')}` } })).json() as Json;
      expect(issue.fields.labels).toEqual(expect.arrayContaining(['service:managed', 'service:prd-pending']));
    } finally {
      expect(await dev.stop('SIGINT'), `service dev --sandbox did not stop cleanly on Ctrl-C; its output ends:\n${dev.output().slice(-4000)}`).toBe(0);
      rmSync(sandboxDir, { recursive: true, force: true });
    }
  });

  it('without webhook secrets or the opt-in, makes them up for its data folder, prints them and takes only signed webhooks', async () => {
    const own = mkdtempSync(join(tmpdir(), 'service-dev-secrets-'));
    try {
      const { dev, api } = await devStack(undefined, {}, own);
      let secret: string;
      try {
        const out = dev.output();
        expect(out).toContain(`Webhooks are signed with secrets made up for this data folder (${join(own, 'webhook-secrets.json')})`);
        expect(out).not.toContain('UNSIGNED WEBHOOKS ACCEPTED');
        secret = /TRACKER_WEBHOOK_SECRET=([0-9a-f]{48})/.exec(out)![1]!;
        expect(/SCMHOST_WEBHOOK_SECRET=[0-9a-f]{48}/.test(out)).toBe(true);
        expect(statSync(join(own, 'webhook-secrets.json')).mode & 0o777).toBe(0o600);
        const payload = fixture<Json>('tracker/jira-issue-created.json');
        payload.issue.key = 'DEV-9';
        expect((await postWebhook(`${api}/api/v1/webhooks/tracker`, payload)).status).toBe(401);
        expect((await postWebhook(`${api}/api/v1/webhooks/tracker`, payload, { secret })).status).toBe(200);
      } finally {
        expect(await dev.stop('SIGINT')).toBe(0);
      }
      // A restart on the same data folder keeps them, so webhook settings copied from the banner keep working.
      const again = await devStack(undefined, {}, own);
      try {
        expect(again.dev.output()).toContain(`TRACKER_WEBHOOK_SECRET=${secret}`);
        const payload = fixture<Json>('tracker/jira-issue-created.json');
        payload.issue.key = 'DEV-10';
        expect((await postWebhook(`${again.api}/api/v1/webhooks/tracker`, payload, { secret })).status).toBe(200);
      } finally {
        expect(await again.dev.stop('SIGINT')).toBe(0);
      }
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('refuses a broken dev stack file with a line naming the field', async () => {
    const stackFile = join(dataDir, 'broken.yaml');
    writeFileSync(stackFile, 'server:\n  port: seventy\n');
    const dev = startService(['dev', '--config', stackFile], { TEMPORAL_CLI_PATH: inject('temporalCliPath') });
    expect(await dev.exited).toBe(1);
    expect(dev.output()).toContain(`${stackFile}: server.port`);
  });
});
