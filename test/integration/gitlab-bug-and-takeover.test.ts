import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SANDBOX_GITLAB_PROJECT, SANDBOX_GITLAB_TRACKER_PROJECT } from '../../src/sandbox/sandbox-settings';
import { CODE_CHANGE_RELEASE_NOTE } from '../helpers/code-change-model';
import { startCodeChangeWorld, type CodeChangeWorld } from '../helpers/code-change-world';
import type { LostHooks } from '../helpers/lost-hooks';
import { lateIsDuplicate as lateIsDuplicateOf, lostAtGate as lostAtGateOf } from '../helpers/poller';

const PROJECT = SANDBOX_GITLAB_PROJECT;
const TRACKER_PROJECT = SANDBOX_GITLAB_TRACKER_PROJECT;
const TASK_QUEUE = 'it-gitlab-bug-takeover';
type View = Record<string, any>;

/**
 * A Bug and a taken-over Task on GitLab as the sandbox has them (tracker project GLB, GitLab project
 * sandbox/gitlab-app), each from creation to merge on the real dev server, worker and gateway, rootless podman and the
 * GitLab simulator (real git, merge requests, notes, pipelines, approvals). At every gate the person's action is made
 * with its webhook lost (Jira's for a comment or a label, GitLab's for a pipeline, a note, an approval or a merge):
 * the ticket stays where it is until the poller brings the fact, then moves on, and the timeline says the fact came
 * from the poller. A hook sent late is a duplicate. Asserted is what a user sees: where the ticket stands, the
 * comments, notes and merge requests, each written once.
 */
