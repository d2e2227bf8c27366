import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDeliveryWorld, type DeliveryWorld } from '../helpers/delivery-world';

const PROJECT = 'platform/billing';

/**
 * Delivery to a GitLab project of the repository registry: the same flow as on GitHub, on the GitLab simulator
 * (real git behind smart HTTP, merge requests, notes, pipelines and GitLab's webhooks), real podman and the real
 * worker and gateway. What a user would see on GitLab and in the tracker is asserted.
 */
describe('feature delivery to GitLab', () => {
  let world: DeliveryWorld;

  beforeAll(async () => {
    world = await startDeliveryWorld(inject('temporalAddress'), { repositories: [], gitlabProjects: [PROJECT], projectKey: 'GL', taskQueue: 'it-gitlab-delivery' });
  }, 600_000);

  afterAll(async () => {
    await world?.close();
  });

  it('opens one merge request, reviews it in a note, fixes a failed pipeline, answers a reviewer\'s note with a change, and closes the work when the merge request is merged', async () => {
    const { tracker, gitlab } = world;
    const key = tracker.state.createIssue({ projectKey: 'GL', issueType: 'Feature', summary: 'Invoice export', description: 'Export invoices as CSV.', labels: ['service:managed', 'service:yolo'] }).key;

    await world.at(key, 'human_review_gate', 'the human review gate', () => true, 480_000);
    const [mr, ...more] = world.mergeRequestsOf(PROJECT, key);
    expect(more).toHaveLength(0);
    expect(mr).toMatchObject({ title: `[${key}] Invoice export`, state: 'opened', targetBranch: 'main', author: 'service-bot' });
    expect(mr!.description).toMatch(/_Opened by the service for GL-\d+\._$/);
    expect(await world.branchLog(PROJECT, key)).toEqual(expect.arrayContaining([`[${key}] implement the tasks`]));
    // One link on the ticket, to the merge request's page.
    expect(world.comments(key).filter((c) => c.includes(`${gitlab.url}/${PROJECT}/-/merge_requests/${mr!.iid}`))).toHaveLength(1);
    // The service's own review is a note on the merge request (GitLab has no comment reviews).
    expect(mr!.notes.filter((n) => n.author === 'service-bot' && n.body.includes('Automated review by the service'))).toHaveLength(1);

    // The pipeline of the head fails: an agent fixes it in a container and pushes; the ticket says so on the
    // merge request's reference, and the description follows the fix.
    const attempts = (v: Record<string, any>, station: string) => (v.station_attempts as Array<{ station: string }>).filter((a) => a.station === station).length;
    world.person.pipeline(PROJECT, key, 'failed');
    await world.at(key, 'wait_for_ci_gate', 'waiting for the pipeline of the fix', (v) => attempts(v, 'attempt_ci_fix') === 1);
    expect(await world.branchLog(PROJECT, key)).toContain(`[${key}] fix: address CI failures (attempt 1)`);
    expect(world.comments(key).filter((c) => c.startsWith(`🔧 CI fix attempt 1/3 on ${PROJECT}!${mr!.iid}`))).toHaveLength(1);
    expect(world.mergeRequestsOf(PROJECT, key)[0]!.description).toContain('Latest: A fix for the failed CI checks pipeline (attempt 1):');

    // Green on the fixed head; then a reviewer's note asks for a change: it is made and pushed, and the note is
    // answered in a note naming the commit.
    world.person.pipeline(PROJECT, key, 'success');
    await world.at(key, 'human_review_gate', 'the review gate after a green pipeline', (v) => attempts(v, 'ci_evaluator') >= 3);
    world.person.mergeRequestNote(PROJECT, key, 'Say which invoices are exported.');
    await world.at(key, 'wait_for_ci_gate', 'waiting for the pipeline of the review change', (v) => attempts(v, 'implement_review') === 1);
    expect((await world.branchLog(PROJECT, key)).filter((s) => s === `[${key}] review: address PR feedback`)).toHaveLength(1);
    const answers = world.mergeRequestsOf(PROJECT, key)[0]!.notes.filter((n) => n.author === 'service-bot' && n.body.startsWith('On the review:'));
    expect(answers.map((n) => n.body.split('\n')[1])).toEqual([expect.stringMatching(/^- octo-reviewer: Done in [0-9a-f]{7}: /)]);

    // Green again, then a person merges: tasks, epic and feature close.
    world.person.pipeline(PROJECT, key, 'success');
    await world.at(key, 'human_review_gate', 'the review gate after the review change', (v) => attempts(v, 'ci_evaluator') >= 4);
    world.person.mergeRequestMerge(PROJECT, key);
    const done = await world.at(key, 'done', 'the end', () => true, 120_000);
    expect(done.status).toBe('completed');
    const closed = [...tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${key}`) || i.key === key);
    expect(closed.map((c) => [c.key, c.status])).toEqual(closed.map((c) => [c.key, 'Closed']));
    expect(world.mergeRequestsOf(PROJECT, key)).toHaveLength(1);
  }, 900_000);
});
