import { connect } from 'node:net';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pinDefinition } from '../../src/definition-rules/definition-digest';
import { podman, resolvePodmanAccount } from '../../src/containers/podman-account';
import { signHmacSha256 } from '../../src/gateway/webhook-signature';
import { SHUTDOWN_MARGIN_SECONDS } from '../../src/process/shutdown-grace';
import type { ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import type { ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { searchAttributes, ticketWorkflowId, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { TicketWorkflowInput } from '../../workflows/ledger/observation';
import { freePort } from '../helpers/free-port';
import { startService, type ServiceProcess } from '../helpers/service-process';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';
import { containerEditDefinition } from '../helpers/container-edit-definition';

const SECRET = 'health-shutdown-tracker-secret';
const TOKEN = 'health-shutdown-operator';
const REPO = 'acme/app';
const GRACE_SECONDS = 3;
type Json = Record<string, any>;

const definition = containerEditDefinition(REPO);

/**
 * Issue 32, point 2: liveness and readiness of the gateway and the worker, readiness failing with its reason, and
 * SIGTERM draining both: the worker gives a running container station SERVICE_SHUTDOWN_GRACE_SECONDS, then cancels
 * it (its container removed) and exits 0, and a new worker carries the ticket on; the gateway answers the webhook in
 * flight and exits 0.
 */
describe('health probes and SIGTERM', () => {
  let scm: ScmhostSimulator;
  let model: ModelSimulator;
  let tracker: TrackerSimulator;
  let stack: ServiceStack;
  let client: Client;
  const extra: ServiceProcess[] = [];

  let world: World;

  beforeAll(async () => {
    world = await startWorld({
      name: 'health-shutdown',
      tracker: { projects: ['HS'] },
      scm: { github: [REPO], webhooks: false },
      model: true,
      seedRepo: { 'hello.txt': 'hello, world\n' },
      containers: true,
      worker: 'station-test',
      operatorToken: TOKEN,
      env: { SERVICE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    ({ scm, model, tracker, stack, client } = world);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(extra.map((p) => p.stop()));
    await world?.close();
  });

  const workerBase = () => stack.workerMetricsUrl.replace(/\/metrics$/, '');
  const containersOf = async (key: string) => (await podman(resolvePodmanAccount(), ['ps', '--all', '--filter', `label=service.ticket=${key}`, '--format', '{{.Names}}'])).stdout.trim();
  const execution = async (key: string): Promise<Json> => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body;
  const checkNames = (body: Json) => (body.checks as Json[]).map((c) => `${c.name}:${c.status}`);

  /** Another gateway process on its own port, with some settings changed. */
  const extraGateway = async (env: NodeJS.ProcessEnv): Promise<string> => {
    const port = await freePort();
    const gateway = startService(['gateway'], { ...stack.env, SERVICE_GATEWAY_PORT: String(port), ...env });
    extra.push(gateway);
    await gateway.waitForOutput(/gateway listening on/);
    return `http://127.0.0.1:${port}`;
  };

  it('answers live and ready on the gateway and on the worker\'s metrics port', async () => {
    expect(await getJson(`${stack.api}/api/v1/health/live`)).toEqual({ status: 200, body: { status: 'alive' } });
    expect(await getJson(`${stack.api}/api/v1/health`)).toEqual({ status: 200, body: { status: 'ok' } });
    const gatewayReady = await getJson(`${stack.api}/api/v1/health/ready`);
    expect(gatewayReady.status).toBe(200);
    expect(gatewayReady.body.status).toBe('ready');
    expect(checkNames(gatewayReady.body)).toEqual(['temporal:pass', 'namespace:pass', 'search_attributes:pass']);

    expect(await getJson(`${workerBase()}/health/live`)).toEqual({ status: 200, body: { status: 'alive' } });
    // A worker answers ready once it polls; on a loaded machine that can take a moment after its start.
    const workerReady = await eventually(async () => {
      const answer = await getJson(`${workerBase()}/health/ready`);
      return answer.status === 200 ? answer : undefined;
    }, 30_000, 'the worker to be ready').catch(async (error: Error) => { throw new Error(`${error.message}: ${JSON.stringify((await getJson(`${workerBase()}/health/ready`)).body)}`); });
    expect(workerReady.status).toBe(200);
    expect(checkNames(workerReady.body)).toEqual(['worker:pass', 'temporal:pass', 'namespace:pass', 'search_attributes:pass', 'podman:pass']);
    expect((workerReady.body.checks as Json[]).find((c) => c.name === 'podman')!.detail).toMatch(/^podman \d/);
  });

  it('is not ready, naming why, with a namespace that does not exist or a Temporal that does not answer', async () => {
    const wrongNamespace = await extraGateway({ TEMPORAL_NAMESPACE: 'no-such-namespace' });
    const unready = await getJson(`${wrongNamespace}/api/v1/health/ready`);
    expect(unready.status).toBe(503);
    expect(unready.body.failed).toEqual([
      { name: 'namespace', reason: `namespace "no-such-namespace" does not exist on ${inject('temporalAddress')} (TEMPORAL_NAMESPACE)` },
      { name: 'search_attributes', reason: 'not checked: namespace "no-such-namespace" is not usable' },
    ]);
    expect((await getJson(`${wrongNamespace}/api/v1/health/live`)).status).toBe(200);

    const nothingThere = `127.0.0.1:${await freePort()}`;
    const temporalDown = await extraGateway({ TEMPORAL_ADDRESS: nothingThere });
    const down = await getJson(`${temporalDown}/api/v1/health/ready`);
    expect(down.status).toBe(503);
    expect(down.body.failed.map((f: Json) => f.name)).toEqual(['temporal', 'namespace', 'search_attributes']);
    // The client retries an unreachable server until the checks' 3 s deadline; on a loaded machine the probe's own
    // 5 s bound may come first. Either way the reason is the temporal check.
    expect(down.body.failed[0].reason).toMatch(new RegExp(`^(cannot reach Temporal at ${nothingThere}: no answer within 3 s|did not answer within 5 s)$`));
    expect((await getJson(`${temporalDown}/api/v1/health/live`)).status).toBe(200);
  });

  it('refuses a bad SERVICE_SHUTDOWN_GRACE_SECONDS at startup with one line naming it', async () => {
    const worker = startService(['worker'], { ...stack.env, SERVICE_SHUTDOWN_GRACE_SECONDS: 'soon' });
    expect(await worker.exited).toBe(1);
    expect(worker.output().trim().split('\n')).toEqual(['configuration error: SERVICE_SHUTDOWN_GRACE_SECONDS: expected a whole number from 0 to 3600, got "soon"']);
  });

  it('drains the worker on SIGTERM during a container station: exit 0, no container left, and a new worker carries the ticket on', async () => {
    const key = tracker.state.createIssue({ projectKey: 'HS', issueType: 'Task', summary: 'Greeting' }).key;
    model.script({ tool_call: { name: 'run_command', arguments: JSON.stringify({ command: 'sleep 100' }) } }, { content: 'never reached' });
    const input: TicketWorkflowInput = {
      ticket_key: key, project_key: 'HS', issue_type: 'Task', workflow_kind: 'task_takeover', definition: pinDefinition(definition),
      settings: { effect_timeout_seconds: 10, station_heartbeat_seconds: 10 },
    };
    await client.workflow.start(TICKET_WORKFLOW_TYPE, {
      workflowId: ticketWorkflowId(key), taskQueue: 'it-health-shutdown', args: [input],
      typedSearchAttributes: [{ key: searchAttributes.ticketKey, value: key }],
    });
    await eventually(async () => (model.requests.length >= 1 && (await containersOf(key)) !== '' ? true : undefined), 240_000, 'the container to run the long command');

    const old = stack.worker;
    const signalled = Date.now();
    old.process.kill('SIGTERM');
    // Readiness fails at once, while the station still has its grace.
    const draining = await eventually(async () => {
      const ready = await getJson(`${workerBase()}/health/ready`);
      return ready.status === 503 ? ready.body : undefined;
    }, GRACE_SECONDS * 1000, 'the worker\'s readiness to fail');
    expect(draining.failed).toEqual([{ name: 'shutdown', reason: `the worker is shutting down: it polls no new tasks; running activities get ${GRACE_SECONDS} s, then are cancelled` }]);

    expect(await old.exited).toBe(0);
    const elapsed = Date.now() - signalled;
    // The station was given its grace (it would have run 100 s), and the whole stop fit in the grace plus the margin.
    expect(elapsed).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 200);
    expect(elapsed).toBeLessThan((GRACE_SECONDS + SHUTDOWN_MARGIN_SECONDS) * 1000);
    expect(await containersOf(key)).toBe('');
    expect(old.output()).toContain('SIGTERM received');

    // The cancelled attempt is retried by Temporal on the next worker, this time to the end: nothing is lost.
    model.reset();
    model.script(
      { tool_call: { name: 'edit_file', arguments: JSON.stringify({ path: 'hello.txt', old_text: 'hello, world', new_text: 'hello, workflow' }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: '# Notes\nChanged the greeting.\n' }) } },
      { content: 'Done.' },
    );
    await stack.restartWorker();
    const done = await eventually(async () => {
      const v = await execution(key);
      return v.status === 'completed' ? v : undefined;
    }, 240_000, `${key} to complete on the new worker`);
    expect(done.retry_count).toBe(0);
    expect(done.effects.find((e: Json) => e.operation === 'git.push')).toMatchObject({ status: 'succeeded' });
    expect(scm.state.repo('acme', 'app').branches.get(`service/${key.toLowerCase()}`)).toBeTruthy();
    expect(await containersOf(key)).toBe('');
  }, 600_000);

  it('drains the gateway on SIGTERM: the webhook in flight is answered, readiness fails at once, exit 0', async () => {
    const body = JSON.stringify({ webhookEvent: 'jira:worklog_updated', timestamp: Date.now() });
    const half = Math.floor(body.length / 2);
    const { port } = new URL(stack.api);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => { received += chunk.toString(); });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // The webhook's headers and half its body: the gateway is reading it when the signal comes.
    socket.write([
      'POST /api/v1/webhooks/tracker HTTP/1.1', 'Host: gateway', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Hub-Signature: ${signHmacSha256(body, SECRET)}`, '', body.slice(0, half),
    ].join('\r\n'));
    await new Promise((resolve) => setTimeout(resolve, 300));

    stack.gateway.process.kill('SIGTERM');
    await stack.gateway.waitForOutput(/SIGTERM received/);
    await expect(fetch(`${stack.api}/api/v1/health/live`)).rejects.toThrow();
    // The rest of the body, and on the same connection a readiness probe: answered after the webhook, with 503.
    socket.write(`${body.slice(half)}GET /api/v1/health/ready HTTP/1.1\r\nHost: gateway\r\n\r\n`);
    await closed;

    const answers = received.split(/(?=HTTP\/1\.1 \d{3})/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(JSON.parse(answers[0]!.slice(answers[0]!.indexOf('\r\n\r\n') + 4))).toMatchObject({ ignored: expect.stringContaining('jira:worklog_updated') });
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(answers[1]).toMatch(/connection: close/i);
    expect(JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4))).toMatchObject({
      status: 'not_ready', failed: [{ name: 'shutdown', reason: expect.stringContaining('the gateway is shutting down') }],
    });
    expect(await stack.gateway.exited).toBe(0);
  });
});