describe('a bug and a task takeover on GitLab, every gate\'s hook lost and brought by the poller', () => {
  let world: CodeChangeWorld;

  beforeAll(async () => {
    world = await startCodeChangeWorld(inject('temporalAddress'), {
      repositories: [], gitlabProjects: [PROJECT], projectKey: TRACKER_PROJECT, taskQueue: TASK_QUEUE,
      // The poller runs when the test triggers its schedule (so a test knows the fact could only have come from it),
      // and reads from the last poll's watermark less a second.
      env: { SERVICE_POLL_INTERVAL_SECONDS: '3600', SERVICE_POLL_OVERLAP_SECONDS: '1' },
    });
    // Ticket keys name workflow ids on the run's shared Temporal server, and ingress.test.ts starts a ticket GLB-1 of
    // its own: these tickets are numbered from 100.
    world.tracker.state.project(TRACKER_PROJECT).nextIssueNumber = 100;
  }, 600_000);

  afterAll(async () => {
    await world?.close();
  });

  /** How many times the ticket entered a station (the view lists only its last 20 attempts; each names its visit). */
  const visits = (v: View, station: string) => Math.max(0, ...(v.station_attempts as Array<{ station: string; visit: number }>).filter((a) => a.station === station).map((a) => a.visit));
  const commentsWith = (key: string, text: string) => world.comments(key).filter((c) => c.includes(text));
  const notesBy = (key: string, author: string) => world.mergeRequestsOf(PROJECT, key).flatMap((mr) => mr.notes).filter((n) => n.author === author && !n.system);
  const lostAtGate = (key: string, gate: string, simulator: 'gitlab' | 'tracker', event: string, act: () => unknown) => lostAtGateOf(world, TASK_QUEUE, key, { gate, simulator, event }, act);
  const lateIsDuplicate = (key: string, lost: LostHooks, identity: string, answer: number) => lateIsDuplicateOf(world, key, lost, identity, answer);
  /** A managed ticket whose work goes to the GitLab project. */
  const managedTicket = (issueType: 'Bug' | 'Task', summary: string, description: string) => {
    world.plan.repositories = [PROJECT];
    return world.tracker.state.createIssue({ projectKey: TRACKER_PROJECT, issueType, summary, description, labels: ['service:managed'] }).key;
  };

  it('takes a bug from an incomplete report through triage, root cause, the chosen option, the plan, the fix in a merge request, its pipeline, a review note and the approval to the merge, each gate\'s hook lost', async () => {
    const { tracker } = world;
    const key = managedTicket('Bug', 'Crash on save', 'The editor crashes when I save a large file. Expected: the file is saved. Actual: the editor closes. Version 2.3 on Linux.');

    // No steps to reproduce: one question, and the ticket waits at the triage gate.
    await world.at(key, 'triage_gate', 'the triage gate', () => true, 300_000);
    expect(commentsWith(key, `Triage of ${key}`)).toHaveLength(1);

    // The reporter's steps: Jira's hook of the comment is lost; the poller brings it and the analysis runs.
    const steps = await lostAtGate(key, 'triage_gate', 'tracker', 'issue_commented', () => tracker.state.addComment(key, '! Steps to reproduce:\n1. Open a file larger than 10 MB\n2. Press save twice'));
    expect(steps.lost.events).toEqual(['comment_created']);
    await world.at(key, 'rca_option_gate', 'the RCA option gate', () => true, 480_000);
    await lateIsDuplicate(key, steps.lost, steps.identity, 200);
    const rca = commentsWith(key, `Root-cause analysis for ${key}`);
    expect(rca).toHaveLength(1);
    expect(rca[0]).toContain('Option 2: Rework the component (simulated)');

    // `>option 2`, its hook lost: the fix plan follows the second option once, also after the late hook.
    const option = await lostAtGate(key, 'rca_option_gate', 'tracker', 'issue_commented', () => tracker.state.addComment(key, 'We want the real fix. >option 2'));
    await world.at(key, 'plan_approval_gate', 'the fix plan approval gate');
    await lateIsDuplicate(key, option.lost, option.identity, 200);
    const plan = commentsWith(key, `Fix plan for ${key}`);
    expect(plan).toHaveLength(1);
    expect(plan[0]).toMatch(/Fix option\W*2\W+Rework the component \(simulated\)/);
    expect(plan[0]).toContain(`repo: \`${PROJECT}\``);

    // The approving label, its hook lost: one fix Task, one merge request with the root cause and the release note,
    // one link to it on the ticket, and the service's own review note.
    const approved = await lostAtGate(key, 'plan_approval_gate', 'tracker', 'issue_updated', () => tracker.state.updateLabels(key, [{ add: 'service:plan-approved' }]));
    expect(approved.lost.events).toEqual(['jira:issue_updated']);
    await world.at(key, 'human_review_gate', 'the human review gate', () => true, 600_000);
    await lateIsDuplicate(key, approved.lost, approved.identity, 200);
    const fixTasks = [...tracker.state.issues.values()].filter((i) => i.labels.includes(`service:parent:${key}`));
    expect(fixTasks.map((t) => t.summary)).toEqual([`Fix: Crash on save (${PROJECT})`]);
    const [mr, ...more] = world.mergeRequestsOf(PROJECT, key);
    expect(more).toHaveLength(0);
    expect(mr).toMatchObject({ title: `[${key}] Crash on save`, state: 'opened', targetBranch: 'main', author: 'service-bot' });
    expect(mr!.description).toContain('## Root cause');
    expect(mr!.description).toContain(CODE_CHANGE_RELEASE_NOTE.fix);
    expect(world.comments(key).filter((c) => c.includes(`${world.gitlab.url}/${PROJECT}/-/merge_requests/${mr!.iid}`))).toHaveLength(1);
    expect(notesBy(key, 'service-bot').filter((n) => n.body.includes('Automated review by the service'))).toHaveLength(1);

    // The pipeline of the head passes; its hook is lost, and the poller brings it to the CI evaluation.
    const green = await lostAtGate(key, 'human_review_gate', 'gitlab', 'pipeline', () => world.person.pipeline(PROJECT, key, 'success'));
    expect(green.lost.events).toEqual(['pipeline']);
    await world.at(key, 'human_review_gate', 'the review gate after the green pipeline', (v) => visits(v, 'ci_evaluator') > visits(green.before, 'ci_evaluator'));
    await lateIsDuplicate(key, green.lost, green.identity, 202);

    // A reviewer's note asks for a change, its hook lost: the change is pushed and the note answered once, in a note
    // naming the commit; the late note hook changes nothing.
    const note = await lostAtGate(key, 'human_review_gate', 'gitlab', 'note', () => world.person.mergeRequestNote(PROJECT, key, 'Name the stream in the file.'));
    expect(note.lost.events).toEqual(['note']);
    await world.at(key, 'wait_for_ci_gate', 'waiting for the pipeline of the review change', (v) => visits(v, 'implement_review') === 1, 480_000);
    await lateIsDuplicate(key, note.lost, note.identity, 202);
    expect((await world.branchLog(PROJECT, key)).filter((s) => s === `[${key}] review: address PR feedback`)).toHaveLength(1);
    const answers = () => notesBy(key, 'service-bot').filter((n) => n.body.startsWith('On the review:'));
    expect(answers().map((n) => n.body.split('\n')[1])).toEqual([expect.stringMatching(/^- octo-reviewer: Done in [0-9a-f]{7}: /)]);

    // The pipeline of the new head, its hook lost.
    const greenAgain = await lostAtGate(key, 'wait_for_ci_gate', 'gitlab', 'pipeline', () => world.person.pipeline(PROJECT, key, 'success'));
    await world.at(key, 'human_review_gate', 'the review gate after the review change', (v) => visits(v, 'ci_evaluator') > visits(greenAgain.before, 'ci_evaluator'));
    await lateIsDuplicate(key, greenAgain.lost, greenAgain.identity, 202);
    expect(visits(await world.execution(key), 'implement_review')).toBe(1);
    expect(answers()).toHaveLength(1);

    // The reviewer approves; GitLab's hook of the approval is lost. The poller brings it and the bug is done: one
    // summary with the release note, the fix Task and the bug closed.
    await lostAtGate(key, 'human_review_gate', 'gitlab', 'pull_request_review', () => world.person.mergeRequestApprove(PROJECT, key));
    const done = await world.at(key, 'done', 'the end', () => true, 180_000);
    expect(done.status).toBe('completed');
    const summary = commentsWith(key, `The fix for ${key} is delivered`);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain(CODE_CHANGE_RELEASE_NOTE.fix);
    expect(fixTasks.map((t) => tracker.state.issue(t.key).status)).toEqual(['Closed']);
    expect(tracker.state.issue(key).status).toBe('Closed');

    // The person merges it; nothing more is written.
    world.person.mergeRequestMerge(PROJECT, key);
    await world.gitlab.webhooks.flush();
    expect(world.mergeRequestsOf(PROJECT, key).map((m) => m.state)).toEqual(['merged']);
    for (const once of [`Triage of ${key}`, `Root-cause analysis for ${key}`, `Fix plan for ${key}`, `The fix for ${key} is delivered`]) expect(commentsWith(key, once)).toHaveLength(1);
    expect(answers()).toHaveLength(1);
    expect(notesBy(key, 'service-bot').filter((n) => n.body.includes('Automated review by the service'))).toHaveLength(1);
  }, 1_500_000);

  it('takes over a task: the approval comment, a pipeline, a reviewer\'s thread on a line of the diff, the pipeline of the change and the merge, each gate\'s hook lost', async () => {
    const { tracker } = world;
    const key = managedTicket('Task', 'Export as CSV', 'Users need the report as CSV to open it in a spreadsheet. Scope: the export only. Done when the button downloads a CSV.');

    await world.at(key, 'task_plan_approval_gate', 'the plan approval gate', () => true, 300_000);
    const plan = commentsWith(key, `Plan for ${key}`);
    expect(plan).toHaveLength(1);
    expect(plan[0]).toContain(`repo: \`${PROJECT}\``);

    // `/service approve`, its hook lost: one merge request, one link, the service's review note.
    const approve = await lostAtGate(key, 'task_plan_approval_gate', 'tracker', 'issue_commented', () => tracker.state.addComment(key, '/service approve'));
    await world.at(key, 'human_review_gate', 'the human review gate', () => true, 600_000);
    await lateIsDuplicate(key, approve.lost, approve.identity, 200);
    const [mr, ...more] = world.mergeRequestsOf(PROJECT, key);
    expect(more).toHaveLength(0);
    expect(mr).toMatchObject({ title: `[${key}] Export as CSV`, state: 'opened', author: 'service-bot' });
    expect(world.comments(key).filter((c) => c.includes(`${world.gitlab.url}/${PROJECT}/-/merge_requests/${mr!.iid}`))).toHaveLength(1);
    const reviews = () => notesBy(key, 'service-bot').filter((n) => n.body.includes('Automated review by the service'));
    expect(reviews()).toHaveLength(1);

    const green = await lostAtGate(key, 'human_review_gate', 'gitlab', 'pipeline', () => world.person.pipeline(PROJECT, key, 'success'));
    await world.at(key, 'human_review_gate', 'the review gate after the green pipeline', (v) => visits(v, 'ci_evaluator') > visits(green.before, 'ci_evaluator'));
    await lateIsDuplicate(key, green.lost, green.identity, 202);

    // A thread on a line of the diff, its hook lost: the change is pushed and the thread answered once, in its
    // discussion, and resolved.
    let discussion = '';
    const thread = await lostAtGate(key, 'human_review_gate', 'gitlab', 'note', () => {
      discussion = world.person.mergeRequestThread(PROJECT, key, 'Say which rows are exported.', { path: 'src/feature.txt', line: 1 });
    });
    await world.at(key, 'wait_for_ci_gate', 'waiting for the pipeline of the review change', (v) => visits(v, 'implement_review') === 1, 480_000);
    await lateIsDuplicate(key, thread.lost, thread.identity, 202);
    const notes = () => world.gitlab.state.discussion(world.mergeRequestsOf(PROJECT, key)[0]!, discussion).notes;
    expect(notes().map((n) => [n.author, n.type, n.resolvedBy ?? null])).toEqual([['octo-reviewer', 'DiffNote', 'service-bot'], ['service-bot', 'DiffNote', 'service-bot']]);
    expect(notes()[1]!.body).toMatch(/^Done in [0-9a-f]{7}: /);
    expect((await world.branchLog(PROJECT, key)).filter((s) => s === `[${key}] review: address PR feedback`)).toHaveLength(1);

    const greenAgain = await lostAtGate(key, 'wait_for_ci_gate', 'gitlab', 'pipeline', () => world.person.pipeline(PROJECT, key, 'success'));
    await world.at(key, 'human_review_gate', 'the review gate after the review change', (v) => visits(v, 'ci_evaluator') > visits(greenAgain.before, 'ci_evaluator'));
    await lateIsDuplicate(key, greenAgain.lost, greenAgain.identity, 202);

    // The merge, its hook lost: the poller brings it and the task is done, with one summary.
    const merged = await lostAtGate(key, 'human_review_gate', 'gitlab', 'merge_request', () => world.person.mergeRequestMerge(PROJECT, key));
    expect(merged.lost.events).toEqual(['merge_request']);
    const done = await world.at(key, 'done', 'the end', () => true, 180_000);
    expect(done.status).toBe('completed');
    expect(commentsWith(key, `${key} is done`)).toHaveLength(1);
    expect(tracker.state.issue(key).status).toBe('Closed');
    expect(world.mergeRequestsOf(PROJECT, key).map((m) => m.state)).toEqual(['merged']);
    expect(commentsWith(key, `Plan for ${key}`)).toHaveLength(1);
    expect(notes().filter((n) => n.author === 'service-bot')).toHaveLength(1);
    expect(reviews()).toHaveLength(1);
  }, 1_200_000);
});
