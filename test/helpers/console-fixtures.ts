import type { ListedTicket } from '../../src/console/board/listed-ticket';
import type { ExecutionView } from '../../workflows/read-model/execution-view';
import { initialCheckpoint } from '../../workflows/runtime/ticket-state';
import type { TimelineEntry } from '../../workflows/read-model/timeline';

/** An execution view of a bug ticket with the given changes (fields as the read model serves them). */
export function viewOf(key: string, changes: Partial<ExecutionView> = {}): ExecutionView {
  return {
    schema_version: '1.0', run_id: `run-${key}`, workflow_id: `ticket-${key}`, ticket_key: key, workflow_type: 'bug', status: 'running',
    current_position: 'analyze_bug', definition: { name: 'bug', revision: 3, digest: 'd'.repeat(64) }, permitted_commands: [], next_transitions: [],
    waiting: null, blocking: null, last_observation: null, observations_received: 1, observation_decisions: {}, recent_events: [],
    station_attempts: [], tokens_spent: 0, tokens_by_stage: {}, artifacts: {}, effects: [], migration: null, retry_count: 0,
    checkpoint: { ...initialCheckpoint(), current_node: changes.current_position ?? 'analyze_bug', is_blocked: changes.status === 'blocked' },
    started_at: '2026-12-01T08:00:00.000Z',
    ...changes,
  };
}

export function listedOf(view: ExecutionView, changes: Partial<ListedTicket> = {}): ListedTicket {
  return {
    ticketKey: view.ticket_key, workflowId: view.workflow_id, runStatus: 'RUNNING', startedAt: view.started_at, closedAt: null,
    attributes: { status: view.status, node: view.current_position, blocked: view.status === 'blocked', kind: view.workflow_type, pullRequests: [] },
    view,
    ...changes,
  };
}

let nextEventId = 1;
export function entry(kind: TimelineEntry['kind'], summary: string, details: Record<string, unknown> = {}, status = 'ok'): TimelineEntry {
  const id = nextEventId++;
  return { event_id: id, kind, occurred_at: `2026-12-01T09:${String(id % 60).padStart(2, '0')}:00.000Z`, status, summary, details };
}

export const move = (from: string, to: string, outcome: string): TimelineEntry => entry('transition', `${from} → ${to} (${outcome})`, { from, to, outcome }, outcome);

/** The four groups of the board, one ticket each. */
export function fourTickets(): ListedTicket[] {
  const gate = viewOf('BUG-1', {
    status: 'waiting', current_position: 'rca_option_gate', permitted_commands: ['>option'],
    waiting: { code: 'gate', message: 'a fix option: comment `>option N`', since: '2026-12-01T09:00:00.000Z', recovery: 'commands accepted here: >option' },
  });
  const running = viewOf('BUG-2', {
    station_attempts: [{ node: 'analyze_bug', station: 'analyze_bug', visit: 1, started_at: '2026-12-01T09:30:00.000Z', finished_at: null, status: 'running', outcome: null, summary: null, error: null, effects: 0, usage: null }],
  });
  const blocked = viewOf('OPS-3', {
    workflow_type: 'feature', definition: { name: 'feature', revision: 4, digest: 'e'.repeat(64) }, status: 'blocked', current_position: 'create_pr',
    blocking: { code: 'station_failed', message: 'create_pr failed after its retries: 502' }, permitted_commands: ['service:retry'],
    waiting: { code: 'station_failed', message: 'create_pr failed after its retries: 502', since: '2026-12-01T07:00:00.000Z', recovery: 'fix the cause, then add the label service:retry to resume at create_pr' },
  });
  const done = viewOf('BUG-4', { status: 'completed', current_position: 'done' });
  return [
    listedOf(gate),
    listedOf(running, { attributes: { status: 'running', node: 'analyze_bug', blocked: false, kind: 'bug', pullRequests: ['acme/app#7'] } }),
    listedOf(blocked),
    listedOf(done, { runStatus: 'COMPLETED', closedAt: '2026-12-01T10:00:00.000Z' }),
  ];
}
