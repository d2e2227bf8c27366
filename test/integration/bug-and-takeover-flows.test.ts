import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CODE_CHANGE_RELEASE_NOTE, QUALITATIVE_FINDING } from '../helpers/code-change-model';
import { promptOf } from '../../src/sandbox/model-simulator/sandbox-responder';
import { CODE_CHANGE_OPERATOR_TOKEN, startCodeChangeWorld, type CodeChangeWorld } from '../helpers/code-change-world';
import { eventually, getJson } from '../helpers/webhooks';

const REPOS = ['acme/api', 'acme/web'];
const PROJECT = 'BG';
const RCA_OPTIONS = ['Guard the failing call (simulated)', 'Rework the component (simulated)'];
type View = Record<string, any>;

/**
 * A Bug and a taken-over Task from creation to merge, on the real dev server, worker and gateway, the tracker and
 * GitHub simulators (real git behind smart HTTP), rootless podman for the analysis and every change, and a model
 * that answers the triage, the reflection and the plans as a reporter would expect. Asserted is what a user sees:
 * the comments (each once), one stage label at a time, the fix Tasks and their links, the pull requests and their
 * bodies, and the closing summary.
 */
describe('bug and task-takeover flows end to end', () => {
  let world: CodeChangeWorld;

  beforeAll(async () => {
    world = await startCodeChangeWorld(inject('temporalAddress'), { repositories: REPOS, projectKey: PROJECT, taskQueue: 'it-bug-takeover' });
  }, 600_000);

  afterAll(async () => {
    await world?.close();
  });

  /** The service's stage labels on the ticket (`service:<stage>`; not managed, yolo or the parent/fix identities). */
  const stageLabels = (key: string) => world.tracker.state.issue(key).labels
    .filter((label) => /^service:[a-z-]+$/.test(label) && !['service:managed', 'service:yolo'].includes(label));
  const attempts = (v: View, station: string) => (v.station_attempts as Array<{ station: string }>).filter((a) => a.station === station).length;
  const commentsWith = (key: string, text: string) => world.comments(key).filter((c) => c.includes(text));
  const fixTasks = (key: string) => [...world.tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${key}`));
  /** The task texts the container agents were given (their first user message), in order. */
  const agentTasks = () => world.model.requests
    .filter((r) => r.tools?.some((t) => t.function.name === 'write_file') && !r.response_format)
    .map((r) => String((r.messages ?? []).find((m) => m.role === 'user')?.content ?? ''));

  it('triages an incomplete bug report, analyses it with one critique round, plans the chosen option, fixes it in both repositories (one CI fix) and closes it with a release note', async () => {
    const { tracker } = world;
    world.plan.repositories = REPOS;
    world.plan.reflections = ['CRITIQUE: The analysis does not show where the stream gets closed.'];
    const issue = tracker.state.createIssue({
      projectKey: PROJECT, issueType: 'Bug', summary: 'Crash on save',
      description: 'The editor crashes when I save a large file. Expected: the file is saved. Actual: the editor closes. Version 2.3 on Linux.',
      labels: ['service:managed'],
    });
    const key = issue.key;

    // No steps to reproduce: one question listing what is missing, and the ticket waits at the triage gate.
    await world.at(key, 'triage_gate', 'the triage gate');
    const question = commentsWith(key, `Triage of ${key}`);
    expect(question).toHaveLength(1);
    expect(question[0]).toContain('**Steps to reproduce**');
    for (const present of ['Expected vs actual behaviour', 'Environment', 'Affected versions']) expect(question[0]).not.toContain(`**${present}**`);
    expect(stageLabels(key)).toEqual(['service:triage-pending']);

    // The reporter gives the steps with `!`: the triage passes, the analysis runs, the reflection sends it back once
    // (the second analysis is told the critique), and the RCA is posted once with its two options.
    tracker.state.addComment(key, '! Steps to reproduce:\n1. Open a file larger than 10 MB\n2. Press save twice');
    const atOption = await world.at(key, 'rca_option_gate', 'the RCA option gate', () => true, 480_000);
    expect(attempts(atOption, 'triage_check')).toBe(2);
    expect(attempts(atOption, 'analyze_bug')).toBe(2);
    expect(attempts(atOption, 'reflect_rca')).toBe(2);
    const analyses = agentTasks().filter((task) => task.includes(`Ticket ${key} is a bug report`));
    expect(analyses.length).toBeGreaterThanOrEqual(2);
    expect(analyses.at(-1)).toContain('The analysis does not show where the stream gets closed.');
    expect(analyses.at(-1)).toContain('Press save twice');
    const rca = commentsWith(key, `Root-cause analysis for ${key}`);
    expect(rca).toHaveLength(1);
    expect(rca[0]).toContain(`Option 1: ${RCA_OPTIONS[0]}`);
    expect(rca[0]).toContain(`Option 2: ${RCA_OPTIONS[1]}`);
    expect(commentsWith(key, `Triage of ${key}`)).toHaveLength(1);
    expect(stageLabels(key)).toEqual(['service:rca-pending']);

    // A number the RCA does not offer: one reply naming the valid range, and the gate stays.
    tracker.state.addComment(key, '>option 5');
    await eventually(async () => (commentsWith(key, 'options 1-2').length > 0 ? true : undefined), 60_000, 'the answer to >option 5');
    expect(commentsWith(key, 'options 1-2')).toHaveLength(1);
    expect((await world.execution(key)).current_position).toBe('rca_option_gate');
    expect(commentsWith(key, `Fix plan for ${key}`)).toHaveLength(0);

    // `>option 2`: the fix plan follows the second option, one tagged step per repository, and waits for approval.
    tracker.state.addComment(key, 'We want the real fix. >option 2');
    await world.at(key, 'plan_approval_gate', 'the fix plan approval gate');
    const plan = commentsWith(key, `Fix plan for ${key}`);
    expect(plan).toHaveLength(1);
    expect(plan[0]).toMatch(/Fix option\W*2\W+Rework the component \(simulated\)/);
    expect(plan[0]).not.toContain(RCA_OPTIONS[0]);
    for (const repo of REPOS) expect(plan[0]).toContain(`repo: \`${repo}\``);
    expect(plan[0]).toContain(CODE_CHANGE_RELEASE_NOTE.fix);
    expect(stageLabels(key)).toEqual(['service:plan-pending']);

    // Approved: one Task per repository, related to the bug (and no workflow of their own); a pull request in each
    // repository whose body has the root cause and the release note; the service reviews them and waits.
    tracker.state.updateLabels(key, [{ add: 'service:plan-approved' }]);
    await world.at(key, 'human_review_gate', 'the human review gate', () => true, 600_000);
    const tasks = fixTasks(key);
    expect(tasks.map((t) => t.summary).sort()).toEqual(REPOS.map((repo) => `Fix: Crash on save (${repo})`));
    for (const task of tasks) {
      expect(task.issueType).toBe('Task');
      expect(task.parentKey).toBeUndefined();
      expect(task.links.map((l) => [l.type, l.outwardKey === task.key ? l.inwardKey : l.outwardKey])).toEqual([['Relates', key]]);
      expect(task.status).toBe('In Progress');
      expect((await getJson(`${world.stack.api}/api/v1/workflows/${task.key}/execution`, CODE_CHANGE_OPERATOR_TOKEN)).status).toBe(404);
    }
    for (const repo of REPOS) {
      const pulls = world.pullsOf(repo, key);
      expect(pulls).toHaveLength(1);
      expect(pulls[0]!.title).toBe(`[${key}] Crash on save`);
      expect(pulls[0]!.body).toContain('## Root cause');
      expect(pulls[0]!.body).toContain('Simulated root cause');
      expect(pulls[0]!.body).toContain('## Release note');
      expect(pulls[0]!.body).toContain(CODE_CHANGE_RELEASE_NOTE.fix);
      // The description was written from this repository's steps of the plan.
      const describe = world.model.requests.map(promptOf).filter((prompt) => prompt.startsWith(`Ticket ${key}:`) && prompt.includes(`Repository: ${repo}, branch`));
      expect(describe.at(-1)).toContain(`Fix in ${repo}`);
      expect(describe.at(-1)).not.toContain(`Fix in ${REPOS.find((other) => other !== repo)}`);
      expect(await world.fileOnBranch(repo, key, 'src/feature.txt')).toContain(`feature for ${repo}`);
    }
    expect(world.comments(key).filter((c) => REPOS.some((repo) => c.includes(`${repo}/pull/`)))).toHaveLength(2);
    expect(stageLabels(key).length).toBeLessThanOrEqual(1);

    // CI: the web app is green, the API fails once; an agent fixes it and the next run is green.
    world.person.check('acme/web', key, 'unit-tests', 'success');
    world.person.check('acme/api', key, 'unit-tests', 'failure', 'save test: stream closed');
    await world.at(key, 'wait_for_ci_gate', 'waiting for CI after the fix', (v) => attempts(v, 'attempt_ci_fix') === 1);
    expect(await world.branchLog('acme/api', key)).toContain(`[${key}] fix: address CI failures (attempt 1)`);
    world.person.check('acme/api', key, 'unit-tests', 'success');
    await world.at(key, 'human_review_gate', 'the review gate after green CI', (v) => attempts(v, 'attempt_ci_fix') === 1 && attempts(v, 'ci_evaluator') >= 3);
    // The description followed the pushed fix and kept the sections the service owns (issue 43): the model rewrites
    // only its parts, the service renders the root cause and the release note again.
    const apiBody = () => world.pullsOf('acme/api', key)[0]!.body;
    const ownedSections = ['## Tasks', '## Root cause', 'Simulated root cause', '## Release note', CODE_CHANGE_RELEASE_NOTE.fix];
    expect(apiBody()).toContain('Latest: A fix for the failed CI checks unit-tests (attempt 1):');
    for (const section of ownedSections) expect(apiBody()).toContain(section);
    // A reviewer asks for a change: it is made and pushed, and the description follows it with the same sections.
    world.person.review('acme/api', key, 'CHANGES_REQUESTED', 'One thing.', [{ path: 'src/feature.txt', line: 1, body: 'Name the stream.' }]);
    // The pushed change is a new head: the ticket waits for its checks.
    await world.at(key, 'wait_for_ci_gate', 'waiting for CI after the review change', (v) => attempts(v, 'implement_review') === 1);
    expect(apiBody()).toContain('Latest: Changes a reviewer asked for:');
    for (const section of ownedSections) expect(apiBody()).toContain(section);
    world.person.check('acme/api', key, 'unit-tests', 'success');
    await world.at(key, 'human_review_gate', 'the review gate after the review change', (v) => attempts(v, 'implement_review') === 1 && attempts(v, 'ci_evaluator') >= 4);

    // Approved and merged: one summary with the release note; the fix Tasks and the bug are closed.
    for (const repo of REPOS) world.person.review(repo, key, 'APPROVED', 'Looks right.');
    for (const repo of REPOS) world.person.merge(repo, key);
    const done = await world.at(key, 'done', 'the end', () => true, 180_000);
    expect(done.status).toBe('completed');
    const summary = commentsWith(key, `The fix for ${key} is delivered`);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain('### Release note');
    for (const value of Object.values(CODE_CHANGE_RELEASE_NOTE)) expect(summary[0]).toContain(value);
    for (const task of tasks) expect(summary[0]).toContain(task.key);
    expect(fixTasks(key).map((t) => [t.key, t.status])).toEqual(tasks.map((t) => [t.key, 'Closed']));
    expect(tracker.state.issue(key).status).toBe('Closed');
    expect(stageLabels(key).length).toBeLessThanOrEqual(1);
    // Every comment the service posted along the way is there once.
    for (const once of [`Triage of ${key}`, `Root-cause analysis for ${key}`, `Fix plan for ${key}`]) expect(commentsWith(key, once)).toHaveLength(1);
  }, 1_500_000);

  it('takes over a Task: plan, approval, a change, one qualitative-review round, the pull request, merge and a closing summary', async () => {
    const { tracker } = world;
    world.plan.repositories = ['acme/web'];
    world.plan.qualitativeReviews = ['changes_needed', 'passed'];
    // Each run of the agent changes the file anew, so the second run (after the review) has something to commit.
    let runs = 0;
    const defaultChange = world.plan.codeChange;
    world.plan.codeChange = (task) => {
      const change = defaultChange(task);
      return change && { ...change, content: `${change.content}run ${++runs}\n` };
    };
    const issue = tracker.state.createIssue({
      projectKey: PROJECT, issueType: 'Task', summary: 'Export as CSV',
      description: 'Users need the report as CSV to open it in a spreadsheet. Scope: the web app only. Done when the button downloads a CSV.',
      labels: ['service:managed', 'repo:acme/web'],
    });
    const key = issue.key;

    await world.at(key, 'task_plan_approval_gate', 'the plan approval gate', () => true, 300_000);
    expect(commentsWith(key, `Triage of ${key}`)).toHaveLength(0);
    const plan = commentsWith(key, `Plan for ${key}`);
    expect(plan).toHaveLength(1);
    expect(plan[0]).toContain('repo: `acme/web`');
    expect(stageLabels(key)).toEqual(['service:plan-pending']);

    tracker.state.addComment(key, '/service approve');
    await world.at(key, 'human_review_gate', 'the human review gate', () => true, 600_000);
    const view = await world.execution(key);
    expect(attempts(view, 'execute_task_changes')).toBe(2);
    expect(attempts(view, 'run_qualitative_review')).toBe(2);
    // The second run was told the review's finding.
    const executions = agentTasks().filter((task) => task.includes(`Ticket ${key}: make the changes`));
    expect(executions.at(-1)).toContain(QUALITATIVE_FINDING.problem);
    const pulls = world.pullsOf('acme/web', key);
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.title).toBe(`[${key}] Export as CSV`);
    expect(pulls[0]!.body).not.toContain('qualitative review still asked for changes');
    expect(await world.fileOnBranch('acme/web', key, 'src/feature.txt')).toMatch(/run 2/);
    expect(world.pullsOf('acme/api', key)).toHaveLength(0);
    expect(commentsWith(key, 'acme/web/pull/')).toHaveLength(1);

    world.person.check('acme/web', key, 'unit-tests', 'success');
    await world.at(key, 'human_review_gate', 'the review gate after green CI', (v) => attempts(v, 'ci_evaluator') >= 1);
    world.person.merge('acme/web', key);
    const done = await world.at(key, 'done', 'the end', () => true, 180_000);
    expect(done.status).toBe('completed');
    const summary = commentsWith(key, `${key} is done`);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain('acme/web');
    expect(summary[0]).not.toContain('still asked for changes');
    expect(tracker.state.issue(key).status).toBe('Closed');
    expect(commentsWith(key, `Plan for ${key}`)).toHaveLength(1);
    world.plan.codeChange = defaultChange;
  }, 1_200_000);

  it('leaves one RCA comment and one fix Task per repository when the worker dies during the analysis and during the decomposition', async () => {
    const { tracker, stack } = world;
    world.plan.repositories = REPOS;
    world.plan.reflections = [];
    const issue = tracker.state.createIssue({
      projectKey: PROJECT, issueType: 'Bug', summary: 'Crash after restart',
      description: 'Steps to reproduce:\n1. Restart the server\n2. Open the dashboard\n\nExpected: it loads. Actual: HTTP 500.',
      labels: ['service:managed', 'service:yolo'],
    });
    const key = issue.key;

    // The analysis agent is held in its first turn; the worker is killed while it waits.
    const analysis = `Ticket ${key} is a bug report`;
    world.plan.agentDelayMs = (task) => (task.includes(analysis) ? 45_000 : undefined);
    await eventually(async () => (agentTasks().some((task) => task.includes(analysis)) ? true : undefined), 300_000, 'the analysis agent to start');
    expect((await world.execution(key)).current_position).toBe('analyze_bug');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    world.plan.agentDelayMs = undefined;
    // The first fix Task is created, and its answer never comes back: the worker dies in decompose_plan's effects.
    tracker.faults.enqueue({ match: { method: 'POST', path: /\/rest\/api\/3\/issue$/ }, kind: 'apply-then-timeout', holdMs: 60_000, times: 1 });
    await stack.restartWorker();
    await eventually(async () => (fixTasks(key).length > 0 ? true : undefined), 480_000, 'the first fix task');
    expect((await world.execution(key)).current_position).toBe('decompose_plan');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    expect(tracker.faults.applied).toEqual([{ method: 'POST', path: '/rest/api/3/issue', kind: 'apply-then-timeout' }]);
    await stack.restartWorker();

    await world.at(key, 'human_review_gate', 'the human review gate after two worker kills', () => true, 600_000);
    expect(commentsWith(key, `Root-cause analysis for ${key}`)).toHaveLength(1);
    const tasks = fixTasks(key);
    expect(tasks.map((t) => t.summary).sort()).toEqual(REPOS.map((repo) => `Fix: Crash after restart (${repo})`));
    for (const task of tasks) expect(task.links.filter((l) => l.type === 'Relates')).toHaveLength(1);
    for (const repo of REPOS) expect(world.pullsOf(repo, key)).toHaveLength(1);
    expect(commentsWith(key, `Fix plan for ${key}`)).toHaveLength(1);
    // The killed analysis ran again after the restart.
    expect(agentTasks().filter((task) => task.includes(analysis)).length).toBeGreaterThanOrEqual(2);
  }, 1_500_000);
});
