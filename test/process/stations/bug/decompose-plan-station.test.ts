import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectActivities } from '../../../../activities/effect-activities';
import { createDecomposePlanStation, fixTaskEffectNames, fixTaskSummary } from '../../../../activities/stations/bug/decompose-plan-station';
import { fixTaskIdentityLabel } from '../../../../activities/stations/bug/flow-data';
import { childrenOf, workOfRepository } from '../../../../activities/stations/code-change/pull-request-stations';
import { sha256 } from '../../../../activities/stations/planning/document-stations';
import { stationFailureDetails } from '../../../../activities/stations/station-failure';
import { createLogger } from '../../../../src/logging/logger';
import { createTrackerClient } from '../../../../src/providers/tracker/tracker-client';
import type { TrackerIssue } from '../../../../src/providers/tracker/tracker-types';
import { startTrackerSimulator, type TrackerSimulator } from '../../../../src/sandbox/tracker-simulator/tracker-simulator';
import type { ProjectRepositoriesCheck } from '../../../../workflows/project-config-types';
import type { StationInput } from '../../../../workflows/runtime/station-types';

const PLAN = [
  '# Fix plan for option 1',
  '1. Guard the null order in `save()` (repo: acme/api)',
  '2. Show the error instead of a blank page (repo: ACME/Web)',
  '3. Bump the client (repo: acme/typo)',
  '4. Add a regression test (repo: acme/api)',
].join('\n');

const configured = (repositories: string[]): ProjectRepositoriesCheck => ({ status: 'configured', source: 'project_properties', repositories, default_repo: null });

function input(extra: Partial<StationInput> = {}, plan = PLAN): StationInput {
  const digest = sha256(plan);
  return {
    ticket_key: 'BUG-1', project_key: 'BUG', issue_type: 'Bug', workflow_kind: 'bug', run_id: 'run-1', node: 'decompose_plan', station: 'decompose_plan', visit: 1,
    artifacts: { fix_plan: { text: 'a later unapproved edit (repo: acme/other)', digest: 'x', version: 2, updated_at: '', approved: { digest, at: '', text: plan } } },
    outputs: {}, token_budget: null, ...extra,
  };
}

const bug = { key: 'BUG-1', summary: 'Crash on save' } as TrackerIssue;
const station = (check: ProjectRepositoriesCheck) => createDecomposePlanStation({ tracker: { getIssue: async () => bug }, repositories: async () => check });

