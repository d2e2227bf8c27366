import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinDefinition } from '../../src/definition-rules/definition-digest';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import type { WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import { searchAttributes, ticketWorkflowId, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { TicketWorkflowInput } from '../../workflows/ledger/observation';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { fixture } from '../helpers/fixtures';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

const SECRET = 'runtime-tracker-secret';
const TOKEN = 'runtime-operator-token';
const TASK_QUEUE = 'it-station-runtime';
type Json = Record<string, any>;

/** Two stations and a gate: the shape of every planning stage, with stations the test worker controls. */
function noteDefinition(revision: number, approvedTo: 'publish' | 'done' = 'publish', entry = 'draft'): WorkflowDefinition {
  return {
    apiVersion: 'service/v1', name: 'note', revision, entry,
    nodes: {
      draft: { kind: 'station', station: 'draft_note', retry_bound: 2, on: { drafted: 'review_gate' } },
      broken: { kind: 'station', station: 'broken_note', on: { drafted: 'review_gate' } },
      review_gate: {
        kind: 'gate', gate: 'artifact_approval', artifact: 'note', pending_label: 'service:note-pending',
        accepts: ['service:prd-approved', 'feedback (!)', 'service:retry at a paused gate'], waiting_for: 'approval of the note',
        on: { approved: approvedTo, feedback: 'draft', regenerate: 'draft' },
      },
      publish: { kind: 'station', station: 'publish_note', on: { published: 'done' } },
      escalate_blocked: { kind: 'end', result: 'blocked', code: 'retry_bound_exhausted', message: 'the note was revised too often' },
      done: { kind: 'end', result: 'completed' },
    },
  };
}

describe('the station runtime walks a pinned definition', () => {
  let tracker: TrackerSimulator;
  let running: World;
  let stack: ServiceStack;
  let client: Client;
  const control = mkdtempSync(join(tmpdir(), 'station-control-'));

  beforeAll(async () => {
    running = await startWorld({
      name: 'station-runtime',
      tracker: { projects: ['RT'] },
      worker: 'station-test',
      operatorToken: TOKEN,
      env: {
        SERVICE_TASK_QUEUE: TASK_QUEUE,
        TRACKER_WEBHOOK_SECRET: SECRET,
        SERVICE_EFFECT_TIMEOUT_SECONDS: '5',
        SERVICE_POLL_INTERVAL_SECONDS: '0',
        STATION_CONTROL_DIR: control,
      },
    });
    ({ tracker, stack, client } = running);
  });

  afterAll(async () => {
    await running?.close();
    rmSync(control, { recursive: true, force: true });
  });

  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body;
  const timeline = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN)).body;
  const comments = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body)).filter((c) => !/^[!/?]/.test(c));
  const calls = () => (existsSync(join(control, 'calls.log')) ? readFileSync(join(control, 'calls.log'), 'utf8').trim().split('\n') : []);
  const triggers = (key: string) => readFileSync(join(control, 'triggers.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    .filter((entry) => entry.ticket_key === key).map(({ visit, trigger, retry_count }) => ({ visit, trigger, retry_count }));
  const settled = (body: Json) => body.effects?.every((e: Json) => ['succeeded', 'terminal_failure', 'precondition_failure'].includes(e.status));

  /** A ticket in the tracker (not managed, so its own webhook starts nothing) and its workflow on `definition`. */
  async function startTicket(definition: WorkflowDefinition, settings: TicketWorkflowInput['settings'] = {}): Promise<string> {
    const issue = tracker.state.createIssue({ projectKey: 'RT', issueType: 'Story', summary: 'A note' });
    const input: TicketWorkflowInput = {
      ticket_key: issue.key, project_key: 'RT', issue_type: 'Story', workflow_kind: 'feature', definition: pinDefinition(definition),
      settings: { effect_timeout_seconds: 5, station_heartbeat_seconds: 3, ...settings },
    };
    await client.workflow.start(TICKET_WORKFLOW_TYPE, {
      workflowId: ticketWorkflowId(issue.key), taskQueue: TASK_QUEUE, args: [input],
      typedSearchAttributes: [{ key: searchAttributes.ticketKey, value: issue.key }, { key: searchAttributes.workflowType, value: 'feature' }],
    });
    return issue.key;
  }

  async function waitFor(key: string, what: string, predicate: (view: Json) => boolean, timeoutMs = 60_000): Promise<Json> {
    return eventually(async () => {
      const view = await execution(key);
      return view.ticket_key && settled(view) && predicate(view) ? view : undefined;
    }, timeoutMs, `${key}: ${what}`).catch(async (error: Error) => { throw new Error(`${error.message}; last view: ${JSON.stringify(await execution(key)).slice(0, 3000)}`); });
  }

  it('pauses at the gate, revises on !, escalates at the retry bound, resumes on service:retry, blocks on an unknown command, completes on approval; continuing as new along the way', async () => {
    const key = await startTicket(noteDefinition(1), { history_event_limit: 60 });
    const atGate = await waitFor(key, 'paused at the gate', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused);
    expect(atGate).toMatchObject({
      status: 'waiting', definition: { name: 'note', revision: 1, digest: pinDefinition(noteDefinition(1)).digest },
      waiting: { code: 'gate', message: 'approval of the note' },
      permitted_commands: expect.arrayContaining(['service:prd-approved', 'feedback (!)', 'service:yolo']),
      next_transitions: [{ outcome: 'approved', target: 'publish' }, { outcome: 'feedback', target: 'draft' }, { outcome: 'regenerate', target: 'draft' }],
      station_attempts: [{ station: 'draft_note', node: 'draft', visit: 1, status: 'succeeded', outcome: 'drafted', effects: 1 }],
    });
    expect(tracker.state.issue(key).labels).toContain('service:note-pending');
    expect(comments(key)).toEqual(['Note v1']);

    tracker.state.addComment(key, '! make it shorter');
    await waitFor(key, 'the revision at the gate', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused && v.station_attempts.length === 2);
    expect(comments(key)).toEqual(['Note v1', 'Note v2: make it shorter']);

    // A third draft would pass the bound of two: the ticket escalates and blocks instead of looping.
    tracker.state.addComment(key, '! and again');
    const escalated = await waitFor(key, 'escalated', (v) => v.status === 'blocked');
    expect(escalated).toMatchObject({ current_position: 'escalate_blocked', waiting: { code: 'retry_bound_exhausted' }, permitted_commands: expect.arrayContaining(['service:retry']) });
    expect(comments(key).at(-1)).toMatch(/^🚫 \*\*Blocked\*\* at `escalate_blocked`: the note was revised too often; service:retry resumes at draft/);
    expect(tracker.state.issue(key).labels).toContain('service:blocked');

    tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
    const resumed = await waitFor(key, 'resumed and drafted again', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused && v.retry_count === 1);
    expect(resumed.station_attempts.map((a: Json) => a.visit)).toEqual([1, 2, 3]);
    // The revision that was asked for when the bound ran out is the one made on retry.
    expect(comments(key).at(-1)).toBe('Note v3: and again');
    expect(tracker.state.issue(key).labels).not.toContain('service:blocked');
    expect(tracker.state.issue(key).labels).not.toContain('service:retry');

    tracker.state.addComment(key, '/service frobnicate');
    await waitFor(key, 'blocked on the unknown command', (v) => v.status === 'blocked' && v.waiting.code === 'unrecognized_command');
    tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
    const back = await waitFor(key, 'back at the gate', (v) => v.status === 'waiting' && v.retry_count === 2 && !v.checkpoint.is_blocked);
    expect(back).toMatchObject({ current_position: 'review_gate', checkpoint: { is_paused: true } });

    tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    const done = await waitFor(key, 'completed', (v) => v.status === 'completed');
    expect(done.current_position).toBe('done');
    expect(comments(key).filter((c) => c.startsWith('Published'))).toEqual(['Published (approved): Note v3: and again']);
    expect(tracker.state.issue(key).labels).not.toContain('service:note-pending');
    // Exactly one write per logical action: every note once, in order, whatever was retried.
    expect(comments(key).filter((c) => c.startsWith('Note'))).toEqual(['Note v1', 'Note v2: make it shorter', 'Note v3: and again']);

    const entries = (await timeline(key)).entries as Json[];
    expect(entries.some((e) => e.kind === 'workflow_continued')).toBe(true);
    expect(entries.filter((e) => e.kind === 'transition').map((e) => e.summary).at(-1)).toBe('Completed at done');
    const described = await client.workflow.getHandle(ticketWorkflowId(key)).describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.runId).not.toBe(done.run_id);
    expect(await (await fetch(stack.workerMetricsUrl)).text()).toMatch(/service_phase_duration_seconds_count\{phase="review_gate"\} [1-9]/);
    // The service's own label writes (the pending label, service:blocked, removing service:retry) came back from the
    // tracker as webhooks and were dropped at the gateway: the ticket decided only the three label changes a person made.
    const labelChanges = entries.filter((e) => e.kind === 'observation_decision' && e.details.event === 'issue_updated');
    expect(labelChanges.map((e) => e.details.facts.label_change.added)).toEqual([['service:retry'], ['service:retry'], ['service:prd-approved']]);
    expect(await (await fetch(`${stack.api}/metrics`)).text()).toMatch(/service_webhooks_ignored_total\{source="tracker",reason="own_change"\} [1-9]/);
    // What each draft's traces name as event_source/event_type: the delivery that sent the ticket back to the draft,
    // carried across continue-as-new (none for the first: this ticket was started without a delivery).
    expect(triggers(key)).toEqual([
      { visit: 1, trigger: null, retry_count: 0 },
      { visit: 2, trigger: { source_system: 'tracker', event: 'issue_commented' }, retry_count: 0 },
      { visit: 3, trigger: { source_system: 'tracker', event: 'issue_updated' }, retry_count: 1 },
    ]);
  });

  it('resumes a station at the same node when its worker is killed in the middle, with no duplicate write', async () => {
    const definition = noteDefinition(1);
    const key = await (async () => {
      // The slow file must exist before the station starts: name it after the key the simulator hands out next.
      const probe = tracker.state.createIssue({ projectKey: 'RT', issueType: 'Story', summary: 'probe' });
      const next = `RT-${Number(probe.key.split('-')[1]) + 1}`;
      writeFileSync(join(control, `slow-${next}`), '');
      const started = await startTicket(definition);
      expect(started).toBe(next);
      return started;
    })();
    await eventually(async () => (existsSync(join(control, `started-${key}`)) ? true : undefined), 60_000, 'the station to start');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    await stack.restartWorker();
    writeFileSync(join(control, `release-${key}`), '');
    const view = await waitFor(key, 'at the gate after the restart', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused, 90_000);
    expect(calls().filter((line) => line.startsWith(`draft_note ${key} `))).toEqual([`draft_note ${key} draft 1`, `draft_note ${key} draft 1`]);
    expect(view.station_attempts).toHaveLength(1);
    expect(comments(key)).toEqual(['Note v1']);
  });

  it('pins the definition a run started on: a newer revision changes nothing in flight', async () => {
    const first = await startTicket(noteDefinition(1, 'publish'));
    await waitFor(first, 'at the gate', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused);
    await stack.restartWorker();
    const second = await startTicket(noteDefinition(2, 'done'));
    await waitFor(second, 'at the gate', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused);
    tracker.state.updateLabels(first, [{ add: 'service:prd-approved' }]);
    tracker.state.updateLabels(second, [{ add: 'service:prd-approved' }]);
    const one = await waitFor(first, 'completed on r1', (v) => v.status === 'completed');
    const two = await waitFor(second, 'completed on r2', (v) => v.status === 'completed');
    expect(one.definition.revision).toBe(1);
    expect(two.definition.revision).toBe(2);
    expect(comments(first).some((c) => c.startsWith('Published'))).toBe(true);
    expect(comments(second).some((c) => c.startsWith('Published'))).toBe(false);
  });

  it('blocks with invalid_station_result when a station breaks the contract, and runs none of its writes', async () => {
    const key = await startTicket(noteDefinition(1, 'publish', 'broken'));
    const view = await waitFor(key, 'blocked', (v) => v.status === 'blocked');
    expect(view).toMatchObject({ current_position: 'broken', waiting: { code: 'invalid_station_result' } });
    expect(view.checkpoint.last_error).toMatch(/broken_note returned an invalid result: broken_note: effects.0.name: an effect name is lower_snake_case/);
    expect(comments(key)).toHaveLength(1);
    expect(comments(key)[0]).toContain('invalid_station_result');
  });

  // The two blocks the step decides without a station: contradicting deliveries, and a run no definition serves.
  it('blocks with conflicting_evidence when a delivery comes again with other content, and service:retry goes on at the gate', async () => {
    const key = await startTicket(noteDefinition(4));
    await waitFor(key, 'at the gate', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused);
    // A label the service does not read, delivered by the simulator as Jira sends it; then the same change again
    // (the same changelog id) saying something else.
    tracker.state.updateLabels(key, [{ add: 'customer-acme' }]);
    await tracker.webhooks.flush();
    const sent = tracker.webhooks.deliveries.map((d) => d.payload as Json).filter((p) => p.issue?.key === key && p.changelog).at(-1)!;
    const contradicting = structuredClone(sent);
    contradicting.changelog.items = [{ field: 'labels', fieldtype: 'jira', fromString: 'service:note-pending', toString: 'customer-other service:note-pending' }];
    expect((await postWebhook(`${stack.api}/api/v1/webhooks/tracker`, contradicting, { secret: SECRET })).status).toBe(200);
    const blocked = await waitFor(key, 'blocked on the contradiction', (v) => v.status === 'blocked' && v.waiting.code === 'conflicting_evidence');
    expect(blocked.current_position).toBe('review_gate');
    expect(blocked.waiting.message).toBe(`conflicting provider evidence: delivery tracker:changelog:${sent.changelog.id} was accepted before with different content`);
    expect(tracker.state.issue(key).labels).toContain('service:blocked');
    expect(comments(key).filter((c) => c.includes('**Blocked** at `review_gate`: conflicting provider evidence'))).toHaveLength(1);

    tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
    const resumed = await waitFor(key, 'waiting at the gate again', (v) => v.status === 'waiting' && v.waiting.code === 'gate');
    expect(resumed).toMatchObject({ current_position: 'review_gate', retry_count: 1 });
    expect(tracker.state.issue(key).labels).not.toContain('service:blocked');
  });

  it('blocks with missing_workflow_route, saying why, when the run has no definition for its issue type', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'RT', issueType: 'Sub-task', summary: 'A sub-task' });
    const reason = 'no workflow definition serves issue type "Sub-task" (project RT)';
    const input: TicketWorkflowInput = { ticket_key: issue.key, project_key: 'RT', issue_type: 'Sub-task', workflow_kind: 'feature', definition: null, route_error: reason };
    await client.workflow.start(TICKET_WORKFLOW_TYPE, {
      workflowId: ticketWorkflowId(issue.key), taskQueue: TASK_QUEUE, args: [input],
      typedSearchAttributes: [{ key: searchAttributes.ticketKey, value: issue.key }, { key: searchAttributes.workflowType, value: 'feature' }],
    });
    const view = await waitFor(issue.key, 'blocked without a route', (v) => v.status === 'blocked');
    expect(view.waiting).toMatchObject({ code: 'missing_workflow_route', message: reason });
    expect(comments(issue.key)).toEqual([expect.stringContaining(`**Blocked**`)]);
    expect(comments(issue.key)[0]).toContain(reason);
    expect(tracker.state.issue(issue.key).labels).toContain('service:blocked');
  });

  it('keeps its state a small payload: multi-megabyte comments and hundreds of deliveries through several continue-as-new cycles', async () => {
    const key = await startTicket(noteDefinition(1), { history_event_limit: 150 });
    await waitFor(key, 'at the gate', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused);
    const log = 'a pasted log line that goes on and on\n'.repeat(80_000);
    // Jira caps comments far below this; a delivery can still carry it (a relay, a custom field, a replayed payload).
    for (let i = 0; i < 3; i += 1) {
      const payload = fixture<Json>('tracker/jira-comment-created.json');
      payload.issue.key = key;
      payload.comment.id = String(900_000 + i);
      payload.comment.body = `crash log ${i}\n${log}`;
      expect((await postWebhook(`${stack.api}/api/v1/webhooks/tracker`, payload, { secret: SECRET })).status).toBe(200);
    }
    for (let i = 0; i < 250; i += 1) tracker.state.addComment(key, `note ${i}`);
    await tracker.webhooks.flush();
    expect(log.length).toBeGreaterThan(3_000_000);
    const view = await eventually(async () => {
      const body = await execution(key);
      return body.observations_received >= 253 ? body : undefined;
    }, 120_000, `${key} to record every delivery`);
    // 3 + 250 comments; the service's own pending label came back too and was dropped at the gateway.
    expect(view.observation_decisions).toMatchObject({ accepted: 253, duplicate: 0 });
    expect(JSON.stringify(view).length).toBeLessThan(200_000);
    let runs = 0;
    for await (const _ of client.workflow.list({ query: `WorkflowId = "${ticketWorkflowId(key)}"` })) runs += 1;
    expect(runs).toBeGreaterThanOrEqual(3);
    // The chain still works: the gate approves and the ticket completes.
    tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    await waitFor(key, 'completed', (v) => v.status === 'completed', 90_000);
    const page = (await timeline(key)) as Json;
    expect(JSON.stringify(page).length).toBeLessThan(400_000);
  });

  it('answers an unknown command once, lets the corrected command clear its block, and answers a request after the end once', async () => {
    const key = await startTicket(noteDefinition(3, 'done'));
    await waitFor(key, 'at the gate', (v) => v.current_position === 'review_gate' && v.checkpoint.is_paused);
    const before = comments(key).length;
    tracker.state.addComment(key, '/service aprove');
    await waitFor(key, 'blocked on the typo', (v) => v.status === 'blocked' && v.waiting.code === 'unrecognized_command');
    const answers = comments(key).slice(before);
    // One comment: what was wrong, the verb meant, that it blocks, and the two ways on.
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain('unknown command "aprove"');
    expect(answers[0]).toContain('Did you mean `/service approve`?');
    expect(answers[0]).toContain('blocks the ticket (`unrecognized_command`) at `review_gate`');
    expect(answers[0]).toContain('clears the block by itself');
    expect(tracker.state.issue(key).labels).toContain('service:blocked');

    // The corrected request (here the gate's approval label) clears the block and is carried out.
    tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    const done = await waitFor(key, 'completed', (v) => v.status === 'completed');
    expect(done.retry_count).toBe(1);
    expect(tracker.state.issue(key).labels).not.toContain('service:blocked');
    expect(comments(key).filter((c) => c.includes('**Blocked**'))).toEqual([]);

    // After the end: a request is answered once, saying the workflow has ended, however often it is written.
    tracker.state.updateLabels(key, [{ add: 'service:managed' }]);
    tracker.state.addComment(key, '/service rebase');
    const ended = await eventually(async () => {
      const replies = comments(key).filter((c) => c.startsWith('ℹ️'));
      return replies.length > 0 ? replies : undefined;
    }, 60_000, `${key} to answer the request after its end`);
    expect(ended).toEqual([expect.stringContaining(`\`/service rebase\` changed nothing: the service's workflow for ${key} has ended (it completed on `)]);
    tracker.state.addComment(key, '/service rebase');
    tracker.state.addComment(key, 'thanks, all good');
    await tracker.webhooks.flush();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(comments(key).filter((c) => c.startsWith('ℹ️'))).toHaveLength(1);
  });
});
