import { describe, expect, it } from 'vitest';
import { buildBoard, placeTicket, type BoardGroup } from '../../../../src/console/board/board-groups';
import { boardTicketOf } from '../../../../src/console/board/board-ticket';
import type { ListedTicket } from '../../../../src/console/board/listed-ticket';
import { fourTickets, listedOf, viewOf } from '../../../helpers/console-fixtures';

const gateWait = { code: 'gate', message: 'approval of the PRD', since: '2026-12-01T09:00:00.000Z', recovery: 'commands accepted here: service:prd-approved' };

describe('placeTicket', () => {
  const table: Array<{ name: string; listed: ListedTicket; gateKind?: string; group: BoardGroup; action?: string | null; code?: string | null }> = [
    { name: 'a ticket at an approval gate waits on a person', listed: listedOf(viewOf('A-1', { status: 'waiting', current_position: 'prd_gate', waiting: gateWait })), gateKind: 'artifact_approval', group: 'waiting_on_person', action: 'commands accepted here: service:prd-approved' },
    { name: 'a ticket at the CI gate waits on the checks, not on a person', listed: listedOf(viewOf('A-2', { status: 'waiting', current_position: 'ci_wait', waiting: { ...gateWait, message: 'the checks' } })), gateKind: 'ci_wait', group: 'running', action: null },
    { name: 'a gate wait whose gate kind is unknown still waits on a person', listed: listedOf(viewOf('A-3', { status: 'waiting', waiting: gateWait })), group: 'waiting_on_person' },
    { name: 'waiting after a resume is the service\'s move', listed: listedOf(viewOf('A-4', { status: 'waiting', waiting: { code: 'resumed', message: 'resumed', since: '2026-12-01T09:00:00.000Z', recovery: null } })), group: 'running' },
    { name: 'a station at work is running', listed: listedOf(viewOf('A-5')), group: 'running' },
    {
      name: 'a block names its code and what clears it', group: 'blocked', code: 'budget_exhausted', action: 'fix the cause, then add the label service:retry to resume at generate_prd',
      listed: listedOf(viewOf('A-6', { status: 'blocked', blocking: { code: 'budget_exhausted', message: 'over budget' }, waiting: { code: 'budget_exhausted', message: 'over budget', since: '2026-12-01T09:00:00.000Z', recovery: 'fix the cause, then add the label service:retry to resume at generate_prd' } })),
    },
    { name: 'a block without recovery text is cleared by service:retry', listed: listedOf(viewOf('A-7', { status: 'blocked', blocking: { code: 'station_failed', message: 'boom' } })), group: 'blocked', code: 'station_failed', action: 'add the label service:retry' },
    { name: 'blocked by the search attributes alone (memo busy)', listed: { ...listedOf(viewOf('A-8')), view: undefined, attributes: { status: 'blocked', node: 'create_pr', blocked: true, pullRequests: [] } }, group: 'blocked', code: 'blocked' },
    { name: 'a completed ticket is done', listed: listedOf(viewOf('A-9', { status: 'completed', current_position: 'done' })), group: 'done' },
    { name: 'a terminated run is done whatever it last published', listed: listedOf(viewOf('A-10', { status: 'blocked', blocking: { code: 'x', message: 'y' } }), { runStatus: 'TERMINATED', closedAt: '2026-12-01T10:00:00.000Z' }), group: 'done' },
  ];
  for (const row of table) {
    it(row.name, () => {
      const placement = placeTicket(boardTicketOf(row.listed), row.gateKind);
      expect(placement.group).toBe(row.group);
      if (row.action !== undefined) expect(placement.action).toBe(row.action);
      if (row.code !== undefined) expect(placement.code).toBe(row.code);
    });
  }

  it('a terminated run says how it ended', () => {
    const placement = placeTicket(boardTicketOf(listedOf(viewOf('A-11'), { runStatus: 'TERMINATED', closedAt: '2026-12-01T10:00:00.000Z' })));
    expect(placement).toMatchObject({ group: 'done', detail: 'run terminated at analyze_bug', since: '2026-12-01T10:00:00.000Z' });
  });

  it('a running ticket is timed from its station\'s start', () => {
    const ticket = boardTicketOf(fourTickets()[1]!);
    expect(placeTicket(ticket).since).toBe('2026-12-01T09:30:00.000Z');
  });
});

describe('buildBoard', () => {
  it('sorts the tickets into the four groups, the longest waiting first', () => {
    const tickets = fourTickets().map(boardTicketOf);
    const board = buildBoard(tickets, () => undefined);
    expect(Object.fromEntries(Object.entries(board).map(([group, placed]) => [group, placed.map((p) => p.ticket.key)]))).toEqual({
      waiting_on_person: ['BUG-1'], running: ['BUG-2'], blocked: ['OPS-3'], done: ['BUG-4'],
    });
    const older = boardTicketOf(listedOf(viewOf('BUG-9', { status: 'waiting', waiting: { ...gateWait, since: '2026-11-30T09:00:00.000Z' } })));
    expect(buildBoard([...tickets, older], () => undefined).waiting_on_person.map((p) => p.ticket.key)).toEqual(['BUG-9', 'BUG-1']);
  });
});
