import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pinDefinition } from '../../src/definitions/definition-digest';
import { runGit } from '../../src/containers/git-remote';
import { startModelSimulator, type ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { searchAttributes, ticketWorkflowId, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { TicketWorkflowInput } from '../../workflows/observation';
import { ensureContainerImage } from '../helpers/container-image';
import { startServiceStack, type ServiceStack } from '../helpers/service-stack';
import { eventually, getJson } from '../helpers/webhooks';
import { containerEditDefinition } from '../helpers/container-edit-definition';

const SCM_TOKEN = 'ghp_workflowContainerToken0123456789abcd';
const TOKEN = 'container-workflow-operator';
const REPO = 'acme/app';
type Json = Record<string, any>;

const definition = containerEditDefinition(REPO);

/**
 * A container station inside the ticket workflow: the agent edits a file in a rootless container, the host commits,
 * and the workflow pushes as an effect. The push lands on the remote and its answer never comes (the worker is
 * killed meanwhile); after the restart the effect looks at the remote head first and adopts the push: one commit.
 */
describe('a container station in the ticket workflow', () => {
  let scm: ScmhostSimulator;
  let model: ModelSimulator;
  let tracker: TrackerSimulator;
  let stack: ServiceStack;
  let connection: Connection;
  let client: Client;
  let workDir: string;

  beforeAll(async () => {
    ensureContainerImage();
    workDir = mkdtempSync(join(tmpdir(), 'container-workflow-'));
    chmodSync(workDir, 0o711);
    scm = await startScmhostSimulator({ tokens: { [SCM_TOKEN]: 'service-bot' }, repositories: [REPO] });
    model = await startModelSimulator();
    tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['CW'] });
    const seed = join(workDir, 'seed');
    const auth = { username: 'x-access-token', token: SCM_TOKEN };
    await runGit(['clone', '--quiet', `${scm.url}/${REPO}.git`, seed], { auth });
    writeFileSync(join(seed, 'hello.txt'), 'hello, world\n');
    await runGit(['add', '.'], { cwd: seed });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed'], { cwd: seed });
    await runGit(['push', '--quiet', `${scm.url}/${REPO}.git`, 'HEAD:main'], { cwd: seed, auth });
    stack = await startServiceStack(inject('temporalAddress'), {
      SERVICE_TASK_QUEUE: 'it-container-workflow',
      SERVICE_OPERATOR_TOKEN: TOKEN,
      EFFECT_OPERATOR_TOKEN: TOKEN,
      TRACKER_BASE_URL: tracker.url,
      TRACKER_USER_EMAIL: 'service@example.com',
      TRACKER_API_TOKEN: 'tracker-token-container-workflow',
      SCMHOST_TOKEN: SCM_TOKEN,
      SCMHOST_API_URL: scm.url,
      SERVICE_POLL_INTERVAL_SECONDS: '0',
      STATION_CONTROL_DIR: join(workDir, 'control'),
      CONTAINER_TEST_WORK_DIR: join(workDir, 'work'),
      MODEL_SIM_URL: model.url,
    }, { workerScript: join(__dirname, '..', 'helpers', 'station-test-worker.cjs') });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
  }, 600_000);

  afterAll(async () => {
    await connection?.close();
    await stack?.stop();
    await Promise.all([scm?.close(), model?.close(), tracker?.close()]);
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('pushes the commit exactly once when the worker is killed after the push and before its answer', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'CW', issueType: 'Task', summary: 'Greeting' });
    model.script(
      { tool_call: { name: 'edit_file', arguments: JSON.stringify({ path: 'hello.txt', old_text: 'hello, world', new_text: 'hello, workflow' }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: '# Notes\nChanged the greeting.\n' }) } },
      { content: 'Done.' },
    );
    // The push is applied by the remote, and its answer is held back until the worker is gone.
    scm.faults.enqueue({ match: { method: 'POST', path: /git-receive-pack$/ }, kind: 'apply-then-timeout', holdMs: 60_000, times: 1 });
    const input: TicketWorkflowInput = {
      ticket_key: issue.key, project_key: 'CW', issue_type: 'Task', workflow_kind: 'task_takeover', definition: pinDefinition(definition),
      settings: { effect_timeout_seconds: 10, station_heartbeat_seconds: 10 },
    };
    await client.workflow.start(TICKET_WORKFLOW_TYPE, {
      workflowId: ticketWorkflowId(issue.key), taskQueue: 'it-container-workflow', args: [input],
      typedSearchAttributes: [{ key: searchAttributes.ticketKey, value: issue.key }],
    });
    const branch = `service/${issue.key.toLowerCase()}`;
    const repo = scm.state.repo('acme', 'app');
    const pushed = await eventually(async () => repo.branches.get(branch), 240_000, 'the push to reach the remote');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    await stack.restartWorker();

    const view = await eventually(async () => {
      const body = (await getJson(`${stack.api}/api/v1/workflows/${issue.key}/execution`, TOKEN)).body;
      return body.status === 'completed' ? body : undefined;
    }, 120_000, `${issue.key} to complete`);
    const push = view.effects.find((e: Json) => e.operation === 'git.push');
    expect(push).toMatchObject({ status: 'succeeded', required: true });
    const detail = await (await fetch(`${stack.api}/api/v1/effects/${encodeURIComponent(push.idempotency_key)}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as Json;
    expect(detail.effect.attempts.map((a: Json) => a.status)).toEqual(['indeterminate', 'succeeded']);
    expect(detail.effect.attempts[1].evidence.adopted).toBe(true);
    expect(repo.branches.get(branch)).toBe(pushed);
    // One commit on top of main: the service's, with the station's message.
    const clone = join(workDir, 'check');
    await runGit(['clone', '--quiet', '--branch', branch, `${scm.url}/${REPO}.git`, clone], { auth: { username: 'x-access-token', token: SCM_TOKEN } });
    const log = (await runGit(['log', '--format=%s', 'origin/main..HEAD'], { cwd: clone })).trim().split('\n');
    expect(log).toEqual([`[${issue.key}] Change the greeting`]);
  }, 600_000);
});
