import { describe, expect, it } from 'vitest';
import { JqlError, JqlIssueView, matchesJql, parseJql, parseJqlDate } from '../../../src/sandbox/tracker-simulator/jql';

const now = new Date('2025-01-10T12:00:00Z');
const issue = (overrides: Partial<JqlIssueView> = {}): JqlIssueView => ({
  key: 'PROJ-1', id: '10000', project: 'PROJ', labels: ['service:managed'], status: 'In Progress', statusCategory: 'indeterminate',
  issuetype: 'Feature', summary: 'Checkout flow', text: 'pay', created: new Date('2025-01-01T00:00:00Z'), updated: new Date('2025-01-10T11:55:00Z'),
  ...overrides,
});
const matches = (jql: string, view = issue()) => matchesJql(parseJql(jql), view, now);

describe('simulator JQL', () => {
  it('matches the poller query shape', () => {
    expect(matches('labels = "service:managed" AND updated >= -10m')).toBe(true);
    expect(matches('labels = "service:managed" AND updated >= -1m')).toBe(false);
  });
  it('supports IN, NOT IN, OR, NOT, parentheses, IS EMPTY and ~', () => {
    expect(matches('key in (PROJ-2, PROJ-1)')).toBe(true);
    expect(matches('status not in ("Done", Closed)')).toBe(true);
    expect(matches('issuetype = Bug OR (project = PROJ AND NOT labels = x)')).toBe(true);
    expect(matches('parent is EMPTY')).toBe(true);
    expect(matches('parent is not EMPTY')).toBe(false);
    expect(matches('summary ~ checkout')).toBe(true);
    expect(matches('statusCategory != done')).toBe(true);
  });
  it('rejects what it cannot evaluate instead of matching everything', () => {
    expect(() => parseJql('assignee = currentUser()')).toThrow(JqlError);
    expect(() => parseJql('labels = x AND')).toThrow(/Expecting more input/);
    expect(() => parseJql('labels = "x')).toThrow(/quoted string/);
  });
  it('parses absolute and relative dates', () => {
    expect(parseJqlDate('2025-01-02 10:30', now).toISOString()).toBe('2025-01-02T10:30:00.000Z');
    expect(parseJqlDate('-2h', now).toISOString()).toBe('2025-01-10T10:00:00.000Z');
    expect(() => parseJqlDate('yesterday', now)).toThrow(JqlError);
  });
});
