import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinDefinition } from '../../src/definition-rules/definition-digest';
import { podman, resolvePodmanAccount } from '../../src/containers/podman-account';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import type { ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { searchAttributes, ticketWorkflowId, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { TicketWorkflowInput } from '../../workflows/ledger/observation';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';
import { containerEditDefinition } from '../helpers/container-edit-definition';

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
  let client: Client;

  let world: World;

  beforeAll(async () => {
    world = await startWorld({
      name: 'kill-switch',
      tracker: { projects: ['KS'] },
      scm: { github: [REPO], webhooks: false },
      model: true,
      seedRepo: { 'hello.txt': 'hello, world\n' },
      containers: true,
      worker: 'station-test',
      operatorToken: TOKEN,
      env: { TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    ({ scm, model, tracker, stack, client } = world);
  }, 600_000);

  afterAll(async () => {
    await world?.close();
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
