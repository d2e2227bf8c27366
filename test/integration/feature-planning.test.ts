import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';

const SECRET = 'planning-tracker-secret';
const TOKEN = 'planning-operator-token';
type Json = Record<string, any>;

const prd = (title: string, body: string) => ({ content: JSON.stringify({ title, markdown: `## Problem and goal\n\n${body}` }) });
const epic = (summary: string) => ({ summary, description: `${summary}, end to end.`, repo: 'acme/api', acceptance_criteria: [`${summary} works`] });
const task = (epicId: number, summary: string) => ({ epic_id: epicId, summary, description: `Do ${summary}.`, acceptance_criteria: [`${summary} is tested`] });

/**
 * A Feature ticket from creation to provisioned tasks, on the real dev server, the real worker and gateway, the
 * tracker simulator and a scripted model: what a user sees in the tracker at every gate.
 */
describe('feature planning end to end', () => {
  let world: World;
  let tracker: TrackerSimulator;
  let model: ModelSimulator;
  let stack: ServiceStack;

  beforeAll(async () => {
    world = await startWorld({
      name: 'feature-planning',
      tracker: { projects: ['PLN'], repos: ['acme/api'] },
      model: true,
      operatorToken: TOKEN,
      env: { TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_EFFECT_TIMEOUT_SECONDS: '10', SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    ({ tracker, model, stack } = world);
  });

  afterAll(async () => {
    await world?.close();
  });

  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body;
  const written = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body)).filter((c) => !/^\s*([!?]|\/service)/.test(c));
  const stageLabels = (key: string) => tracker.state.issue(key).labels.filter((l) => /^service:.*-pending$/.test(l));
  const settled = (v: Json) => v.effects?.every((e: Json) => ['succeeded', 'terminal_failure', 'precondition_failure'].includes(e.status));
  async function at(key: string, node: string, what = node, extra: (v: Json) => boolean = () => true, timeoutMs = 60_000): Promise<Json> {
    return eventually(async () => {
      const v = await execution(key);
      return v.current_position === node && (v.checkpoint?.is_paused || v.status === 'blocked') && settled(v) && extra(v) ? v : undefined;
    }, timeoutMs, `${key} at ${what}`).catch(async (error: Error) => { throw new Error(`${error.message}; last view: ${JSON.stringify(await execution(key)).slice(0, 2500)}`); });
  }

  it('writes the PRD, revises it on !, answers ?, survives a worker kill mid-generation, edits and provisions drafts, and stops where delivery begins', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'PLN', issueType: 'Feature', summary: 'Export reports', description: 'Users want CSV exports.', labels: ['service:managed'] });
    const key = issue.key;
    model.script(prd('CSV export', 'Export reports as CSV.'));
    await at(key, 'prd_approval_gate', 'the PRD gate');
    expect(stageLabels(key)).toEqual(['service:prd-pending']);
    expect(written(key).join('\n')).toContain('Export reports as CSV.');

    // ! revises the PRD under its generation key; the gate waits again.
    model.script(prd('CSV export', 'Export reports as CSV, with archived ones.'));
    tracker.state.addComment(key, '! include archived reports');
    await at(key, 'prd_approval_gate', 'the revised PRD', (v) => v.artifacts.prd?.version === 2);
    expect(written(key).join('\n')).toContain('with archived ones');
    expect(model.requests.at(-1)!.messages!.map((m: Json) => JSON.stringify(m.content)).join('\n')).toContain('include archived reports');

    // ? answers without regenerating.
    model.script({ content: JSON.stringify({ answer: 'Yes, archived reports are included.' }) });
    tracker.state.addComment(key, '? are archived reports included');
    await at(key, 'prd_approval_gate', 'the answer', (v) => v.station_attempts.some((a: Json) => a.station === 'answer_question' && a.status === 'succeeded'));
    expect(written(key).some((c) => c.includes('Yes, archived reports are included.'))).toBe(true);
    expect((await execution(key)).artifacts.prd.version).toBe(2);

    // Approving the PRD starts the spec; the worker dies while the model is answering, and the retried attempt posts
    // the spec once.
    model.script({ ...prd('CSV export spec', 'Slow first answer.'), delay_ms: 8_000 }, prd('CSV export spec', 'The spec, written once.'));
    const requestsBefore = model.requests.length;
    tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    await eventually(async () => (model.received.length > requestsBefore ? true : undefined), 60_000, 'the spec request');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    await stack.restartWorker();
    const spec = await at(key, 'spec_approval_gate', 'the spec gate after the worker restart', () => true, 120_000);
    expect(spec.artifacts.prd).toMatchObject({ approved: true });
    expect(stageLabels(key)).toEqual(['service:spec-pending']);
    expect(written(key).filter((c) => c.includes('The spec, written once.'))).toHaveLength(1);
    expect(written(key).some((c) => c.includes('Slow first answer.'))).toBe(false);

    // The epic plan: a draft edited with /service commands, one of them invalid.
    model.script({ content: JSON.stringify({ items: [epic('Export API'), epic('Export button')] }) });
    tracker.state.updateLabels(key, [{ add: 'service:spec-approved' }]);
    await at(key, 'plan_approval_gate', 'the plan gate');
    expect(stageLabels(key)).toEqual(['service:plan-pending']);
    tracker.state.addComment(key, '/service update 2 summary="Export button in the toolbar"');
    tracker.state.addComment(key, '/service remove 9');
    await eventually(async () => (written(key).filter((c) => /^[✅❌]/.test(c)).length >= 2 ? true : undefined), 60_000, 'the draft replies');
    const replies = written(key).filter((c) => /^[✅❌]/.test(c));
    expect(replies[0]).toMatch(/^✅/);
    expect(replies[1]).toMatch(/^❌/);
    expect(written(key).some((c) => c.includes('Export button in the toolbar'))).toBe(true);

    // Approve by comment: epics are provisioned, then the tasks are drafted.
    model.script({ content: JSON.stringify({ items: [task(1, 'Endpoint'), task(2, 'Toolbar button')] }) });
    tracker.state.addComment(key, '/service approve');
    await at(key, 'task_approval_gate', 'the task gate');
    expect(stageLabels(key)).toEqual(['service:task-pending']);
    const epics = [...tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${key}`) && i.issueType === 'Epic');
    expect(epics.map((e) => [e.summary, e.parentKey])).toEqual([['Export API', key], ['Export button in the toolbar', key]]);
    expect(epics[0]!.labels).toEqual(expect.arrayContaining(['service:managed', `service:epic-item:${key}:1`, 'repo:acme/api']));

    tracker.state.updateLabels(key, [{ add: 'service:task-approved' }]);
    const stopped = await at(key, 'setup_workspace', 'the first code-change station');
    expect(stopped).toMatchObject({ status: 'blocked', waiting: { code: 'station_not_available' } });
    const tasks = [...tracker.state.issues.values()].filter((i) => i.issueType === 'Task' && epics.some((e) => e.key === i.parentKey));
    expect(tasks.map((t) => [t.summary, t.parentKey])).toEqual([['Endpoint', epics[0]!.key], ['Toolbar button', epics[1]!.key]]);
    expect(stageLabels(key)).toEqual([]);
    expect(model.pending()).toBe(0);
  });

  it('runs straight through every planning gate with service:yolo', async () => {
    model.script(
      prd('Yolo', 'Fast PRD.'), prd('Yolo spec', 'Fast spec.'),
      { content: JSON.stringify({ items: [epic('Only epic')] }) }, { content: JSON.stringify({ items: [task(1, 'Only task')] }) },
    );
    const issue = tracker.state.createIssue({ projectKey: 'PLN', issueType: 'Story', summary: 'Yolo story', labels: ['service:managed', 'service:yolo'] });
    const view = await at(issue.key, 'setup_workspace', 'the end of planning', () => true, 90_000);
    expect(view.station_attempts.map((a: Json) => a.station)).toEqual(expect.arrayContaining(['generate_prd', 'generate_spec', 'decompose_epics', 'provision_epics', 'generate_tasks', 'provision_tasks']));
    expect([...tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${issue.key}`)).map((i) => i.summary)).toEqual(['Only epic', 'Only task']);
  });
});
