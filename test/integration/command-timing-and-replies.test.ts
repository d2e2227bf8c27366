import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import { markdownToAdf } from '../../src/providers/tracker/adf/markdown-to-adf';
import { jiraWebhookIssue } from '../../src/sandbox/tracker-simulator/tracker-webhook-payloads';
import type { ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import { sandboxResponder } from '../../src/sandbox/model-simulator/sandbox-responder';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { jiraTime } from '../../src/sandbox/tracker-simulator/tracker-state';
import { pollNow } from '../helpers/poller';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

const SECRET = 'timing-tracker-secret';
const TOKEN = 'timing-operator-token';
const TASK_QUEUE = 'it-command-timing';
type Json = Record<string, any>;

/**
 * "Promises to a newcomer kept", points 2 and 4, on the real dev server, gateway and worker with the tracker and model
 * simulators: only what people write after the service took a ticket commands it, on the webhook path (late and
 * edited deliveries) and the poller's (a lookback that spans the moment of management); and a request that means
 * nothing where the ticket stands is answered once, a stray approval label taken off, a retry into the same block
 * said once to persist.
 */
describe('what commands a ticket, and the one answer to what does not', () => {
  let tracker: TrackerSimulator;
  let model: ModelSimulator;
  let world: World;

  beforeAll(async () => {
    world = await startWorld({
      name: 'command-timing',
      tracker: { projects: ['NEW'], repos: ['acme/api'] },
      // Unscripted calls get the sandbox's answers: a bug report with steps passes triage, and the ticket blocks at
      // analyze_bug, which needs a source host this world does not have.
      model: { respond: sandboxResponder },
      operatorToken: TOKEN,
      env: {
        SERVICE_TASK_QUEUE: TASK_QUEUE,
        TRACKER_WEBHOOK_SECRET: SECRET,
        SERVICE_EFFECT_TIMEOUT_SECONDS: '10',
        // Polls only when a test triggers the schedule; the first poll looks back ten minutes.
        SERVICE_POLL_INTERVAL_SECONDS: '3600',
        SERVICE_POLL_LOOKBACK_SECONDS: '600',
      },
    });
    ({ tracker, model } = world);
  });

  afterAll(async () => {
    await world?.close();
  });

  const api = () => world.stack.api;
  const execution = async (key: string): Promise<Json> => (await getJson(`${api()}/api/v1/workflows/${key}/execution`, TOKEN)).body;
  const timeline = async (key: string): Promise<Json[]> => (await getJson(`${api()}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN)).body.entries ?? [];
  const comments = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body));
  const settled = (v: Json) => v.effects?.every((e: Json) => ['succeeded', 'terminal_failure', 'precondition_failure'].includes(e.status));
  const until = (key: string, what: string, test: (v: Json) => boolean, timeoutMs = 60_000) => eventually(async () => {
    const v = await execution(key);
    return v.ticket_key && test(v) && settled(v) ? v : undefined;
  }, timeoutMs, `${key}: ${what}`).catch(async (error: Error) => { throw new Error(`${error.message}; last view: ${JSON.stringify(await execution(key)).slice(0, 2500)}`); });
  /** The command decision on a delivery (a comment's identity up to its `@`), once the workflow acted on it and its writes settled. */
  const decided = async (key: string, identity: string): Promise<Json> => {
    const matches = (id: string) => (identity.endsWith('@') ? id.startsWith(identity) : id === identity);
    const entry = await eventually(async () => (await timeline(key)).find((e) => e.kind === 'command_decision' && matches(String(e.details.delivery_identity ?? ''))), 60_000, `the decision on ${identity}`);
    await until(key, 'its writes settled', () => true);
    return entry;
  };
  const commentIdentity = (id: string) => `tracker:comment:${id}@`;
  const lastChange = (key: string) => `tracker:changelog:${tracker.state.issue(key).histories.at(-1)!.id}`;
  /** Provider clocks tick in milliseconds: a pause keeps "before" and "after" apart. */
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
  const ignoredBeforeManagement = (entry: Json) => entry.status === 'ignored' && entry.details.code === 'before_management';
  const answers = (key: string) => comments(key).filter((c) => c.includes('changed nothing') || c.startsWith('❌'));

  describe('only what people write after the service took the ticket commands it', () => {
    it('on the webhook path: late and redelivered comments and label changes from before service:managed are recorded as ignored, an old comment edited afterwards too', async () => {
      // Not managed yet: the gateway drops these deliveries (no workflow), as it should.
      const issue = tracker.state.createIssue({ projectKey: 'NEW', issueType: 'Bug', summary: 'Crashes on save', description: 'Steps: 1. open a file 2. save it. Expected saved, actual crash.' });
      const command = tracker.state.addComment(issue.key, '/service foo');
      const question = tracker.state.addComment(issue.key, '? is this a known problem');
      tracker.state.updateLabels(issue.key, [{ add: 'service:retry' }]);
      const earlyRetry = lastChange(issue.key);
      await tracker.webhooks.flush();
      const early = tracker.webhooks.deliveries.map((d) => d.payload as Json).filter((p) => p.issue?.key === issue.key && p.webhookEvent !== 'jira:issue_created');
      expect(early).toHaveLength(3);
      await tick();

      // The starting label change itself works: it starts the ticket's workflow.
      tracker.state.updateLabels(issue.key, [{ add: 'service:managed' }]);
      const start = lastChange(issue.key);
      await tracker.webhooks.flush();
      await until(issue.key, 'blocked at the first station this build lacks', (v) => v.status === 'blocked');

      // Jira delivers the earlier webhooks late (a retry after an outage): accepted facts, never commands. It reads the
      // issue when it sends, so each body carries the issue as it is now (updated after management); only the
      // body's timestamp (and a comment's own times) says when the change was made.
      const current = tracker.state.issue(issue.key);
      for (const payload of early) {
        const late = { ...payload, issue: jiraWebhookIssue(tracker.state, current, payload.webhookEvent === 'comment_created' ? 'comment' : 'issue') };
        expect((await postWebhook(`${api()}/api/v1/webhooks/tracker`, late, { secret: SECRET })).status).toBe(200);
      }
      // The old command edited after management: the comment's creation time counts.
      const edit = structuredClone(early.find((p) => p.comment?.id === command.id)!);
      // As Jira Cloud delivers an edit: the same event shape as the creation, the body in wiki markup.
      edit.webhookEvent = 'comment_updated';
      Object.assign(edit.comment, { body: '/service approve', updated: jiraTime() });
      expect((await postWebhook(`${api()}/api/v1/webhooks/tracker`, edit, { secret: SECRET })).status).toBe(200);

      for (const identity of [commentIdentity(command.id), commentIdentity(question.id), earlyRetry]) {
        expect(ignoredBeforeManagement(await decided(issue.key, identity)), identity).toBe(true);
      }
      const edited = (await timeline(issue.key)).filter((e) => e.kind === 'command_decision' && String(e.details.delivery_identity).startsWith(commentIdentity(command.id)));
      expect(edited).toHaveLength(2);
      expect(edited.every(ignoredBeforeManagement)).toBe(true);
      expect(edited[0]!.details).toMatchObject({ managed_since: expect.any(String), management_source: 'label_added' });
      expect(edited[0]!.summary).toMatch(new RegExp(`^before_management: comment ${command.id} was made at .*, before the service took ${issue.key} at .* \\(service:managed was added\\)`));
      // The starting change was judged like any fact (it is no command), not as made before itself.
      expect(ignoredBeforeManagement(await decided(issue.key, start))).toBe(false);

      // Nothing answered the early comments, nothing blocked on `/service foo`; the early service:retry was taken off.
      expect(answers(issue.key)).toEqual([]);
      const view = await execution(issue.key);
      expect(view).toMatchObject({ status: 'blocked', waiting: { code: 'station_not_available' }, retry_count: 0 });
      await eventually(async () => (tracker.state.issue(issue.key).labels.includes('service:retry') ? undefined : true), 30_000, 'the early service:retry to be taken off');

      // What a person writes now is judged where the ticket stands: one answer.
      const now = tracker.state.addComment(issue.key, '? and now');
      expect((await decided(issue.key, commentIdentity(now.id))).status).toBe('ignored');
      expect(answers(issue.key)).toHaveLength(1);
      expect(answers(issue.key)[0]).toContain('`a question (?)` changed nothing');
    });

    it('on the poller path: a lookback that spans the moment of management starts the ticket from its label change and ignores what came before', async () => {
      // Every webhook of this ticket is lost; the poller finds it all in one lookback.
      tracker.webhooks.setTarget(undefined);
      const issue = tracker.state.createIssue({ projectKey: 'NEW', issueType: 'Bug', summary: 'Slow export', description: 'Steps: 1. open a file 2. save it. Expected saved, actual crash.' });
      const command = tracker.state.addComment(issue.key, '/service foo');
      const question = tracker.state.addComment(issue.key, '? is this a known problem');
      const note = tracker.state.addComment(issue.key, 'notes from the call');
      tracker.state.updateLabels(issue.key, [{ add: 'service:retry' }]);
      const earlyRetry = lastChange(issue.key);
      tracker.state.updateLabels(issue.key, [{ add: 'service:plan-approved' }]);
      const earlyApproval = lastChange(issue.key);
      await tick();
      tracker.state.updateLabels(issue.key, [{ add: 'service:managed' }]);
      const start = lastChange(issue.key);
      await tick();
      // An old comment edited after management (Jira keeps its creation time), and a question written afterwards.
      Object.assign(note, { body: markdownToAdf('/service rebase'), updated: jiraTime() });
      const after = tracker.state.addComment(issue.key, '? written after management');
      tracker.webhooks.setTarget({ url: `${api()}/api/v1/webhooks/tracker`, secret: SECRET });

      await pollNow(world.client, TASK_QUEUE);
      for (const identity of [commentIdentity(command.id), commentIdentity(question.id), commentIdentity(note.id), earlyRetry, earlyApproval]) {
        expect(ignoredBeforeManagement(await decided(issue.key, identity)), identity).toBe(true);
      }
      // Both early request labels are taken off, each by a write of its own (they arrived in one batch).
      await eventually(async () => {
        const labels = tracker.state.issue(issue.key).labels;
        return labels.includes('service:retry') || labels.includes('service:plan-approved') ? undefined : true;
      }, 30_000, 'the early request labels to be taken off');
      // The label change started the ticket: the poller hands it over before the creation, whose labels are today's.
      const decisions = (await timeline(issue.key)).filter((e) => e.kind === 'observation_decision');
      expect(decisions[0]!.details).toMatchObject({ delivery_identity: start, source: 'poller', event: 'issue_updated' });
      expect(decisions.find((e) => e.details.event === 'issue_created')).toMatchObject({ status: 'accepted', details: { source: 'poller' } });
      const early = (await timeline(issue.key)).find((e) => e.kind === 'command_decision' && e.details.delivery_identity === earlyRetry)!;
      expect(early.details).toMatchObject({ management_source: 'label_added', code: 'before_management' });

      const answered = await decided(issue.key, commentIdentity(after.id));
      expect(ignoredBeforeManagement(answered)).toBe(false);
      await until(issue.key, 'blocked at the first station this build lacks', (v) => v.status === 'blocked');
      expect(answers(issue.key)).toHaveLength(1);
      expect(answers(issue.key)[0]).toContain('`a question (?)` changed nothing');
      expect(comments(issue.key).filter((c) => c.includes('**Blocked**'))).toHaveLength(1);
      expect(comments(issue.key).some((c) => c.includes('unrecognized_command'))).toBe(false);
    });
  });

  describe('commands written in a row', () => {
    it('two questions and the approval written together at the PRD gate: each question is answered once, then the approval passes the gate (none is judged at the question\'s station)', async () => {
      model.script({ content: JSON.stringify({ title: 'CSV export', markdown: '## Problem and goal\n\nExport reports as CSV.' }) });
      const key = tracker.state.createIssue({ projectKey: 'NEW', issueType: 'Feature', summary: 'Export in a row', description: 'Users want CSV exports.', labels: ['service:managed'] }).key;
      await until(key, 'paused at the PRD gate', (v) => v.current_position === 'prd_approval_gate' && v.checkpoint.is_paused, 120_000);

      model.script({ content: JSON.stringify({ answer: 'CSV and JSON are in scope.' }) }, { content: JSON.stringify({ answer: 'The finance team reads it.' }) });
      const asked = [tracker.state.addComment(key, '? which formats are in scope'), tracker.state.addComment(key, '? who reads the report')];
      tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
      const approval = lastChange(key);
      const passed = await until(key, 'past the PRD gate with both questions answered', (v) => v.artifacts.prd?.approved === true
        && v.station_attempts.filter((a: Json) => a.station === 'answer_question' && a.status === 'succeeded').length === 2, 120_000);
      expect(passed.current_position).not.toBe('prd_approval_gate');
      expect(comments(key).filter((c) => c.includes('CSV and JSON are in scope.'))).toHaveLength(1);
      expect(comments(key).filter((c) => c.includes('The finance team reads it.'))).toHaveLength(1);
      for (const identity of [...asked.map((c) => commentIdentity(c.id)), approval]) {
        expect((await decided(key, identity)).status, identity).toBe('accepted');
      }
      expect(answers(key)).toEqual([]);
    });
  });

  describe('a request that means nothing where the ticket stands gets one reply', () => {
    it('at the PRD gate: `/service approve` and a stray service:spec-approved are answered once each, the label taken off every time; permitted_commands offers no rebase', async () => {
      model.script({ content: JSON.stringify({ title: 'CSV export', markdown: '## Problem and goal\n\nExport reports as CSV.' }) });
      const key = tracker.state.createIssue({ projectKey: 'NEW', issueType: 'Feature', summary: 'Export reports', description: 'Users want CSV exports.', labels: ['service:managed'] }).key;
      const gate = await until(key, 'paused at the PRD gate', (v) => v.current_position === 'prd_approval_gate' && v.checkpoint.is_paused, 120_000);
      expect(gate.permitted_commands).toEqual(expect.arrayContaining(['service:prd-approved', 'feedback (!)', 'a question (?)']));
      expect(gate.permitted_commands).not.toContain('/service rebase');
      expect(gate.permitted_commands).not.toContain('/service approve');
      expect(answers(key)).toEqual([]);

      const first = tracker.state.addComment(key, '/service approve');
      expect((await decided(key, commentIdentity(first.id))).status).toBe('ignored');
      expect(answers(key)).toEqual([[
        'ℹ️ `/service approve` changed nothing: /service approve is not meaningful at prd_approval_gate (only at plan_approval_gate, task_approval_gate).',
        `${key} waits at \`prd_approval_gate\`: approval of the PRD: add the label service:prd-approved (or comment \`!\` to revise, \`?\` to ask).`,
        `Meaningful here now: ${gate.permitted_commands.join(', ')}.`,
      ].join('\n\n')]);
      // The same wrong command at the same position: recorded, not answered again.
      const second = tracker.state.addComment(key, '/service approve');
      expect((await decided(key, commentIdentity(second.id))).status).toBe('ignored');
      expect(answers(key)).toHaveLength(1);

      for (let round = 1; round <= 2; round += 1) {
        tracker.state.updateLabels(key, [{ add: 'service:spec-approved' }]);
        expect((await decided(key, lastChange(key))).status).toBe('ignored');
        await eventually(async () => (tracker.state.issue(key).labels.includes('service:spec-approved') ? undefined : true), 30_000, `the stray label taken off (round ${round})`);
      }
      const labelAnswers = answers(key).filter((c) => c.startsWith('ℹ️ `service:spec-approved`'));
      expect(labelAnswers).toHaveLength(1);
      expect(labelAnswers[0]).toContain(`${key} waits at \`prd_approval_gate\``);
      expect(labelAnswers[0]).toContain('The label `service:spec-approved` was taken off again.');
      expect(answers(key)).toHaveLength(2);
      const still = await until(key, 'still at the PRD gate', (v) => v.current_position === 'prd_approval_gate');
      expect(still.artifacts.prd.approved).toBe(false);
    });

    it('service:retry on a block whose cause did not change: the block comment is not posted again, the cause is said once to persist', async () => {
      const key = tracker.state.createIssue({ projectKey: 'NEW', issueType: 'Bug', summary: 'Wrong totals', description: 'Steps: 1. open a file 2. save it. Expected saved, actual crash.', labels: ['service:managed'] }).key;
      const blocked = await until(key, 'blocked: analysis needs a source host this world lacks', (v) => v.status === 'blocked' && v.waiting?.code === 'station_not_available');
      expect(blocked.permitted_commands).toEqual(['service:retry', 'service:yolo']);
      const blockComments = () => comments(key).filter((c) => c.startsWith('🚫'));
      expect(blockComments()).toHaveLength(1);
      expect(blockComments()[0]).toMatch(/^🚫 \*\*Blocked\*\* at `analyze_bug`/);

      tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
      await until(key, 'blocked again after the first retry', (v) => v.retry_count === 1 && v.status === 'blocked');
      expect(blockComments()).toHaveLength(2);
      expect(blockComments()[1]).toMatch(/^🚫 \*\*Still blocked\*\* at `analyze_bug`: service:retry ran it again and it stopped for the same reason \(`station_not_available`\)/);

      tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
      const again = await until(key, 'blocked again after the second retry', (v) => v.retry_count === 2 && v.status === 'blocked');
      expect(blockComments()).toHaveLength(2);
      expect(again.station_attempts.filter((a: Json) => a.station === 'analyze_bug').map((a: Json) => a.status)).toEqual(['not_available', 'not_available', 'not_available']);
      const blocks = (await timeline(key)).filter((e) => e.kind === 'transition' && e.status === 'blocked');
      expect(blocks.map((e) => e.details.repeats ?? 0)).toEqual([0, 1, 2]);
      await eventually(async () => {
        const labels = tracker.state.issue(key).labels;
        return labels.includes('service:blocked') && !labels.includes('service:retry') ? true : undefined;
      }, 30_000, 'service:blocked back on, service:retry off');
    });
  });
});
