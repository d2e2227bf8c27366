import { dagre } from './dagre-module';
import { RETURN_TARGET, type DefinitionNode, type WorkflowDefinition } from '../../../workflows/built-in-definitions/definition-types';
import { backEdges, edgeId, takenEdges, type TicketPath } from './ticket-path';

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
  const graph = new dagre.graphlib.Graph({ multigraph: false });
  graph.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 44, edgesep: 12, marginx: MARGIN, marginy: MARGIN });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = Object.keys(definition.nodes);
  for (const id of ids) {
    const node = definition.nodes[id]!;
    const text = Math.max(id.length, roleOf(node).length + 2);
    graph.setNode(id, { width: Math.max(110, text * CHAR_WIDTH + 28), height: node.kind === 'end' ? 34 : NODE_HEIGHT });
  }
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
  for (const edge of all.values()) graph.setEdge(edge.from, edge.to, { label: edge.outcomes.join(', '), width: 0, height: 0 });
  dagre.layout(graph);

  const visited = new Set((path?.moves ?? []).flatMap((m) => [m.from, m.to]));
  const nodes: LaidOutNode[] = ids.map((id) => {
    const placed = graph.node(id);
    const node = definition.nodes[id]!;
    return {
      id, kind: node.kind, role: roleOf(node),
      x: placed.x, y: placed.y, width: placed.width, height: placed.height,
      current: path?.current === id, visited: visited.has(id) || path?.current === id,
      ...(tickets ? { tickets: tickets[id] ?? 0 } : {}),
    };
  });
  const edges: LaidOutEdge[] = [...all.entries()].map(([id, edge]) => ({
    from: edge.from, to: edge.to, label: edge.outcomes.join(', '),
    points: (graph.edge(edge.from, edge.to)?.points ?? []).map((p: { x: number; y: number }) => ({ x: p.x, y: p.y })),
    taken: taken.get(id) ?? 0, detour: detours.has(id), loop: back.has(id), extra: edge.extra,
  }));
  const size = graph.graph();
  return { width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0), nodes, edges };
}
