import type { TimelineEntry } from '../../../workflows/read-model/timeline';

/** One move of a ticket from node to node, as its timeline's transition entries record it. */
export interface Move {
  from: string;
  to: string;
  outcome: string;
  at: string;
}

/** The path a ticket took through its definition: its moves in order, and where it stands now. */
export interface TicketPath {
  moves: Move[];
  current: string | null;
}

/**
 * The moves of a ticket, read from the transition entries of its timeline (`details.from`, `details.to`). Entries
 * without both (a block, a resume in place) are not moves. Pure. Retention may have trimmed the oldest entries: the
 * path then starts later, which the page says.
 */
export function ticketPath(entries: readonly TimelineEntry[], current: string | null): TicketPath {
  const moves: Move[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'transition') continue;
    const { from, to, outcome } = entry.details as { from?: unknown; to?: unknown; outcome?: unknown };
    if (typeof from !== 'string' || typeof to !== 'string') continue;
    moves.push({ from, to, outcome: typeof outcome === 'string' ? outcome : entry.status, at: entry.occurred_at });
  }
  return { moves, current };
}

export const edgeId = (from: string, to: string): string => `${from}\u2192${to}`;

/**
 * The back edges of a graph from its entry (a depth-first walk in definition order): edges that lead to a node on the
 * way to their source, which is what a rework loop is (feedback, a critique, changes requested). Pure.
 */
export function backEdges(entry: string, successors: (node: string) => readonly string[]): Set<string> {
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string) => {
    state.set(node, 'open');
    for (const next of successors(node)) {
      const seen = state.get(next);
      if (seen === 'open') back.add(edgeId(node, next));
      else if (seen === undefined) visit(next);
    }
    state.set(node, 'done');
  };
  visit(entry);
  return back;
}

/**
 * How often each edge was taken, and which of those were detours: a move along a back edge (a rework loop) or along
 * no edge of the definition (`$return` after answering a question, a migration). Pure.
 */
export function takenEdges(path: TicketPath, definedEdges: ReadonlySet<string>, back: ReadonlySet<string>): { taken: Map<string, number>; detours: Set<string> } {
  const taken = new Map<string, number>();
  const detours = new Set<string>();
  for (const move of path.moves) {
    const id = edgeId(move.from, move.to);
    taken.set(id, (taken.get(id) ?? 0) + 1);
    if (back.has(id) || !definedEdges.has(id)) detours.add(id);
  }
  return { taken, detours };
}
