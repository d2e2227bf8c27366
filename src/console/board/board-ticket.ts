import type { ExecutionStatus, Waiting } from '../../../workflows/runtime/ticket-state';
import { parsePullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';
import type { ListedTicket } from './listed-ticket';

/** What the board knows of one ticket: the execution view's facts, or the search attributes' when it has no view. */
export interface BoardTicket {
  key: string;
  project: string;
  kind: string;
  definition: { name: string; revision: number } | null;
  node: string;
  status: ExecutionStatus | 'unknown';
  /** The run ended in Temporal (completed, terminated, failed, timed out); null while it runs. */
  ended: { runStatus: string; at: string | null } | null;
  waiting: Waiting | null;
  blocking: { code: string; message: string } | null;
  permittedCommands: string[];
  pullRequests: string[];
  repositories: string[];
  startedAt: string;
  /** When the station now running started, when one is. */
  stationSince: string | null;
  tokensSpent: number | null;
  /** false: the memo was busy or absent, and only the search attributes were read. */
  detailed: boolean;
}

const STATUSES: readonly string[] = ['running', 'waiting', 'blocked', 'failed', 'completed'];

export function projectOf(ticketKey: string): string {
  return ticketKey.split('-')[0] ?? ticketKey;
}

/** The board's ticket from a listed workflow. Pure. */
export function boardTicketOf(listed: ListedTicket): BoardTicket {
  const view = listed.view;
  const node = view?.current_position ?? listed.attributes.node ?? 'unknown';
  const running = [...(view?.station_attempts ?? [])].reverse().find((a) => a.status === 'running' && a.node === node);
  const status = view?.status ?? (STATUSES.includes(listed.attributes.status ?? '') ? listed.attributes.status as ExecutionStatus : 'unknown');
  return {
    key: listed.ticketKey,
    project: projectOf(listed.ticketKey),
    kind: view?.workflow_type ?? listed.attributes.kind ?? 'unknown',
    definition: view?.definition ? { name: view.definition.name, revision: view.definition.revision } : null,
    node,
    status,
    ended: listed.runStatus === 'RUNNING' ? null : { runStatus: listed.runStatus, at: listed.closedAt },
    waiting: view?.waiting ?? null,
    blocking: view?.blocking ?? (listed.attributes.blocked ? { code: 'blocked', message: 'blocked (details are read when the workflow is idle)' } : null),
    permittedCommands: view?.permitted_commands ?? [],
    pullRequests: listed.attributes.pullRequests,
    repositories: [...new Set(listed.attributes.pullRequests.map((ref) => parsePullRequestRef(ref)?.repository).filter((r): r is string => r !== undefined))],
    startedAt: view?.started_at ?? listed.startedAt,
    stationSince: running?.started_at ?? null,
    tokensSpent: view ? view.tokens_spent : null,
    detailed: view !== undefined,
  };
}
