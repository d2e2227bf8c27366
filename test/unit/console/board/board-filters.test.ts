import { describe, expect, it } from 'vitest';
import { filtersQuery, matchesFilters, parseBoardFilters } from '../../../../src/console/board/board-filters';
import { boardTicketOf } from '../../../../src/console/board/board-ticket';
import { fourTickets } from '../../../helpers/console-fixtures';

describe('board filters', () => {
  it('read project, kind, definition and repository, and write them back', () => {
    const parsed = parseBoardFilters({ project: 'bug', kind: 'bug', definition: 'bug@3', repository: 'acme/app', days: '3' });
    expect(parsed).toEqual({ ok: true, filters: { project: 'BUG', kind: 'bug', definition: { name: 'bug', revision: 3 }, repository: 'acme/app' } });
    expect(filtersQuery(parsed.ok ? parsed.filters : {})).toBe('?project=BUG&kind=bug&definition=bug%403&repository=acme%2Fapp');
    expect(parseBoardFilters({ project: '' })).toEqual({ ok: true, filters: {} });
  });

  it('refuse what they cannot read, saying what they expected', () => {
    expect(parseBoardFilters({ definition: 'bug' })).toEqual({ ok: false, message: 'definition must be name@revision like feature@3, got "bug"' });
    expect(parseBoardFilters({ project: ['A', 'B'] })).toEqual({ ok: false, message: 'project must be given once' });
    expect(parseBoardFilters({ repository: '"><script>' }).ok).toBe(false);
  });

  it('keep the tickets that match every filter', () => {
    const tickets = fourTickets().map(boardTicketOf);
    const keys = (filters: Parameters<typeof matchesFilters>[1]) => tickets.filter((t) => matchesFilters(t, filters)).map((t) => t.key);
    expect(keys({ project: 'OPS' })).toEqual(['OPS-3']);
    expect(keys({ kind: 'bug', definition: { name: 'bug', revision: 3 } })).toEqual(['BUG-1', 'BUG-2', 'BUG-4']);
    expect(keys({ repository: 'acme/app' })).toEqual(['BUG-2']);
  });
});
