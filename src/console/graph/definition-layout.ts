import { dagre } from './dagre-module';
import { RETURN_TARGET, type DefinitionNode, type WorkflowDefinition } from '../../../workflows/built-in-definitions/definition-types';
import { backEdges, edgeId, takenEdges, type TicketPath } from './ticket-path';
import type { Change, DefinitionDiff } from './definition-diff';

export interface LaidOutNode {
  id: string;
  kind: DefinitionNode['kind'];
  /** The station, gate kind or router of the node; for an end, its result. */
  role: string;
  x: number;
  y: number;
  width: number;
  height: number;
  current: boolean;
  visited: boolean;
  /** How many tickets stand here (the definition page); undefined where not counted. */
  tickets?: number;
  /** On a comparison of two revisions: how the node differs (undefined where it does not, or nothing is compared). */
  change?: Exclude<Change, 'same'>;
}

export interface LaidOutEdge {
  from: string;
  to: string;
  /** The outcomes that lead along this edge, comma separated. */
  label: string;
  points: Array<{ x: number; y: number }>;
  taken: number;
  detour: boolean;
  /** A back edge of the definition (a rework loop), drawn apart whether taken or not. */
  loop: boolean;
  /** Not an edge of the definition: a move the ticket made along no edge (a `$return`, a migration). */
  extra: boolean;
  /** On a comparison of two revisions: how the edge differs (undefined where it does not). */
  change?: Exclude<Change, 'same'>;
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
}

const CHAR_WIDTH = 7;
const NODE_HEIGHT = 44;
const MARGIN = 16;

function roleOf(node: DefinitionNode): string {
  switch (node.kind) {
    case 'station': return node.station;
    case 'gate': return node.gate;
    case 'router': return node.router;
    case 'end': return node.result;
  }
}

/** The edges of a definition, outcomes to one target merged; `$return` has no fixed target and is not drawn. */
export function definitionEdges(definition: WorkflowDefinition): Map<string, { from: string; to: string; outcomes: string[] }> {
  const edges = new Map<string, { from: string; to: string; outcomes: string[] }>();
  for (const [from, node] of Object.entries(definition.nodes)) {
    if (node.kind === 'end') continue;
    for (const [outcome, to] of Object.entries(node.on)) {
      if (to === RETURN_TARGET || !(to in definition.nodes)) continue;
      const id = edgeId(from, to);
      const edge = edges.get(id) ?? { from, to, outcomes: [] };
      edge.outcomes.push(outcome);
      edges.set(id, edge);
    }
  }
  return edges;
}

/**
 * Lays a definition out top to bottom with dagre, and marks on it the path a ticket took: the current node, the
 * nodes visited, the edges taken (how often) and the detours. Pure: the same definition and path give the same
 * layout, which the SVG renderer draws.
 */
export function layoutDefinition(definition: WorkflowDefinition, path?: TicketPath, tickets?: Readonly<Record<string, number>>): GraphLayout {
  const defined = definitionEdges(definition);
  const successors = (node: string) => [...defined.values()].filter((e) => e.from === node).map((e) => e.to);
  const back = backEdges(definition.entry, successors);
  const { taken, detours } = takenEdges(path ?? { moves: [], current: null }, new Set(defined.keys()), back);
  const all = new Map([...defined].map(([id, edge]) => [id, { ...edge, extra: false }]));
  for (const id of taken.keys()) {
    if (all.has(id)) continue;
    const move = path!.moves.find((m) => edgeId(m.from, m.to) === id)!;
    if (move.from in definition.nodes && move.to in definition.nodes) all.set(id, { from: move.from, to: move.to, outcomes: [move.outcome], extra: true });
  }
  const placed = placeGraph(Object.entries(definition.nodes).map(([id, node]) => ({ id, node })), [...all.values()].map((e) => ({ from: e.from, to: e.to, label: e.outcomes.join(', ') })));

  const visited = new Set((path?.moves ?? []).flatMap((m) => [m.from, m.to]));
  const nodes: LaidOutNode[] = placed.nodes.map((node) => ({
    ...node,
    current: path?.current === node.id, visited: visited.has(node.id) || path?.current === node.id,
    ...(tickets ? { tickets: tickets[node.id] ?? 0 } : {}),
  }));
  const edges: LaidOutEdge[] = [...all.entries()].map(([id, edge]) => ({
    from: edge.from, to: edge.to, label: edge.outcomes.join(', '), points: placed.points(edge.from, edge.to),
    taken: taken.get(id) ?? 0, detour: detours.has(id), loop: back.has(id), extra: edge.extra,
  }));
  return { width: placed.width, height: placed.height, nodes, edges };
}

/**
 * Two revisions drawn as one graph: the newer revision's nodes and edges, and those the older one had and the newer
 * has not, each marked added, removed or changed as the diff says. Pure.
 */
export function layoutDiff(diff: DefinitionDiff, entries: readonly string[]): GraphLayout {
  const label = (e: DefinitionDiff['edges'][number]) => (e.change === 'removed' ? e.outcomesBefore : e.outcomesAfter).join(', ');
  const placed = placeGraph(diff.nodes.map((n) => ({ id: n.id, node: n.node })), diff.edges.map((e) => ({ from: e.from, to: e.to, label: label(e) })));
  const successors = (node: string) => diff.edges.filter((e) => e.from === node).map((e) => e.to);
  const back = new Set(entries.filter((entry) => diff.nodes.some((n) => n.id === entry)).flatMap((entry) => [...backEdges(entry, successors)]));
  const changeOf = (change: Change) => (change === 'same' ? {} : { change });
  const nodes: LaidOutNode[] = placed.nodes.map((node, i) => ({ ...node, current: false, visited: false, ...changeOf(diff.nodes[i]!.change) }));
  const edges: LaidOutEdge[] = diff.edges.map((e) => ({
    from: e.from, to: e.to, label: label(e), points: placed.points(e.from, e.to),
    taken: 0, detour: false, loop: back.has(edgeId(e.from, e.to)), extra: false, ...changeOf(e.change),
  }));
  return { width: placed.width, height: placed.height, nodes, edges };
}

/** dagre's placement of nodes and edges, top to bottom; the same input gives the same placement. */
function placeGraph(input: ReadonlyArray<{ id: string; node: DefinitionNode }>, edges: ReadonlyArray<{ from: string; to: string; label: string }>) {
  const graph = new dagre.graphlib.Graph({ multigraph: false });
  graph.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 44, edgesep: 12, marginx: MARGIN, marginy: MARGIN });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const { id, node } of input) {
    const text = Math.max(id.length, roleOf(node).length + 2);
    graph.setNode(id, { width: Math.max(110, text * CHAR_WIDTH + 28), height: node.kind === 'end' ? 34 : NODE_HEIGHT });
  }
  for (const edge of edges) graph.setEdge(edge.from, edge.to, { label: edge.label, width: 0, height: 0 });
  dagre.layout(graph);
  const size = graph.graph();
  return {
    width: Math.ceil(size.width ?? 0),
    height: Math.ceil(size.height ?? 0),
    nodes: input.map(({ id, node }) => {
      const at = graph.node(id);
      return { id, kind: node.kind, role: roleOf(node), x: at.x, y: at.y, width: at.width, height: at.height };
    }),
    points: (from: string, to: string) => (graph.edge(from, to)?.points ?? []).map((p: { x: number; y: number }) => ({ x: p.x, y: p.y })),
  };
}
