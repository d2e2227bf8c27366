import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCodeChangeWorld, type CodeChangeWorld } from '../helpers/code-change-world';
import { eventually } from '../helpers/webhooks';

const REPOS = ['acme/api', 'acme/web'];

/**
 * A Feature ticket from creation to a merged delivery, on the real dev server, worker and gateway, the tracker and
 * GitHub simulators (real git behind smart HTTP), rootless podman for every container station, and a model that
 * plans one task per repository and whose agents make real changes. What a user would see is asserted: pull
 * requests, commits on the branches, comments, labels and statuses in the tracker.
 */
describe('feature delivery end to end', () => {
  let world: CodeChangeWorld;

  beforeAll(async () => {
    world = await startCodeChangeWorld(inject('temporalAddress'), { repositories: REPOS, taskQueue: 'it-feature-delivery' });
  }, 600_000);

  afterAll(async () => {
    await world?.close();
  });

  it('implements a two-repository feature, fixes a failed CI check on the second attempt, answers a review (one change made, one contested, then retry), and closes tasks, epics and feature when both pull requests merge', async () => {
    const { tracker } = world;
    const issue = tracker.state.createIssue({ projectKey: 'FD', issueType: 'Feature', summary: 'Shared export', description: 'Export in the API and the web app.', labels: ['service:managed', 'service:yolo'] });
    const key = issue.key;

    // Planning runs through (yolo); each repository gets its branch, commits and one pull request; then the
    // service reviews its pull requests and waits for a person.
    const review = await world.at(key, 'human_review_gate', 'the human review gate', () => true, 480_000);
    expect(review.status).toBe('waiting');
    for (const repo of REPOS) {
      const pulls = world.pullsOf(repo, key);
      expect(pulls).toHaveLength(1);
      expect(pulls[0]!.title).toBe(`[${key}] Shared export`);
      expect(await world.branchLog(repo, key)).toEqual(expect.arrayContaining([`[${key}] implement the tasks`]));
    }
    // The service reviewed each pull request once before asking a person (a comment review, never an approval).
    for (const repo of REPOS) {
      const own = world.scm.state.reviews.filter((r) => r.repo === repo && r.user.login === 'service-bot' && r.body.includes('Automated review by the service'));
      expect(own.map((r) => r.state)).toEqual(['COMMENTED']);
    }
    const links = world.comments(key).filter((c) => REPOS.some((repo) => c.includes(`${repo}/pull/`)));
    expect(links).toHaveLength(2);
    const children = [...tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${key}`));
    expect(children.map((c) => c.status)).toEqual(children.map(() => 'In Progress'));

    const attempts = (v: Record<string, any>, station: string) => (v.station_attempts as Array<{ station: string }>).filter((a) => a.station === station).length;
    // The web app goes green first; the API has no checks yet, so the ticket waits for CI.
    world.person.check('acme/web', key, 'unit-tests', 'success');
    await world.at(key, 'wait_for_ci_gate', 'waiting for the API checks');
    // The API's tests fail: an agent fixes them in a container, one commit is pushed, the ticket says so, and the
    // new head is waited for.
    world.person.check('acme/api', key, 'unit-tests', 'failure', 'expected 2 rows, got 3');
    await world.at(key, 'wait_for_ci_gate', 'waiting for CI after the fix', (v) => attempts(v, 'attempt_ci_fix') === 1 && attempts(v, 'ci_evaluator') >= 3);
    expect(await world.branchLog('acme/api', key)).toContain(`[${key}] fix: address CI failures (attempt 1)`);
    expect(await world.branchLog('acme/web', key)).not.toContain(`[${key}] fix: address CI failures (attempt 1)`);
    expect(world.comments(key).filter((c) => c.startsWith('🔧 CI fix attempt 1/3 on acme/api#'))).toHaveLength(1);
    // The description follows the pushed fix, and keeps its footer.
    expect(world.pullsOf('acme/api', key)[0]!.body).toContain('Latest: A fix for the failed CI checks unit-tests (attempt 1):');
    expect(world.pullsOf('acme/api', key)[0]!.body).toMatch(/_Opened by the service for FD-\d+\._$/);
    // The first fix was not enough: a second attempt, counted on.
    world.person.check('acme/api', key, 'unit-tests', 'failure', 'expected 2 rows, got 4');
    await world.at(key, 'wait_for_ci_gate', 'waiting for CI after the second fix', (v) => attempts(v, 'attempt_ci_fix') === 2 && attempts(v, 'ci_evaluator') >= 5);
    expect((await world.branchLog('acme/api', key)).filter((s) => s.startsWith(`[${key}] fix: address CI failures`))).toEqual([
      `[${key}] fix: address CI failures (attempt 1)`, `[${key}] fix: address CI failures (attempt 2)`,
    ]);
    expect(world.comments(key).filter((c) => c.startsWith('🔧 CI fix attempt 2/3 on acme/api#'))).toHaveLength(1);
    // Green on the fixed head: back to the person.
    world.person.check('acme/api', key, 'unit-tests', 'success');
    await world.at(key, 'human_review_gate', 'the review gate after green CI', (v) => attempts(v, 'ci_evaluator') >= 6);

    // A reviewer asks for two changes: one is made, pushed and answered with its commit; the other is contested with
    // a reason, and the ticket waits for the person at review_response_gate.
    world.plan.reviewDecision = (item) => (item.includes('Delete src/feature.txt') ? { decision: 'contest', reply: 'The task needs src/feature.txt: it is the feature.' } : undefined);
    world.person.review('acme/api', key, 'CHANGES_REQUESTED', 'Two things.', [
      { path: 'APP.md', line: 1, body: 'Say which rows are exported.' },
      { path: 'APP.md', line: 1, body: 'Delete src/feature.txt.' },
    ]);
    await world.at(key, 'review_response_gate', 'the contested review', (v) => attempts(v, 'implement_review') === 1);
    expect((await world.branchLog('acme/api', key)).filter((s) => s === `[${key}] review: address PR feedback`)).toHaveLength(1);
    const thread = (text: string) => {
      const root = world.scm.state.reviewComments.find((c) => c.body === text && c.repo === 'acme/api')!;
      return world.scm.state.reviewComments.filter((c) => c.inReplyToId === root.id).map((c) => [c.user.login, c.body.split('\n')[0]!]);
    };
    expect(thread('Say which rows are exported.')).toEqual([['service-bot', expect.stringMatching(/^Done in [0-9a-f]{7}: /)]]);
    expect(thread('Delete src/feature.txt.')).toEqual([['service-bot', 'The task needs src/feature.txt: it is the feature.']]);
    expect(world.pullsOf('acme/api', key)[0]!.body).toContain('Latest: Changes a reviewer asked for:');
    // The person lets it stand: service:retry returns to the review gate.
    tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
    await world.at(key, 'human_review_gate', 'the review gate after the retry', (v) => attempts(v, 'implement_review') === 1 && !v.checkpoint?.is_blocked);

    // Both pull requests merge: tasks, epics and the feature close, with one completion comment.
    world.person.merge('acme/api', key);
    world.person.merge('acme/web', key);
    const done = await world.at(key, 'done', 'the end', () => true, 120_000);
    expect(done.status).toBe('completed');
    const closed = [...tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${key}`) || i.key === key);
    expect(closed.map((c) => [c.key, c.status])).toEqual(closed.map((c) => [c.key, 'Closed']));
    expect(world.comments(key).filter((c) => c.includes(`Closed: `))).toHaveLength(1);

    // The ticket's creation delivered again (the tracker retries, the poller re-reads it): a completed ticket is not
    // planned and implemented a second time.
    const created = tracker.webhooks.deliveries.find((d) => d.event === 'jira:issue_created' && (d.payload as { issue?: { key?: string } }).issue?.key === key)!;
    const again = await fetch(created.url, { method: 'POST', headers: created.headers, body: created.body });
    expect(again.ok).toBe(true);
    expect(await again.json()).toMatchObject({ ignored: expect.stringContaining('has completed'), ticket_key: key });
    expect(await world.execution(key)).toMatchObject({ status: 'completed', run_id: done.run_id });
    expect(REPOS.map((repo) => world.pullsOf(repo, key).length)).toEqual([1, 1]);
  }, 900_000);

  it('pushes one branch, opens one pull request and posts one link when the worker dies during the push and during PR creation; /service rebase merges main, resolving a conflict in a container; /service skip-gate ends a wait for a stuck check', async () => {
    const { tracker, scm, stack } = world;
    world.plan.repositories = ['acme/api'];
    const issue = tracker.state.createIssue({ projectKey: 'FD', issueType: 'Story', summary: 'Crash safe', labels: ['service:managed', 'service:yolo'] });
    const key = issue.key;
    const branch = `service/${key.toLowerCase()}`;
    const api = scm.state.repo('acme', 'api');
    // The first push and the PR creation are applied by the host, and their answers never come back: the worker is
    // killed while it waits for each of them.
    scm.faults.enqueue({ match: { method: 'POST', path: /acme\/api\.git\/git-receive-pack$/ }, kind: 'apply-then-timeout', holdMs: 60_000, times: 1 });
    await eventually(async () => api.branches.get(branch), 480_000, 'the first push to land');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    scm.faults.enqueue({ match: { method: 'POST', path: /\/repos\/acme\/api\/pulls$/ }, kind: 'apply-then-timeout', holdMs: 60_000, times: 1 });
    await stack.restartWorker();
    await eventually(async () => (world.pullsOf('acme/api', key).length > 0 ? true : undefined), 480_000, 'the pull request to be created');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    await stack.restartWorker();

    await world.at(key, 'human_review_gate', 'the human review gate after two worker kills', () => true, 480_000);
    expect(world.pullsOf('acme/api', key)).toHaveLength(1);
    expect(world.comments(key).filter((c) => c.includes('acme/api/pull/'))).toHaveLength(1);
    const log = await world.branchLog('acme/api', key);
    expect(log.filter((subject) => subject === `[${key}] implement the tasks`)).toHaveLength(1);

    // `/service rebase` on the pull request after main moved on: the merge is clean, pushed from the host, and the
    // ticket returns where it was (then waits for CI of the new head).
    const rebases = (v: Record<string, any>) => (v.station_attempts as Array<{ station: string }>).filter((a) => a.station === 'rebase').length;
    const merged = `[${key}] merge main into ${branch}`;
    await world.pushToMain('acme/api', 'OTHER.md', 'other work\n');
    world.person.comment('acme/api', key, '/service rebase');
    await world.at(key, 'wait_for_ci_gate', 'after the clean rebase', (v) => rebases(v) === 1);
    expect((await world.branchLog('acme/api', key)).filter((s) => s === merged)).toHaveLength(1);
    // main changed the file the branch added: the agent resolves the conflict in a container, no marker is left.
    await world.pushToMain('acme/api', 'src/feature.txt', 'main wrote this\n');
    world.person.comment('acme/api', key, '/service rebase');
    const last = (v: Record<string, any>) => (v.station_attempts as Array<{ station: string }>).at(-1)?.station;
    await world.at(key, 'wait_for_ci_gate', 'after the conflicting rebase', (v) => rebases(v) === 2 && last(v) === 'ci_evaluator');
    expect((await world.branchLog('acme/api', key)).filter((s) => s === merged)).toHaveLength(2);
    expect(await world.fileOnBranch('acme/api', key, 'src/feature.txt')).not.toMatch(/^(<{7}|={7}|>{7})/m);
    expect(world.pullsOf('acme/api', key)).toHaveLength(1);

    // A check that never finishes holds the ticket at wait_for_ci_gate; `/service skip-gate` on the pull request
    // answers there, notes it on the ticket, and CI is judged again without it.
    const evaluations = (v: Record<string, any>) => (v.station_attempts as Array<{ station: string }>).filter((a) => a.station === 'ci_evaluator').length;
    const before = evaluations(await world.execution(key));
    const head = world.pullsOf('acme/api', key).find((p) => p.state === 'open')!.headSha;
    world.scm.state.reportCheckRun(api, { name: 'e2e (chrome)', headSha: head, status: 'in_progress' });
    world.person.check('acme/api', key, 'build', 'success');
    await world.at(key, 'wait_for_ci_gate', 'waiting for the e2e check', (v) => evaluations(v) > before);
    world.person.comment('acme/api', key, '/service skip-gate e2e');
    await world.at(key, 'human_review_gate', 'the review gate once e2e is skipped');
    const number = world.pullsOf('acme/api', key)[0]!.number;
    expect(world.scm.state.issueComments.filter((c) => c.repo === 'acme/api' && c.number === number && c.body.startsWith('✅ Skipping CI checks whose name contains `e2e`'))).toHaveLength(1);
    expect(world.comments(key).filter((c) => c.startsWith('ℹ️ Skipping CI checks matching `e2e`'))).toHaveLength(1);
  }, 1_200_000);
});
