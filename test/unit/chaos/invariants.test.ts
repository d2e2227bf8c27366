import { describe, expect, it } from 'vitest';
import { checkInvariants, type WorldRecords } from '../../../chaos/invariants';

const clean = (): WorldRecords => ({
  issues: [{
    key: 'SBX-1', summary: 'Feature', issueType: 'Feature', labels: ['service:managed'], createdByService: false,
    links: [{ type: 'Relates', outwardKey: 'SBX-2', inwardKey: 'SBX-1' }],
    comments: [
      { id: '1', byService: true, idempotencyKey: 'k1', text: 'PRD' },
      { id: '2', byService: false, text: '? question' },
      { id: '3', byService: true, idempotencyKey: 'k2', text: 'answer' },
    ],
  }, {
    key: 'SBX-2', summary: 'Fix: x', issueType: 'Task', parentKey: 'SBX-1', labels: [], createdByService: true, links: [], comments: [],
  }],
  pulls: [{ repo: 'sandbox/app', number: 1, headRef: 'service/sbx-1', state: 'closed', merged: true }],
  pullComments: [{ repo: 'sandbox/app', number: 1, byService: true, idempotencyKey: 'c1' }],
  reviewComments: [{ repo: 'sandbox/app', id: 10, byService: false }, { repo: 'sandbox/app', id: 11, inReplyToId: 10, byService: true }],
  branchCommits: { 'SBX-1': ['[SBX-1] implement', '[SBX-1] fix: address CI failures (attempt 1)'] },
  rebaseRequests: {},
});
const done = [{ key: 'SBX-1', expected: 'completed', status: 'completed' }];

