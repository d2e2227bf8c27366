import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinDefinition } from '../../src/definition-rules/definition-digest';
import { runGit } from '../../src/containers/git-remote';
import type { ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import type { ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { searchAttributes, ticketWorkflowId, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { TicketWorkflowInput } from '../../workflows/ledger/observation';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, WORLD_GITHUB_TOKEN, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';
import { containerEditDefinition } from '../helpers/container-edit-definition';

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
  let client: Client;
  let workDir: string;

  let world: World;

  beforeAll(async () => {
    world = await startWorld({
      name: 'container-workflow',
      tracker: { projects: ['CW'], webhooks: false },
      scm: { github: [REPO], webhooks: false },
      model: true,
      seedRepo: { 'hello.txt': 'hello, world\n' },
      containers: true,
      worker: 'station-test',
      operatorToken: TOKEN,
      env: { EFFECT_OPERATOR_TOKEN: TOKEN, SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    ({ scm, model, tracker, stack, client, workDir } = world);
  }, 600_000);

  afterAll(async () => {
    await world?.close();
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
    await runGit(['clone', '--quiet', '--branch', branch, `${scm.url}/${REPO}.git`, clone], { auth: { username: 'x-access-token', token: WORLD_GITHUB_TOKEN } });
    const log = (await runGit(['log', '--format=%s', 'origin/main..HEAD'], { cwd: clone })).trim().split('\n');
    expect(log).toEqual([`[${issue.key}] Change the greeting`]);
  }, 600_000);
});
