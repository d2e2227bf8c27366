import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEffectActivities } from '../../../activities/effect-activities';
import { createProjectConfigActivities } from '../../../activities/project-config-activities';
import { createPlanningStations } from '../../../activities/stations/planning-stations';
import { sha256 } from '../../../activities/stations/planning/document-stations';
import { stationFailureDetails } from '../../../activities/stations/station-failure';
import { parseModelConfiguration } from '../../../src/config/model-configuration';
import { createLogger } from '../../../src/logging/logger';
import { createModelClient } from '../../../src/models/model-client';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { createScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { applyDraftCommand, type Draft } from '../../../workflows/person-commands/drafts';
import type { ArtifactRecord, StationInput, StationResult } from '../../../workflows/runtime/station-types';

/**
 * The planning stations as the worker runs them, over real HTTP: the tracker simulator holds the ticket, the project
 * properties and what the effects write; the model simulator answers with scripted structured output. Station
 * results are run through the real effect activity, the way the workflow's journal does.
 */
describe('feature planning stations', () => {
  let tracker: TrackerSimulator;
  let model: ModelSimulator;
  let github: ScmhostSimulator;
  let stations: ReturnType<typeof createPlanningStations>;
  let withRepositoryTools: ReturnType<typeof createPlanningStations>;
  let effects: ReturnType<typeof createEffectActivities>;
  const project = () => tracker.state.project('FEAT');

  beforeAll(async () => {
    tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['FEAT'] });
    model = await startModelSimulator();
    github = await startScmhostSimulator({ repositories: ['acme/api', 'acme/web'], tokens: { 'gh-token': 'service-bot' } });
    const env = {
      MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: model.url, allowed_models: ['planner'], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'planner' }),
    };
    const client = createTrackerClient({ baseUrl: tracker.url, email: 'service@example.com', apiToken: 'token-value', retry: { maxAttempts: 1 } });
    const { checkProjectRepositories } = createProjectConfigActivities({ properties: client, requireProjectConfig: true, fallbackRepositories: [] });
    stations = createPlanningStations({
      tracker: client, properties: client, models: createModelClient({ env }), modelConfig: parseModelConfiguration(env).config!,
      repositories: checkProjectRepositories, partLimit: 2000,
    });
    withRepositoryTools = createPlanningStations({
      tracker: client, properties: client, models: createModelClient({ env }), modelConfig: parseModelConfiguration(env).config!,
      repositories: checkProjectRepositories, repositoryReader: () => createScmhostClient({ token: 'gh-token', baseUrl: github.url, timeoutMs: 5_000 }),
    });
    effects = createEffectActivities({ tracker: client, logger: createLogger({ level: 'error', write: () => undefined }) });
  }, 30_000);
  afterAll(async () => Promise.all([tracker?.close(), model?.close(), github?.close()]));
  beforeEach(() => {
    model.reset();
    project().properties.clear();
    tracker.state.setProperty(project().properties, 'service.repos', ['acme/api', 'acme/web']);
  });

  function feature(labels: string[] = ['service:managed']) {
    const issue = tracker.state.createIssue({ projectKey: 'FEAT', issueType: 'Feature', summary: 'Export reports', description: 'Users want to export **reports** as CSV.', labels });
    tracker.state.addComment(issue.key, 'It must also work for archived reports.');
    return issue.key;
  }

  function input(key: string, station: string, extra: Partial<StationInput> = {}): StationInput {
    return {
      ticket_key: key, project_key: 'FEAT', issue_type: 'Feature', workflow_kind: 'feature', run_id: 'run-1',
      node: station, station, visit: 1, artifacts: {}, outputs: {}, token_budget: null, ...extra,
    };
  }

  function record(text: string, version = 1, approved = false): ArtifactRecord {
    const digest = sha256(text);
    return { text, digest, version, updated_at: '2026-11-23T00:00:00Z', ...(approved ? { approved: { digest, at: '2026-11-23T00:00:00Z' } } : {}) };
  }

  /** Runs a result's intents through the effect activity under `<ticket>:<run>:<node>:<visit>:<name>` keys. */
  async function perform(key: string, result: Pick<StationResult, 'effects'>, visit = 1) {
    const outcomes = [];
    for (const intent of result.effects ?? []) {
      outcomes.push(await effects.performEffect({ idempotency_key: `${key}:run-1:node:${visit}:${intent.name}`, attempt: 1, operation: intent.operation }));
    }
    expect(outcomes.map((o) => o.status)).toEqual(outcomes.map(() => 'succeeded'));
    return outcomes;
  }

  const comments = (key: string) => tracker.state.issue(key).comments.map((c) => c.body);
  const said = (index: number, role: string) => model.requests[index]!.messages!.filter((m) => m.role === role).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  const userPrompt = (index: number) => said(index, 'user');
  const systemPrompt = (index: number) => said(index, 'system');
  const longPrd = Array.from({ length: 12 }, (_, i) => `## Requirement ${i + 1}\n\n${'The export MUST include every column. '.repeat(8)}`).join('\n\n');

  it('writes the PRD from the ticket, posts it in parts under the comment limit and leaves the stage labels to the gate', async () => {
    const key = feature(['service:managed', 'service:task-pending', 'repo:acme/api']);
    tracker.state.setProperty(project().properties, 'service.references', { style_guide: 'https://wiki.example/prd-style' });
    model.script({ content: JSON.stringify({ title: 'CSV export of reports', markdown: longPrd }) });

    const result = await stations.generate_prd(input(key, 'generate_prd'));

    expect(systemPrompt(0)).toContain('senior product manager');
    expect(userPrompt(0)).toContain('Users want to export **reports** as CSV.');
    expect(userPrompt(0)).toContain('It must also work for archived reports.');
    expect(userPrompt(0)).toContain('https://wiki.example/prd-style');
    const text = result.artifacts!.prd!.text;
    expect(text.startsWith('# CSV export of reports\n\n## Requirement 1')).toBe(true);
    expect(result.artifacts!.prd!.digest).toBe(sha256(text));
    expect(result).toMatchObject({ outcome: 'generated', data: { artifact: 'prd', revision: 1, revised: false }, usage: { model: 'sim:planner' } });
    const names = result.effects!.map((e) => e.name);
    expect(names.length).toBeGreaterThan(2);
    // The comments only: the PRD gate sets its pending label itself when the ticket enters it.
    expect(names).toEqual(names.map((_, i) => `post_prd_part_${i + 1}`));

    await perform(key, result);
    const posted = tracker.state.issue(key).comments.slice(1);
    expect(posted).toHaveLength(names.length);
    const parts = await createTrackerClient({ baseUrl: tracker.url, email: 'x@example.com', apiToken: 't' }).getComments(key);
    parts.slice(1).forEach((comment, i) => {
      expect(comment.body.startsWith(`_Part ${i + 1} of ${posted.length}_`)).toBe(true);
      expect(comment.body.length).toBeLessThanOrEqual(2000);
    });
    expect(parts.at(-1)!.body).toContain('service:prd-approved');
    expect(tracker.state.issue(key).labels).toEqual(['service:managed', 'service:task-pending', 'repo:acme/api']);

    // The same station result run again (a crash after the writes, a replay) writes nothing twice.
    const again = await perform(key, result);
    expect(again.every((o) => o.evidence?.adopted)).toBe(true);
    expect(tracker.state.issue(key).comments).toHaveLength(posted.length + 1);
  });

  it('lets the model read the ticket\'s repositories through the source-host API before it answers', async () => {
    const key = feature(['service:managed', 'repo:acme/api']);
    const api = github.state.repo('acme', 'api');
    github.state.putFile(api, 'README.md', '# API');
    github.state.putFile(api, 'src/reports/export.ts', 'export function exportReport() { /* PDF only */ }');
    github.state.putFile(github.state.repo('acme', 'web'), 'src/app.tsx', 'web');
    model.script(
      { tool_calls: [{ name: 'list_files', arguments: JSON.stringify({ repository: 'acme/api', path_prefix: 'src/' }) }] },
      { tool_calls: [{ name: 'read_file', arguments: JSON.stringify({ repository: 'acme/api', path: 'src/reports/export.ts' }) }] },
      { content: JSON.stringify({ title: 'CSV export', markdown: '## Problem and goal\n\nexportReport() only writes PDF today.' }) },
    );

    const result = await withRepositoryTools.generate_prd(input(key, 'generate_prd'));

    // Only the ticket's assigned repository is offered, and the answers of the tools went back to the model.
    const tools = model.requests[0]!.tools!.map((t) => t.function.name).sort();
    expect(tools).toEqual(['list_files', 'read_file']);
    expect(JSON.stringify(model.requests[0]!.tools)).not.toContain('acme/web');
    const toolResults = (index: number) => JSON.stringify(model.requests[index]!.messages!.filter((m) => m.role === 'tool'));
    expect(toolResults(1)).toContain('src/reports/export.ts');
    expect(toolResults(1)).not.toContain('README.md');
    expect(toolResults(2)).toContain('PDF only');
    expect(result.artifacts!.prd!.text).toContain('exportReport() only writes PDF today.');
    expect(result.usage!.input_tokens).toBeGreaterThan(0);
  });

  it('uses the project\'s own skill when it overrides the default', async () => {
    const root = mkdtempSync(join(tmpdir(), 'skills-'));
    try {
      cpSync(join(__dirname, '..', '..', '..', 'skills', 'default'), join(root, 'default'), { recursive: true });
      mkdirSync(join(root, 'feat', 'generate_prd'), { recursive: true });
      writeFileSync(join(root, 'feat', 'generate_prd', 'SKILL.md'), '---\nname: generate_prd\ndescription: FEAT house style\n---\nWrite the PRD in the FEAT house style.\n');
      const client = createTrackerClient({ baseUrl: tracker.url, email: 'service@example.com', apiToken: 'token-value' });
      const env = { MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: model.url, allowed_models: ['planner'], capabilities: ['structured_output', 'tools'] } }), MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'planner' }) };
      const custom = createPlanningStations({
        tracker: client, properties: client, models: createModelClient({ env }), modelConfig: parseModelConfiguration(env).config!,
        repositories: createProjectConfigActivities({ properties: client, requireProjectConfig: true, fallbackRepositories: [] }).checkProjectRepositories, skillsRoot: root,
      });
      model.script({ content: JSON.stringify({ title: 'House style', markdown: '## Problem and goal\n\nIn the house style.' }) });
      const result = await custom.generate_prd(input(feature(), 'generate_prd'));
      expect(systemPrompt(0)).toBe('Write the PRD in the FEAT house style.');
      expect(result.summary).toContain('skill feat/generate_prd');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('heartbeats while the model works and abandons the call when the activity is cancelled', async () => {
    const key = feature();
    model.script({ content: JSON.stringify({ title: 'Slow', markdown: '## Problem and goal\n\nWritten slowly.' }), delay_ms: 3_000 });
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => { heartbeats += 1; });
    const running = env.run(stations.generate_prd, input(key, 'generate_prd'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    env.cancel();
    const started = Date.now();
    await expect(running).rejects.toMatchObject({ name: 'CancelledFailure' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(heartbeats).toBeGreaterThan(0);
  });

  it('revises the PRD with `!` feedback, giving the model the current text', async () => {
    const key = feature();
    const current = record('# CSV export\n\n## Requirements\n\n1. Export visible columns.');
    model.script({ content: JSON.stringify({ title: 'CSV and Excel export', markdown: '## Requirements\n\n1. Export visible columns.\n2. Export to Excel too.' }) });

    const result = await stations.generate_prd(input(key, 'generate_prd', { visit: 2, artifacts: { prd: current }, request: { kind: 'feedback', text: 'Add Excel export as well.', author: 'Pat' } }));

    expect(userPrompt(0)).toContain('Current PRD (revise this)');
    expect(userPrompt(0)).toContain('Export visible columns.');
    expect(userPrompt(0)).toContain('Feedback from Pat');
    expect(userPrompt(0)).toContain('Add Excel export as well.');
    expect(result).toMatchObject({ data: { revision: 2, revised: true }, summary: expect.stringContaining('PRD revised (revision 2, 1 part)') });
    await perform(key, result, 2);
    expect(JSON.stringify(comments(key).at(-1))).toContain('PRD for ' + key + ' (revision 2)');
  });

  it('writes the spec from the approved PRD', async () => {
    const key = feature();
    model.script({ content: JSON.stringify({ title: 'Export design', markdown: '## Overview\n\nA streaming CSV writer in acme/api.' }) });
    const result = await stations.generate_spec(input(key, 'generate_spec', { artifacts: { prd: record('# CSV export\n\nThe PRD body.', 1, true) } }));
    expect(userPrompt(0)).toContain('Approved PRD');
    expect(userPrompt(0)).toContain('The PRD body.');
    expect(result.effects!.map((e) => e.name)).toEqual(['post_spec_part_1']);
  });

  it('answers a question from the artifact at the gate without regenerating it', async () => {
    const key = feature(['service:managed', 'service:prd-pending']);
    model.script({ content: JSON.stringify({ answer: 'Yes: requirement 2 covers archived reports.' }) });
    const prd = record('# CSV export\n\n2. Archived reports are exported too.');

    const result = await stations.answer_question(input(key, 'answer_question', { params: { artifact: 'prd' }, artifacts: { prd }, request: { kind: 'question', text: 'Does this cover archived reports?', author: 'Sam' } }));

    expect(userPrompt(0)).toContain('Archived reports are exported too.');
    expect(systemPrompt(0)).toContain('do not promise changes');
    expect(result.outcome).toBe('answered');
    expect(result.artifacts).toBeUndefined();
    expect(result.effects!.map((e) => e.name)).toEqual(['post_answer']);
    await perform(key, result);
    const body = JSON.stringify(comments(key).at(-1));
    expect(body).toContain('requirement 2 covers archived reports');
    expect(body).toContain('Does this cover archived reports?');
    expect(tracker.state.issue(key).labels).toEqual(['service:managed', 'service:prd-pending']);
  });

  it('fails closed on an invalid project model policy, with the report to post and no model call', async () => {
    const key = feature();
    tracker.state.setProperty(project().properties, 'service.model_policy', { generate_prd: 'sim:gpt-unknown' });

    const error = await stations.generate_prd(input(key, 'generate_prd')).catch((e: unknown) => e);

    const details = stationFailureDetails(error);
    expect(details).toMatchObject({ code: 'invalid_model_policy', recovery: expect.stringContaining('service:retry') });
    expect((error as { nonRetryable?: boolean }).nonRetryable).toBe(true);
    expect(details!.effects).toHaveLength(1);
    expect(details!.effects![0]).toMatchObject({ name: 'post_model_policy_report', required: true, operation: { kind: 'tracker.comment', issue_key: key } });
    const report = (details!.effects![0]!.operation as { body: string }).body;
    expect(report).toContain('stage `generate_prd` did not run');
    expect(report).toContain('- sim (openai-compatible; structured_output, tools): planner');
    expect(model.requests).toHaveLength(0);

    // With pull requests open, the report goes to them too (a note on a GitLab merge request).
    const withPrs = stationFailureDetails(await stations.generate_prd(input(key, 'generate_prd', { pull_requests: ['acme/api#7', 'group/web!3'] })).catch((e: unknown) => e));
    expect(withPrs!.effects!.map((e) => [e.name, e.operation.kind])).toEqual([
      ['post_model_policy_report', 'tracker.comment'], ['post_model_policy_report_pr_1', 'scmhost.pr_comment'], ['post_model_policy_report_pr_2', 'scmhost.pr_comment'],
    ]);
    expect(withPrs!.effects![1]!.operation).toMatchObject({ repository: 'acme/api', number: 7, body: expect.stringContaining('generate_prd') });
    expect(withPrs!.effects![2]!.operation).toMatchObject({ repository: 'group/web', number: 3 });
    expect(model.requests).toHaveLength(0);
  });

  it('blocks decompose_epics on a repo: label the project does not configure, and on missing service.repos', async () => {
    const key = feature(['service:managed', 'repo:acme/mobile']);
    const invalid = stationFailureDetails(await stations.decompose_epics(input(key, 'decompose_epics')).catch((e: unknown) => e));
    expect(invalid).toMatchObject({ code: 'invalid_repo_assignment' });
    expect((invalid!.effects![0]!.operation as { body: string }).body).toContain('label `repo:acme/mobile`');

    project().properties.delete('service.repos');
    const missing = stationFailureDetails(await stations.decompose_epics(input(feature(), 'decompose_epics')).catch((e: unknown) => e));
    expect(missing).toMatchObject({ code: 'missing_project_config' });
    expect((missing!.effects![0]!.operation as { body: string }).body).toContain('Set the project property `service.repos`');
    expect(model.requests).toHaveLength(0);
  });

  it('keeps a model\'s over-long epic description within what a draft item holds', async () => {
    const key = feature();
    model.script({ content: JSON.stringify({ items: [{ summary: 'Export API', description: 'x'.repeat(5_000), repo: 'acme/api', acceptance_criteria: ['y'.repeat(400)] }] }) });
    const planned = await stations.decompose_epics(input(key, 'decompose_epics'));
    const [item] = (planned.data!.draft as Draft).items;
    expect(item!.description).toHaveLength(1_800);
    expect(item!.description.endsWith('…')).toBe(true);
    expect(item!.acceptance_criteria[0]).toHaveLength(300);
  });

  it('plans epics, takes draft edits and an item revision, provisions once whatever repeats, then tasks', async () => {
    const key = feature();
    const approved = { prd: record('# PRD\n\nExport.', 1, true), spec: record('# Spec\n\nAPI and web.', 1, true) };
    const epic = (summary: string, repo: string) => ({ summary, description: `${summary}.`, repo, acceptance_criteria: [`${summary} works`] });
    // The first answer names a repository the project does not have: the schema refuses it and the tool strategy retries.
    model.script(
      { content: JSON.stringify({ items: [epic('Export API', 'acme/mobile')] }) },
      { tool_call: { name: 'respond', arguments: JSON.stringify({ items: [epic('Export API', 'acme/api'), epic('Export button', 'acme/web'), epic('Export docs', 'acme/web')] }) } },
    );
    const planned = await stations.decompose_epics(input(key, 'decompose_epics', { artifacts: approved }));
    expect(userPrompt(0)).toContain('- acme/api\n- acme/web');
    let draft = planned.data!.draft as Draft;
    expect(draft.items.map((i) => [i.id, i.summary, i.repo])).toEqual([[1, 'Export API', 'acme/api'], [2, 'Export button', 'acme/web'], [3, 'Export docs', 'acme/web']]);
    expect(planned.data!.repositories).toEqual(['acme/api', 'acme/web']);
    expect(planned.effects!.map((e) => e.name)).toEqual(['post_plan_part_1']);
    expect(planned.artifacts!.plan!.text).toContain('### 2. Export button');

    // `/service exclude 3` and `/service update 1 summary=...` at the gate.
    for (const command of [{ type: 'draft_exclude', item_id: 3 }, { type: 'draft_update', item_id: 1, fields: { summary: 'CSV export API' } }] as const) {
      const edited = applyDraftCommand(draft, command, { repositories: ['acme/api', 'acme/web'] });
      if (!edited.ok) throw new Error(edited.reply);
      draft = edited.draft;
    }

    // `! 2: ...` revises item 2 only; the edits to the others stay.
    model.script({ content: JSON.stringify(epic('Export button with format picker', 'acme/web')) });
    const revised = await stations.decompose_epics(input(key, 'decompose_epics', {
      visit: 2, artifacts: { ...approved, plan: record(planned.artifacts!.plan!.text) }, outputs: { decompose_epics: { draft } },
      request: { kind: 'draft_item_feedback', item_id: 2, text: 'Let people pick the format.' },
    }));
    expect(userPrompt(2)).toContain('Item 2 to revise');
    draft = revised.data!.draft as Draft;
    expect(draft.items.map((i) => [i.id, i.summary, i.excluded])).toEqual([[1, 'CSV export API', false], [2, 'Export button with format picker', false], [3, 'Export docs', true]]);
    expect(revised.artifacts!.plan!.text).toContain('(revision 2)');

    const provision = await stations.provision_epics(input(key, 'provision_epics', { outputs: { decompose_epics: { draft } } }));
    expect(provision.effects!.map((e) => e.name)).toEqual(['create_epic_1', 'create_epic_2']);
    expect(provision.data).toMatchObject({ skipped: [3] });
    await perform(key, provision);
    const epics = () => [...tracker.state.issues.values()].filter((i) => i.issueType === 'Epic' && i.parentKey === key);
    expect(epics().map((e) => [e.summary, e.labels])).toEqual([
      ['CSV export API', ['service:managed', `service:parent:${key}`, `service:epic-item:${key}:1`, 'repo:acme/api']],
      ['Export button with format picker', ['service:managed', `service:parent:${key}`, `service:epic-item:${key}:2`, 'repo:acme/web']],
    ]);
    // A repeat under the same keys (crash, retry) and a fresh run of the station under new keys (replay) adopt.
    const sameKeys = await perform(key, provision);
    const again = await stations.provision_epics(input(key, 'provision_epics', { visit: 2, outputs: { decompose_epics: { draft } } }));
    const freshKeys = await perform(key, again, 2);
    expect([...sameKeys, ...freshKeys].every((o) => o.evidence?.adopted)).toBe(true);
    expect(epics()).toHaveLength(2);

    const [api, web] = epics();
    const task = (epic_id: number, summary: string) => ({ epic_id, summary, description: `${summary}.`, acceptance_criteria: [`${summary} done`] });
    model.script({ content: JSON.stringify({ items: [task(1, 'CSV writer'), task(1, 'Export endpoint'), task(2, 'Format picker')] }) });
    const tasks = await stations.generate_tasks(input(key, 'generate_tasks', { artifacts: approved, outputs: { decompose_epics: { draft } } }));
    expect(userPrompt(3)).toContain(`1. CSV export API (${api!.key}, repository acme/api)`);
    const taskDraft = tasks.data!.draft as Draft;
    expect(taskDraft.items.map((i) => [i.id, i.epic_key, i.repo])).toEqual([[1, api!.key, 'acme/api'], [2, api!.key, 'acme/api'], [3, web!.key, 'acme/web']]);
    expect(tasks.effects!.map((e) => e.operation.kind)).toEqual(['tracker.comment']);

    const excluded = applyDraftCommand(taskDraft, { type: 'draft_exclude', item_id: 2 }, { repositories: ['acme/api', 'acme/web'] });
    if (!excluded.ok) throw new Error(excluded.reply);
    const provisionTasks = await stations.provision_tasks(input(key, 'provision_tasks', { outputs: { generate_tasks: { draft: excluded.draft } } }));
    await perform(key, provisionTasks);
    await perform(key, provisionTasks);
    const created = [...tracker.state.issues.values()].filter((i) => i.issueType === 'Task');
    expect(created.map((t) => [t.summary, t.parentKey])).toEqual([['CSV writer', api!.key], ['Format picker', web!.key]]);
    expect(created[1]!.labels).toContain(`service:task-item:${key}:3`);
    // The task router walks the repositories of the tasks that were created.
    expect(provisionTasks.data).toMatchObject({ repositories: ['acme/api', 'acme/web'], skipped: [2] });
  });
});

describe('the tracker transition effect', () => {
  it('moves an issue by transition name or target status and adopts a move already made', async () => {
    const tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['FEAT'] });
    try {
      const client = createTrackerClient({ baseUrl: tracker.url, email: 'service@example.com', apiToken: 'token-value' });
      const { performEffect } = createEffectActivities({ tracker: client, logger: createLogger({ level: 'error', write: () => undefined }) });
      const issue = tracker.state.createIssue({ projectKey: 'FEAT', issueType: 'Task', summary: 'A task' });
      const move = (target: string, n: number) => performEffect({ idempotency_key: `FEAT-1:run:setup:1:move_${n}`, attempt: 1, operation: { kind: 'tracker.transition', issue_key: issue.key, target } });
      expect(await move('start progress', 1)).toMatchObject({ status: 'succeeded', evidence: { adopted: false, ids: { status: 'In Progress' } } });
      // Named by its target status, the move is set-like: a repeat finds the issue there already.
      expect(await move('In Progress', 2)).toMatchObject({ status: 'succeeded', evidence: { adopted: true } });
      expect(await move('Shipped', 3)).toMatchObject({ status: 'precondition_failure', error: expect.stringContaining('no transition named or leading to "Shipped"') });
      expect(tracker.state.issue(issue.key).histories).toHaveLength(1);
    } finally {
      await tracker.close();
    }
  });
});
