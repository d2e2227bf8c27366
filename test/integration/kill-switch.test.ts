import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pinDefinition } from '../../src/definitions/definition-digest';
import { runGit } from '../../src/containers/git-remote';
import { podman, resolvePodmanAccount } from '../../src/containers/podman-account';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import { startModelSimulator, type ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { searchAttributes, ticketWorkflowId, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { TicketWorkflowInput } from '../../workflows/observation';
import { ensureContainerImage } from '../helpers/container-image';
import { startServiceStack, type ServiceStack } from '../helpers/service-stack';
import { eventually, getJson } from '../helpers/webhooks';
import { containerEditDefinition } from '../helpers/container-edit-definition';

const SCM_TOKEN = 'ghp_killSwitchToken0123456789abcdefghij';
const SECRET = 'kill-switch-tracker-secret';
const TOKEN = 'kill-switch-operator';
const REPO = 'acme/app';
type Json = Record<string, any>;

const definition = containerEditDefinition(REPO);

/**
 * The kill switch (issue 17) on a real container station: the agent runs a long command in a rootless container;
 * the label service:stop (a real signed tracker webhook through the gateway) cancels the station, the container is
 * gone within 10 s, the ticket is blocked with `stopped`; service:retry runs the station again and it completes.
 */
describe('service:stop during a container station', () => {
  let scm: ScmhostSimulator;
  let model: ModelSimulator;
  let tracker: TrackerSimulator;
  let stack: ServiceStack;
  let connection: Connection;
  let client: Client;
  let workDir: string;

  beforeAll(async () => {
    ensureContainerImage();
    workDir = mkdtempSync(join(tmpdir(), 'kill-switch-'));
    chmodSync(workDir, 0o711);
    scm = await startScmhostSimulator({ tokens: { [SCM_TOKEN]: 'service-bot' }, repositories: [REPO] });
    model = await startModelSimulator();
    tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['KS'] });
    const seed = join(workDir, 'seed');
    const auth = { username: 'x-access-token', token: SCM_TOKEN };
    await runGit(['clone', '--quiet', `${scm.url}/${REPO}.git`, seed], { auth });
    writeFileSync(join(seed, 'hello.txt'), 'hello, world\n');
    await runGit(['add', '.'], { cwd: seed });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed'], { cwd: seed });
    await runGit(['push', '--quiet', `${scm.url}/${REPO}.git`, 'HEAD:main'], { cwd: seed, auth });
    stack = await startServiceStack(inject('temporalAddress'), {
      SERVICE_TASK_QUEUE: 'it-kill-switch',
      SERVICE_OPERATOR_TOKEN: TOKEN,
      TRACKER_WEBHOOK_SECRET: SECRET,
      TRACKER_BASE_URL: tracker.url,
      TRACKER_USER_EMAIL: 'service@example.com',
      TRACKER_API_TOKEN: 'tracker-token-kill-switch',
      SCMHOST_TOKEN: SCM_TOKEN,
      SCMHOST_API_URL: scm.url,
      SERVICE_POLL_INTERVAL_SECONDS: '0',
      STATION_CONTROL_DIR: join(workDir, 'control'),
      CONTAINER_TEST_WORK_DIR: join(workDir, 'work'),
      MODEL_SIM_URL: model.url,
    }, { workerScript: join(__dirname, '..', 'helpers', 'station-test-worker.cjs') });
    tracker.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/tracker`, secret: SECRET });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
  }, 600_000);

  afterAll(async () => {
    await connection?.close();
    await stack?.stop();
    await Promise.all([scm?.close(), model?.close(), tracker?.close()]);
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  const execution = async (key: string): Promise<Json> => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body;
  const containersOf = async (key: string) => (await podman(resolvePodmanAccount(), ['ps', '--all', '--filter', `label=service.ticket=${key}`, '--format', '{{.Names}}'])).stdout.trim();

  it('stops the container within 10 s, blocks with stopped, and resumes the station with service:retry', async () => {
    // Not labelled service:managed: the test starts the ticket's workflow itself, on its own definition.
    const key = tracker.state.createIssue({ projectKey: 'KS', issueType: 'Task', summary: 'Greeting' }).key;
    model.script({ tool_call: { name: 'run_command', arguments: JSON.stringify({ command: 'sleep 100' }) } }, { content: 'never reached' });
    const input: TicketWorkflowInput = {
      ticket_key: key, project_key: 'KS', issue_type: 'Task', workflow_kind: 'task_takeover', definition: pinDefinition(definition),
      settings: { effect_timeout_seconds: 10, station_heartbeat_seconds: 10 },
    };
    await client.workflow.start(TICKET_WORKFLOW_TYPE, {
      workflowId: ticketWorkflowId(key), taskQueue: 'it-kill-switch', args: [input],
      typedSearchAttributes: [{ key: searchAttributes.ticketKey, value: key }],
    });
    // The agent is inside its long command.
    await eventually(async () => (model.requests.length >= 1 && (await containersOf(key)) !== '' ? true : undefined), 240_000, 'the container to run the long command');

    const stopped = Date.now();
    tracker.state.updateLabels(key, [{ add: 'service:stop' }]);
    await eventually(async () => ((await containersOf(key)) === '' ? true : undefined), 20_000, 'the container to be removed');
    const elapsed = Date.now() - stopped;
    expect(elapsed).toBeLessThan(10_000);

    const blocked = await eventually(async () => {
      const v = await execution(key);
      return v.status === 'blocked' && v.effects.every((e: Json) => e.status === 'succeeded') ? v : undefined;
    }, 30_000, `${key} blocked with stopped`);
    expect(blocked.blocking).toMatchObject({ code: 'stopped' });
    expect(blocked.current_position).toBe('implement');
    expect(blocked.station_attempts.at(-1)).toMatchObject({ station: 'container_edit', status: 'stopped' });
    const entries = (await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN)).body.entries as Json[];
    const action = entries.find((e) => e.kind === 'operator_action');
    expect(action).toMatchObject({ status: 'stopped', details: { action: 'stop', via: 'service:stop', cancelled_station: 'container_edit', by: 'tracker-email:pat@example.com' } });
    expect(tracker.state.issue(key).labels).toEqual(expect.arrayContaining(['service:blocked']));
    expect(tracker.state.issue(key).labels).not.toContain('service:stop');
    expect(tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body)).some((c) => c.includes('stopped by tracker-email:pat@example.com (service:stop)'))).toBe(true);

    // service:retry: the station runs again at the saved node, this time to the end.
    model.reset();
    model.script(
      { tool_call: { name: 'edit_file', arguments: JSON.stringify({ path: 'hello.txt', old_text: 'hello, world', new_text: 'hello, workflow' }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: '# Notes\nChanged the greeting.\n' }) } },
      { content: 'Done.' },
    );
    tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
    const done = await eventually(async () => {
      const v = await execution(key);
      return v.status === 'completed' ? v : undefined;
    }, 240_000, `${key} to complete after service:retry`);
    expect(done.retry_count).toBe(1);
    expect(done.effects.find((e: Json) => e.operation === 'git.push')).toMatchObject({ status: 'succeeded' });
    expect(scm.state.repo('acme', 'app').branches.get(`service/${key.toLowerCase()}`)).toBeTruthy();
    expect(await containersOf(key)).toBe('');
  }, 600_000);
});