describe('decompose_plan', () => {
  it('asks for one Task per configured repository of the approved plan, related to the bug and without a parent', async () => {
    const result = await station(configured(['acme/api', 'acme/web']))(input());
    expect(result.outcome).toBe('decomposed');
    expect(result.data).toEqual({ repositories: ['acme/api', 'acme/web'], unknown_repositories: ['acme/typo'] });
    expect(result.summary).toContain('acme/typo');
    expect(result.effects!.map((e) => e.name)).toEqual(['create_fix_acme_api', 'create_fix_acme_web']);
    const [api, web] = result.effects!.map((e) => e.operation);
    expect(api).toEqual({
      kind: 'tracker.create_issue', project_key: 'BUG', issue_type: 'Task', summary: 'Fix: Crash on save (acme/api)',
      description: expect.any(String),
      labels: ['service:parent:BUG-1', 'repo:acme/api', fixTaskIdentityLabel('BUG-1', 'acme/api')],
      identity_label: fixTaskIdentityLabel('BUG-1', 'acme/api'), relates_to: 'BUG-1',
    });
    expect(api).not.toHaveProperty('parent_key');
    const description = (api as { description: string }).description;
    expect(description).toContain('BUG-1');
    expect(description).toContain('- Guard the null order in `save()` (repo: acme/api)');
    expect(description).toContain('- Add a regression test (repo: acme/api)');
    expect(description).not.toContain('blank page');
    // The configured spelling wins over the plan's.
    expect(web).toMatchObject({ summary: 'Fix: Crash on save (acme/web)', labels: expect.arrayContaining(['repo:acme/web']) });
    expect(result.effects!.every((e) => e.required)).toBe(true);
  });

  it('asks for the same writes under the same names when it runs again', async () => {
    const run = station(configured(['acme/api', 'acme/web']));
    expect(await run(input())).toEqual(await run(input()));
  });

  it('blocks with repository_missing naming the tags and the configured repositories when none is known', async () => {
    const error = await station(configured(['acme/other']))(input()).catch((e: unknown) => e);
    const details = stationFailureDetails(error);
    expect(details).toMatchObject({ code: 'repository_missing' });
    expect(details!.message).toContain('`acme/api`, `ACME/Web`, `acme/typo`');
    expect(details!.message).toContain('`acme/other`');
    const untagged = stationFailureDetails(await station(configured(['acme/api']))(input({}, '# Plan\n1. Fix it')).catch((e: unknown) => e));
    expect(untagged).toMatchObject({ code: 'repository_missing', message: expect.stringContaining('tags no repository') });
    const unconfigured = stationFailureDetails(await station({ status: 'missing', missing: ['service.repos'], problems: [], require_project_config: true })(input()).catch((e: unknown) => e));
    expect(unconfigured).toMatchObject({ code: 'repository_missing', message: expect.stringContaining('not configured (service.repos)') });
  });

  it('keeps the summary within the tracker limit, the repository intact', () => {
    const summary = fixTaskSummary('x'.repeat(400), 'acme/api');
    expect(summary).toHaveLength(255);
    expect(summary.startsWith('Fix: xxx')).toBe(true);
    expect(summary.endsWith('… (acme/api)')).toBe(true);
    expect(fixTaskSummary('  Crash\non   save ', 'a/b')).toBe('Fix: Crash on save (a/b)');
  });

  it('gives repositories whose names collide as effect names different, stable names', () => {
    expect(fixTaskEffectNames(['acme/web-app', 'acme/web_app', 'acme/api'])).toEqual(['create_fix_acme_web_app', 'create_fix_acme_web_app_2', 'create_fix_acme_api']);
  });
});

/** The Tasks as the effect activity creates them in the tracker simulator, and as setup_workspace finds them again. */
describe('decompose_plan against the tracker simulator', () => {
  let sim: TrackerSimulator;
  beforeAll(async () => {
    sim = await startTrackerSimulator({ projects: ['BUG'] });
  });
  afterAll(async () => sim?.close());

  it('creates linked Tasks once that the code-change stations find by the parent and repo labels', async () => {
    const client = createTrackerClient({ baseUrl: sim.url, email: 'service@example.com', apiToken: 'token-value', retry: { maxAttempts: 1 } });
    const effects = createEffectActivities({ tracker: client, logger: createLogger({ level: 'error', write: () => undefined }) });
    const issue = sim.state.createIssue({ projectKey: 'BUG', issueType: 'Bug', summary: 'Crash on save', labels: ['service:managed'] });
    const run = createDecomposePlanStation({ tracker: client, repositories: async () => configured(['acme/api', 'acme/web']) });
    const stationInput = input({ ticket_key: issue.key });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const result = await run(stationInput);
      for (const intent of result.effects!) {
        const outcome = await effects.performEffect({ idempotency_key: `${issue.key}:run-1:decompose_plan:${attempt}:${intent.name}`, attempt: 1, operation: intent.operation });
        expect(outcome.status).toBe('succeeded');
      }
    }
    const children = await childrenOf(client, { project_key: 'BUG', ticket_key: issue.key });
    expect(children.map((c) => [c.summary, c.issueType, c.parentKey])).toEqual([
      ['Fix: Crash on save (acme/api)', 'Task', undefined],
      ['Fix: Crash on save (acme/web)', 'Task', undefined],
    ]);
    for (const child of children) {
      expect(sim.state.issue(child.key).links).toEqual([expect.objectContaining({ type: 'Relates', outwardKey: child.key, inwardKey: issue.key })]);
    }
    expect(workOfRepository(children, 'acme/web')).toEqual({ tasks: [children[1]], epics: [] });
  });
});
