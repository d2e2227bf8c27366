import { describe, expect, it } from 'vitest';
import { fixTaskRepository, pullRequestOf, workSources } from '../../../src/sandbox/ticket-work';

const bug = { key: 'SBX-1', type: 'Bug', summary: 'Crash on save' };
const fix = { key: 'SBX-2', type: 'Task', summary: 'Fix: Crash on save (sandbox/app)' };

describe('whose pull requests carry a ticket\'s work', () => {
  it('finds a fix Task\'s work in its bug\'s pull request, in its repository only', () => {
    expect(fixTaskRepository(fix.summary)).toBe('sandbox/app');
    expect(fixTaskRepository('Fix the login (soon)')).toBeUndefined();
    expect(workSources(fix, [], [bug])).toEqual([
      { key: 'SBX-2' },
      { key: 'SBX-1', repository: 'sandbox/app', note: 'the pull request of SBX-1, the bug this task fixes' },
    ]);
    // A Task that only relates to a bug, without the fix summary, is not its fix.
    expect(workSources({ key: 'SBX-3', type: 'Task', summary: 'Write the docs' }, [], [bug])).toEqual([{ key: 'SBX-3' }]);
  });

  it('names, on a bug\'s own pull request, the fix task of its repository', () => {
    expect(workSources(bug, [], [fix, { key: 'SBX-9', type: 'Story', summary: 'Unrelated' }])).toEqual([
      { key: 'SBX-1', repository: 'sandbox/app', note: 'the fix of SBX-2, this bug\'s fix task in sandbox/app' },
      { key: 'SBX-1' },
    ]);
  });

  it('finds a feature\'s task in the feature\'s pull requests, through its epic', () => {
    const sources = workSources({ key: 'SBX-7', type: 'Task', summary: 'CSV exporter' }, [{ key: 'SBX-6', type: 'Epic', summary: 'Export' }, { key: 'SBX-1', type: 'Feature', summary: 'Export reports' }], []);
    expect(sources.map((s) => [s.key, s.note])).toEqual([
      ['SBX-7', undefined],
      ['SBX-6', 'the pull request of SBX-6, the epic this task belongs to'],
      ['SBX-1', 'the pull request of SBX-1, the feature this task belongs to'],
    ]);
  });

  it('matches a pull request by its branch or the key in brackets in its title, not by a longer key', () => {
    expect(pullRequestOf('SBX-1', { head: 'service/sbx-1', title: 'x' })).toBe(true);
    expect(pullRequestOf('sbx-1', { head: 'feature/x', title: '[SBX-1] Export' })).toBe(true);
    expect(pullRequestOf('SBX-1', { head: 'service/sbx-10', title: '[SBX-10] Other' })).toBe(false);
    expect(pullRequestOf('SBX-1', { head: 'service/prd/sbx-1', title: 'PRD' })).toBe(false);
  });
});
