import { describe, expect, it } from 'vitest';
import { epicsToClose, isDone } from '../../../../activities/stations/delivery/completion-stations';
import { issueEffectName, workOfRepository } from '../../../../activities/stations/delivery/pull-request-stations';
import type { TrackerIssue } from '../../../../src/providers/tracker/tracker-types';

const issue = (key: string, issueType: string, extra: Partial<TrackerIssue> = {}): TrackerIssue => ({
  id: key, key, projectKey: 'FD', summary: key, description: '', labels: [], issueType, status: 'To Do', statusCategory: 'new', created: '', updated: '', ...extra,
});

describe('delivery host stations', () => {
  const children = [
    issue('FD-2', 'Epic', { labels: ['repo:acme/api'] }),
    issue('FD-3', 'Epic', { labels: ['repo:acme/web'] }),
    issue('FD-4', 'Task', { parentKey: 'FD-2', labels: ['repo:acme/api'] }),
    issue('FD-5', 'Task', { parentKey: 'FD-3', labels: ['repo:ACME/web'] }),
    issue('FD-6', 'Task', { parentKey: 'FD-3', labels: ['repo:acme/web'], status: 'Closed', statusCategory: 'done' }),
  ];

  it('finds the tasks of one repository and the epics above them', () => {
    const web = workOfRepository(children, 'acme/web');
    expect(web.tasks.map((t) => t.key)).toEqual(['FD-5', 'FD-6']);
    expect(web.epics.map((e) => e.key)).toEqual(['FD-3']);
    expect(workOfRepository(children, 'acme/other')).toEqual({ tasks: [], epics: [] });
  });

  it('closes an epic only when every child task is done', () => {
    expect(epicsToClose(children)).toEqual([]);
    expect(epicsToClose(children, new Set(['FD-5'])).map((e) => e.key)).toEqual(['FD-3']);
    const allDone = children.map((c) => (c.issueType === 'Task' ? { ...c, status: 'Closed', statusCategory: 'done' } : c));
    expect(epicsToClose(allDone).map((e) => e.key)).toEqual(['FD-2', 'FD-3']);
    // An epic without tasks is not closed by the service: nothing says its work is done.
    expect(epicsToClose([issue('FD-9', 'Epic')])).toEqual([]);
  });

  it('reads done from the status category, or from the status name when the category is missing', () => {
    expect(isDone({ status: 'Shipped', statusCategory: 'done' })).toBe(true);
    expect(isDone({ status: 'Closed', statusCategory: 'indeterminate' })).toBe(false);
    expect(isDone({ status: 'Resolved' })).toBe(true);
    expect(isDone({ status: 'In Review' })).toBe(false);
  });

  it('names effects per issue in the contract\'s lower_snake_case', () => {
    expect(issueEffectName('start', 'FD-12')).toBe('start_fd_12');
    expect(issueEffectName('pr', 'acme/web-app')).toBe('pr_acme_web_app');
    expect(issueEffectName('close', 'X'.repeat(80))).toHaveLength(64);
  });
});
