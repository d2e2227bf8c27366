import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';

const SECRET = 'guards-tracker-secret';
const TOKEN = 'guards-operator-token';
type Json = Record<string, any>;

/**
 * Token budgets and allowed approvers (issue 17) on the real dev server, the real worker and gateway, the tracker
 * simulator and the model simulator: a stage whose budget is too small blocks before the model is asked, raising
 * the budget and adding service:retry resumes; an approval label from someone not allowed is ignored and the gate
 * stays until an allowed person approves.
 */
describe('token budgets and allowed approvers', () => {
  let world: World;
  let tracker: TrackerSimulator;
  let model: ModelSimulator;
  let stack: ServiceStack;

  beforeAll(async () => {
    world = await startWorld({
      name: 'guards-budget',
      tracker: {
        projects: ['GRD'],
        repos: ['acme/api'],
        properties: { 'service.token_budget': { stages: { generate_prd: 5 } }, 'service.allowed_actors': ['tracker-email:pat@example.com'] },
      },
      model: true,
      operatorToken: TOKEN,
      env: { TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_EFFECT_TIMEOUT_SECONDS: '10', SERVICE_POLL_INTERVAL_SECONDS: '0', SERVICE_TOKEN_BUDGET_TICKET: '1000000' },
    });
    ({ tracker, model, stack } = world);
  });

  afterAll(async () => {
    await world?.close();
  });

  const execution = async (key: string): Promise<Json> => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body;
  const timeline = async (key: string): Promise<Json[]> => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN)).body.entries;
  const comments = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body));
  const settled = (v: Json) => v.effects?.every((e: Json) => ['succeeded', 'terminal_failure', 'precondition_failure'].includes(e.status));
  const until = (key: string, what: string, test: (v: Json) => boolean, timeoutMs = 60_000) => eventually(async () => {
    const v = await execution(key);
    return test(v) && settled(v) ? v : undefined;
  }, timeoutMs, `${key}: ${what}`).catch(async (error: Error) => { throw new Error(`${error.message}; last view: ${JSON.stringify(await execution(key)).slice(0, 2500)}`); });

  it('blocks a stage before calling the model when its budget would be exceeded, and resumes after the budget is raised and service:retry', async () => {
    const key = tracker.state.createIssue({ projectKey: 'GRD', issueType: 'Feature', summary: 'Export reports', description: 'Users want CSV exports of every report they can see.', labels: ['service:managed'] }).key;
    const blocked = await until(key, 'blocked by the PRD budget', (v) => v.status === 'blocked');
    expect(blocked.current_position).toBe('generate_prd');
    expect(blocked.blocking).toMatchObject({ code: 'budget_exhausted' });
    // The model was never asked.
    expect(model.requests).toHaveLength(0);
    expect(blocked.tokens_spent).toBe(0);
    expect(tracker.state.issue(key).labels).toContain('service:blocked');
    const report = comments(key).find((c) => c.includes('budget_exhausted'));
    expect(report).toContain("the generate_prd stage's token budget of 5 would be exceeded");
    expect(report).toContain('did not call the model');

    // Raised budget, then service:retry: the same stage runs again and calls the model.
    tracker.state.setProperty(tracker.state.project('GRD').properties, 'service.token_budget', { stages: { generate_prd: 200_000 } });
    model.script({ content: JSON.stringify({ title: 'CSV export', markdown: '## Problem and goal\n\nExport reports as CSV.' }) });
    tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
    const gate = await until(key, 'the PRD gate after the retry', (v) => v.current_position === 'prd_approval_gate' && v.checkpoint.is_paused);
    expect(model.requests).toHaveLength(1);
    expect(gate.tokens_by_stage.generate_prd).toBeGreaterThan(0);
    expect(gate.tokens_spent).toBe(gate.tokens_by_stage.generate_prd);
    const metrics = await (await fetch(stack.workerMetricsUrl)).text();
    expect(metrics).toMatch(new RegExp(`service_tokens_spent_total\\{stage="generate_prd"\\} ${gate.tokens_by_stage.generate_prd}\\b`));

    // An approval label from someone who is not an allowed actor is ignored: recorded with its reason, the label
    // taken off, the gate stays.
    const mallory = tracker.state.userForEmail('mallory@example.com');
    tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }], mallory);
    const ignored = await eventually(async () => (await timeline(key)).find((e) => e.kind === 'command_decision' && e.status === 'ignored' && /approve by .* ignored/.test(e.summary)), 30_000, 'the ignored approval on the timeline');
    expect(ignored.summary).toContain('is not listed in the project property service.allowed_actors');
    expect(ignored.details.actor_ids).toContain('tracker-email:mallory@example.com');
    await eventually(async () => (tracker.state.issue(key).labels.includes('service:prd-approved') ? undefined : true), 30_000, 'the ignored label to be taken off');
    const still = await until(key, 'still at the PRD gate', (v) => v.current_position === 'prd_approval_gate');
    expect(still.checkpoint.is_paused).toBe(true);
    expect(still.artifacts.prd.approved).toBe(false);
    expect(comments(key).some((c) => c.includes('by tracker-email:mallory@example.com was ignored'))).toBe(true);

    // An allowed person's approval counts: the PRD is snapshotted and the ticket moves on.
    model.script({ content: JSON.stringify({ title: 'CSV export spec', markdown: '## Design\n\nA CSV writer.' }) });
    tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    const moved = await until(key, 'past the PRD gate', (v) => v.current_position !== 'prd_approval_gate');
    expect(moved.artifacts.prd.approved).toBe(true);
    // The spec station built on the approved snapshot.
    await eventually(async () => (model.requests.length >= 2 ? true : undefined), 30_000, 'the spec request');
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('Approved PRD');
  });
  it('takes service:yolo on a new ticket only from an allowed creator: from anyone else it is ignored, said so and taken off', async () => {
    const mallory = tracker.state.userForEmail('mallory@example.com');
    const theirs = tracker.state.createIssue({ projectKey: 'GRD', issueType: 'Feature', summary: 'Skip the gates', labels: ['service:managed', 'service:yolo'] }, mallory).key;
    const ignored = await eventually(async () => (await timeline(theirs)).find((e) => e.kind === 'command_decision' && e.status === 'ignored' && /^yolo by tracker-email:mallory@example\.com ignored/.test(e.summary)), 30_000, 'the ignored yolo');
    expect(ignored.summary).toContain('is not listed in the project property service.allowed_actors');
    await eventually(async () => (tracker.state.issue(theirs).labels.includes('service:yolo') ? undefined : true), 30_000, 'service:yolo to be taken off');
    await eventually(async () => (comments(theirs).some((c) => c.includes('`service:yolo` by tracker-email:mallory@example.com was ignored')) ? true : undefined), 30_000, 'the reply');
    expect((await timeline(theirs)).some((e) => e.kind === 'command_decision' && e.status === 'accepted' && e.summary.startsWith('service:yolo was on the ticket'))).toBe(false);

    // Pat is allowed: the same start switches autonomous mode on.
    const ours = tracker.state.createIssue({ projectKey: 'GRD', issueType: 'Feature', summary: 'Run through', labels: ['service:managed', 'service:yolo'] }).key;
    await eventually(async () => (await timeline(ours)).find((e) => e.kind === 'command_decision' && e.status === 'accepted' && e.summary.startsWith('service:yolo was on the ticket')), 30_000, 'the accepted yolo');
    expect(tracker.state.issue(ours).labels).toContain('service:yolo');
  });
});
