import { RETRY_LABEL } from '../../../workflows/vocabulary/labels';
import type { BoardTicket } from './board-ticket';

/** Who must act next on a ticket: the board's four columns, in the order they are shown. */
export const BOARD_GROUPS = ['waiting_on_person', 'running', 'blocked', 'done'] as const;
export type BoardGroup = (typeof BOARD_GROUPS)[number];

export const GROUP_TITLES: Record<BoardGroup, string> = {
  waiting_on_person: 'Waiting on a person',
  running: 'Running',
  blocked: 'Blocked',
  done: 'Done',
};

/** Where a ticket goes on the board and what its card says beyond the key. */
export interface Placement {
  group: BoardGroup;
  /** The gate, station or node the ticket stands at. */
  at: string;
  since: string | null;
  /** One line: what the ticket waits for, why it is blocked, or how it ended. */
  detail: string;
  /** What a person writes or labels to move it (gates), or what clears the block; null when nothing is theirs to do. */
  action: string | null;
  code: string | null;
}

/**
 * Sorts a ticket into its group. A gate waits on a person, except the CI gate, which waits on the checks (a review is
 * welcome there, but nobody is held up); a block names its code and what clears it, which is service:retry unless
 * the workflow says otherwise; a run that ended in Temporal is done, whatever it last published. Pure.
 *
 * @param gateKind the kind of the gate the ticket stands at (from its pinned definition), when known.
 */
export function placeTicket(ticket: BoardTicket, gateKind?: string): Placement {
  const at = ticket.node;
  if (ticket.ended || ticket.status === 'completed') {
    const how = ticket.status === 'completed' ? `completed at ${at}` : `run ${ticket.ended!.runStatus.toLowerCase().replace(/_/g, ' ')} at ${at}`;
    return { group: 'done', at, since: ticket.ended?.at ?? null, detail: how, action: null, code: null };
  }
  if (ticket.status === 'blocked' || ticket.status === 'failed' || ticket.blocking) {
    const code = ticket.blocking?.code ?? ticket.waiting?.code ?? ticket.status;
    const retry = ticket.permittedCommands.includes(RETRY_LABEL) || ticket.status === 'blocked' ? `add the label ${RETRY_LABEL}` : null;
    const recovery = ticket.waiting?.recovery ?? null;
    return {
      group: 'blocked', at, since: ticket.waiting?.since ?? null, code,
      detail: ticket.blocking?.message ?? ticket.waiting?.message ?? `${ticket.status} at ${at}`,
      action: recovery ?? retry,
    };
  }
  if (ticket.status === 'waiting' && ticket.waiting?.code === 'gate' && gateKind !== 'ci_wait') {
    return {
      group: 'waiting_on_person', at, since: ticket.waiting.since, code: null,
      detail: ticket.waiting.message,
      action: ticket.waiting.recovery ?? (ticket.permittedCommands.length > 0 ? `commands accepted here: ${ticket.permittedCommands.join(', ')}` : null),
    };
  }
  const detail = gateKind === 'ci_wait' ? ticket.waiting?.message ?? 'waiting for the checks' : ticket.waiting?.message ?? `at ${at}`;
  return { group: 'running', at, since: ticket.stationSince ?? ticket.waiting?.since ?? ticket.startedAt, detail, action: null, code: null };
}

export interface PlacedTicket {
  ticket: BoardTicket;
  placement: Placement;
}

export type Board = Record<BoardGroup, PlacedTicket[]>;

/**
 * The board: tickets in their groups, people's work first by how long it has waited (oldest first), done newest
 * first. Pure; `gateKindOf` answers from the pinned definitions.
 */
export function buildBoard(tickets: readonly BoardTicket[], gateKindOf: (ticket: BoardTicket) => string | undefined): Board {
  const board: Board = { waiting_on_person: [], running: [], blocked: [], done: [] };
  for (const ticket of tickets) {
    const placement = placeTicket(ticket, gateKindOf(ticket));
    board[placement.group].push({ ticket, placement });
  }
  // Times are ISO strings and keys ASCII: plain comparison orders them, several times faster than localeCompare
  // (the board of 10,000 tickets is sorted once per listing).
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const since = (p: PlacedTicket) => p.placement.since ?? '';
  for (const group of ['waiting_on_person', 'running', 'blocked'] as const) board[group].sort((a, b) => compare(since(a), since(b)) || compare(a.ticket.key, b.ticket.key));
  board.done.sort((a, b) => compare(since(b), since(a)) || compare(a.ticket.key, b.ticket.key));
  return board;
}
