import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssueOnce, trackerIssueOperationSchemas } from '../../../activities/tracker-issue-effect-activities';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { neutraliseEffectText } from '../../../src/redaction/neutralise-commands';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import type { EffectOperation } from '../../../workflows/effects/effect-types';

type CreateIssue = Extract<EffectOperation, { kind: 'tracker.create_issue' }>;

/** tracker.create_issue over real HTTP against the tracker simulator: adoption by identity label, and the bug link. */
describe('tracker.create_issue', () => {
  let sim: TrackerSimulator;
  beforeAll(async () => {
    sim = await startTrackerSimulator({ projects: ['BUG'] });
  });
  afterAll(async () => sim?.close());
  const client = () => createTrackerClient({ baseUrl: sim.url, email: 'service@example.com', apiToken: 'token-value', retry: { maxAttempts: 1 } });

  const fixTask = (bug: string, identity: string): CreateIssue => ({
    kind: 'tracker.create_issue', project_key: 'BUG', issue_type: 'Task', summary: 'Fix: Crash on save (acme/api)', description: 'Steps',
    labels: [`service:parent:${bug}`, 'repo:acme/api', identity], identity_label: identity, relates_to: bug,
  });
  const relatesLinks = (key: string) => sim.state.issue(key).links.filter((link) => link.type === 'Relates');

  it('creates the issue linked "Relates" to relates_to, and a repeat adopts it without a second link', async () => {
    const bug = sim.state.createIssue({ projectKey: 'BUG', issueType: 'Bug', summary: 'Crash on save' });
    const operation = fixTask(bug.key, `service:fix:${bug.key.toLowerCase()}:acme-api`);
    const first = await createIssueOnce(client(), operation);
    expect(first).not.toHaveProperty('adopted');
    const task = first.ids!.issue_key!;
    expect(relatesLinks(task)).toEqual([expect.objectContaining({ outwardKey: task, inwardKey: bug.key })]);
    expect(sim.state.issue(task).parentKey).toBeUndefined();

    const again = await createIssueOnce(client(), operation);
    expect(again).toMatchObject({ ids: { issue_key: task }, adopted: true });
    expect(again.note).toBeUndefined();
    expect(relatesLinks(task)).toHaveLength(1);
    expect(relatesLinks(bug.key)).toHaveLength(1);
  });

  it('adds the missing link when it adopts an issue a crash left unlinked', async () => {
    const bug = sim.state.createIssue({ projectKey: 'BUG', issueType: 'Bug', summary: 'Crash on load' });
    const identity = `service:fix:${bug.key.toLowerCase()}:acme-api`;
    // What a crash between create and link leaves behind: the issue with its identity label, no link.
    const orphan = sim.state.createIssue({ projectKey: 'BUG', issueType: 'Task', summary: 'Fix: Crash on load (acme/api)', labels: [identity] });
    const adopted = await createIssueOnce(client(), fixTask(bug.key, identity));
    expect(adopted).toMatchObject({ ids: { issue_key: orphan.key }, adopted: true, note: `linked to ${bug.key}` });
    expect(relatesLinks(orphan.key)).toEqual([expect.objectContaining({ outwardKey: orphan.key, inwardKey: bug.key })]);
    // A link made from the other side counts as well: Relates has no direction that matters here.
    const other = sim.state.createIssue({ projectKey: 'BUG', issueType: 'Task', summary: 'x', labels: ['service:fix:other'] });
    sim.state.linkIssues('Relates', bug.key, other.key);
    expect(await createIssueOnce(client(), fixTask(bug.key, 'service:fix:other'))).toMatchObject({ ids: { issue_key: other.key }, adopted: true, note: undefined });
    expect(relatesLinks(other.key)).toHaveLength(1);
  });

  it('reads the links of an issue with getIssue', async () => {
    const bug = sim.state.createIssue({ projectKey: 'BUG', issueType: 'Bug', summary: 'b' });
    const task = sim.state.createIssue({ projectKey: 'BUG', issueType: 'Task', summary: 't' });
    sim.state.linkIssues('Relates', task.key, bug.key);
    expect((await client().getIssue(task.key)).links).toEqual([{ type: 'Relates', issueKey: bug.key, direction: 'outward' }]);
    expect((await client().getIssue(bug.key)).links).toEqual([{ type: 'Relates', issueKey: task.key, direction: 'inward' }]);
  });

  it('creates without a link when relates_to is not set (epics and tasks of a feature)', async () => {
    const created = await createIssueOnce(client(), { kind: 'tracker.create_issue', project_key: 'BUG', issue_type: 'Task', summary: 'plain', labels: ['service:x:1'], identity_label: 'service:x:1' });
    expect(sim.state.issue(created.ids!.issue_key!).links).toEqual([]);
  });

  it('accepts relates_to in the operation schema only as an issue key, and neutralisation keeps it', () => {
    const schema = trackerIssueOperationSchemas[0];
    const operation = fixTask('BUG-1', 'service:fix:bug-1:acme-api');
    expect(schema.parse(operation)).toMatchObject({ relates_to: 'BUG-1' });
    expect(schema.safeParse({ ...operation, relates_to: 'not a key' }).success).toBe(false);
    const { relates_to: _omitted, ...withoutLink } = operation;
    expect(schema.safeParse(withoutLink).success).toBe(true);
    expect(neutraliseEffectText({ ...operation, description: '/service approve' })).toMatchObject({ relates_to: 'BUG-1', description: '\u200B/service approve' });
  });
});
