import { describe, expect, it } from 'vitest';
import { boardQuery, latestPerTicket } from '../../../src/console/ticket-listing';
import { listedOf, viewOf } from './console-fixtures';

describe('the board\'s listing', () => {
  it('asks visibility for the running tickets of this task queue and those that ended since, without continued runs', () => {
    expect(boardQuery('service-tickets', new Date('2026-12-01T00:00:00Z'))).toBe(
      'WorkflowType = "ticketWorkflow" AND TaskQueue = "service-tickets" AND (ExecutionStatus = \'Running\' OR CloseTime > "2026-12-01T00:00:00.000Z") AND ExecutionStatus != \'ContinuedAsNew\'',
    );
  });

  it('keeps one run per ticket: the running one, else the newest', () => {
    const view = viewOf('A-1');
    const old = listedOf(view, { runStatus: 'TERMINATED', startedAt: '2026-11-01T00:00:00.000Z' });
    const newer = listedOf(view, { runStatus: 'COMPLETED', startedAt: '2026-11-20T00:00:00.000Z' });
    const running = listedOf(view, { runStatus: 'RUNNING', startedAt: '2026-11-10T00:00:00.000Z' });
    expect(latestPerTicket([old, running, newer])).toEqual([running]);
    expect(latestPerTicket([newer, old])).toEqual([newer]);
  });
});