describe('the invariants of a seed', () => {
  it('pass on a world where every write happened once, and count the writes checked', () => {
    const verdict = checkInvariants(clean(), done);
    expect(verdict.violations).toEqual([]);
    // 2 service comments + 1 link + 1 created issue + 1 pull + 1 PR comment + 1 reply + 2 commits.
    expect(verdict.writesChecked).toBe(9);
  });

  it('name the ticket and the write when a comment, an issue, a link, a pull request, a reply or a commit happened twice', () => {
    const world = clean();
    world.issues[0]!.comments.push({ id: '4', byService: true, idempotencyKey: 'k1', text: 'PRD' });
    world.issues[0]!.links.push({ type: 'Relates', outwardKey: 'SBX-2', inwardKey: 'SBX-1' });
    world.issues.push({ ...world.issues[1]!, key: 'SBX-3' });
    world.pulls.push({ repo: 'sandbox/app', number: 2, headRef: 'service/sbx-1', state: 'open', merged: false });
    world.pullComments.push({ repo: 'sandbox/app', number: 1, byService: true, idempotencyKey: 'c1' });
    world.reviewComments.push({ repo: 'sandbox/app', id: 12, inReplyToId: 10, byService: true });
    world.branchCommits['SBX-1']!.push('[SBX-1] implement');
    const { violations } = checkInvariants(world, done);
    expect(violations.map((v) => v.invariant).sort()).toEqual([
      'each comment once', 'each created issue once', 'each issue link once', 'each pull request comment once', 'each review reply once',
      'each step pushes its commit once', 'one pull request per branch',
    ]);
    expect(violations.find((v) => v.invariant === 'each comment once')).toMatchObject({ ticket: 'SBX-1', write: 'tracker comment k1' });
    expect(violations.find((v) => v.invariant === 'one pull request per branch')).toMatchObject({ ticket: 'SBX-1' });
    expect(violations.find((v) => v.invariant === 'each created issue once')?.detail).toContain('SBX-2, SBX-3');
  });

  it('allow one merge of main per rebase the person asked for, and no more', () => {
    const world = clean();
    world.branchCommits['SBX-1']!.push('[SBX-1] merge main into service/sbx-1', '[SBX-1] merge main into service/sbx-1');
    world.rebaseRequests['SBX-1'] = 2;
    expect(checkInvariants(world, done).violations).toEqual([]);
    world.rebaseRequests['SBX-1'] = 1;
    expect(checkInvariants(world, done).violations).toEqual([expect.objectContaining({ invariant: 'each step pushes its commit once', ticket: 'SBX-1', write: 'commit "[SBX-1] merge main into service/sbx-1"' })]);
  });

  it('do not count a person\'s repeated comment or an unmarked one as a duplicate write', () => {
    const world = clean();
    world.issues[0]!.comments.push({ id: '5', byService: false, text: '? question' }, { id: '6', byService: false, idempotencyKey: 'k1', text: 'copied' });
    expect(checkInvariants(world, done).violations).toEqual([]);
  });

  it('report a ticket that ended elsewhere, one that got stuck, and stage labels left behind', () => {
    const world = clean();
    world.issues[0]!.labels = ['service:managed', 'service:review-pending', 'service:plan-pending'];
    const { violations } = checkInvariants(world, [
      { key: 'SBX-1', expected: 'completed', status: 'completed' },
      { key: 'SBX-7', expected: 'completed', status: 'blocked', position: 'implement', blocking: 'effect_failed: 503' },
      { key: 'SBX-8', expected: 'completed', status: 'running', stuck: 'no progress for 120 s at human_review_gate' },
    ]);
    expect(violations).toHaveLength(3);
    expect(violations).toEqual(expect.arrayContaining([
      { invariant: 'each ticket ends where its script says', ticket: 'SBX-7', detail: 'expected completed, workflow is blocked at implement (effect_failed: 503)' },
      { invariant: 'no workflow stuck', ticket: 'SBX-8', detail: 'no progress for 120 s at human_review_gate' },
      expect.objectContaining({ invariant: 'label changes applied once and in order', ticket: 'SBX-1' }),
    ]));
  });

  it('find each draft edit in the issues the service created under the ticket (epic, then its tasks), and say when one is missing', () => {
    const world = clean();
    world.issues.push(
      { key: 'SBX-4', summary: 'Renamed epic', issueType: 'Epic', parentKey: 'SBX-1', labels: [], createdByService: true, links: [], comments: [] },
      { key: 'SBX-5', summary: 'Renamed task', issueType: 'Task', parentKey: 'SBX-4', labels: [], createdByService: true, links: [], comments: [] },
      // The same summary on someone else's tree or written by the person does not count.
      { key: 'SBX-6', summary: 'Lost task', issueType: 'Task', parentKey: 'SBX-9', labels: [], createdByService: true, links: [], comments: [] },
      { key: 'SBX-7', summary: 'Lost epic', issueType: 'Epic', parentKey: 'SBX-1', labels: [], createdByService: false, links: [], comments: [] },
    );
    const edited = (summaries: Array<[string, string]>) => [{ ...done[0]!, draftEdits: summaries.map(([gate, summary]) => ({ gate, summary })) }];
    expect(checkInvariants(world, edited([['plan_approval_gate', 'Renamed epic'], ['task_approval_gate', 'Renamed task']])).violations).toEqual([]);
    const { violations } = checkInvariants(world, edited([['plan_approval_gate', 'Lost epic'], ['task_approval_gate', 'Lost task']]));
    expect(violations.map((v) => [v.invariant, v.ticket, v.write])).toEqual([
      ['each draft edit reflected in the artefact', 'SBX-1', 'create the item renamed at plan_approval_gate'],
      ['each draft edit reflected in the artefact', 'SBX-1', 'create the item renamed at task_approval_gate'],
    ]);
    expect(violations[0]!.detail).toContain('SBX-4 "Renamed epic"');
    // A ticket that did not finish is reported as such, not as a missing edit.
    expect(checkInvariants(world, [{ ...edited([['plan_approval_gate', 'Lost epic']])[0]!, status: 'running', stuck: 'no progress' }]).violations.map((v) => v.invariant)).toEqual(['no workflow stuck']);
  });
});
