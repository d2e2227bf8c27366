import { describe, expect, it } from 'vitest';
import { ScmhostState, type ScmhostSimEvent } from '../../../src/sandbox/scmhost-simulator/scmhost-state';
import { TrackerState } from '../../../src/sandbox/tracker-simulator/tracker-state';

/** Through JSON, as the sandbox writes and reads it. */
const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('simulator state snapshots (what service dev --sandbox keeps in the data directory)', () => {
  it('a restored tracker keeps its tickets and never hands out an issue, changelog or comment id again', () => {
    const before = new TrackerState(() => 'http://tracker');
    before.createProject('SBX');
    before.setProperty(before.project('SBX').properties, 'service.repos', ['sandbox/app']);
    const first = before.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'First', labels: ['service:managed'] });
    const comment = before.addComment(first.key, 'hello', undefined, [{ key: 'marker', value: { k: 1 } }]);
    before.updateLabels(first.key, [{ add: 'service:blocked' }]);
    const serviceAccount = before.userForEmail('service@sandbox.local');

    const after = new TrackerState(() => 'http://tracker');
    after.restore(viaJson(before.snapshot()));
    expect(after.issue(first.key)).toMatchObject({ summary: 'First', labels: ['service:managed', 'service:blocked'] });
    expect(after.issue(first.key).comments[0]?.properties.get('marker')).toEqual({ k: 1 });
    expect(after.project('SBX').properties.get('service.repos')).toEqual(['sandbox/app']);
    expect(after.userForEmail('service@sandbox.local').accountId).toBe(serviceAccount.accountId);

    const second = after.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'Second', labels: ['service:managed'] });
    const secondComment = after.addComment(second.key, 'hi');
    after.updateLabels(second.key, [{ add: 'x' }]);
    expect(second.key).toBe('SBX-2');
    expect(Number(second.id)).toBeGreaterThan(Number(first.id));
    expect(Number(secondComment.id)).toBeGreaterThan(Number(comment.id));
    expect(Number(second.histories[0]?.id)).toBeGreaterThan(Number(after.issue(first.key).histories[0]?.id));
  });

  it('a restored source host keeps pull requests tied to their head repository and keeps counting ids', () => {
    const before = new ScmhostState();
    const repo = before.createRepository('sandbox/app');
    before.createBranch(repo, 'service/sbx-1', 'a'.repeat(40));
    const pull = before.createPull(repo, { title: '[SBX-1] First', head: 'service/sbx-1', base: 'main' }, before.user('service-bot'));
    before.putFile(repo, 'README.md', '# app');

    const after = new ScmhostState();
    after.restore(viaJson(before.snapshot()));
    const events: ScmhostSimEvent[] = [];
    after.onEvent((event) => events.push(event));
    const restoredRepo = after.repo('sandbox', 'app');
    after.pushBranch(restoredRepo, 'service/sbx-1', 'b'.repeat(40));
    expect(events.map((e) => `${e.event}:${'action' in e ? e.action : ''}`)).toEqual(['pull_request:synchronize']);
    expect(after.pull(restoredRepo, 1).headSha).toBe('b'.repeat(40));
    expect(after.filesOf(restoredRepo).get('README.md')).toBe('# app');
    expect(after.id()).toBeGreaterThan(pull.id);
  });
});
