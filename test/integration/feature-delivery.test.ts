import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDeliveryWorld, type DeliveryWorld } from '../helpers/delivery-world';
import { eventually } from '../helpers/webhooks';

const REPOS = ['acme/api', 'acme/web'];

/**
 * A Feature ticket from creation to a merged delivery, on the real dev server, worker and gateway, the tracker and
 * GitHub simulators (real git behind smart HTTP), rootless podman for every container station, and a model that
 * plans one task per repository and whose agents make real changes. What a user would see is asserted: pull
 * requests, commits on the branches, comments, labels and statuses in the tracker.
 */
describe('feature delivery end to end', () => {
  let world: DeliveryWorld;

  beforeAll(async () => {
    world = await startDeliveryWorld(inject('temporalAddress'), { repositories: REPOS, taskQueue: 'it-feature-delivery' });
  }, 600_000);

  afterAll(async () => {
    await world?.close();
  });

  it('implements a two-repository feature: one branch, commits and pull request per repository, then waits for a person', async () => {
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
    const links = world.comments(key).filter((c) => REPOS.some((repo) => c.includes(`${repo}/pull/`)));
    expect(links).toHaveLength(2);
    const children = [...tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${key}`));
    expect(children.map((c) => c.status)).toEqual(children.map(() => 'In Progress'));
  }, 900_000);

  it('pushes one branch, opens one pull request and posts one link when the worker dies during the push and during PR creation', async () => {
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
  }, 1_200_000);
});
