import { nodeAccepts, type DefinitionNode, type WorkflowDefinition } from '../../../workflows/built-in-definitions/definition-types';
import { triggerLabelOf } from '../../../workflows/vocabulary/command-words';
import { canonicalJson } from '../../definition-rules/definition-digest';
import { definitionEdges } from './definition-layout';
import { edgeId } from './ticket-path';

/** How a node or an edge of the newer revision differs from the older one. */
export type Change = 'added' | 'removed' | 'changed' | 'same';

/** One field of a node that differs: `on.<outcome>` for where one outcome leads. Values as text; null when absent. */
export interface FieldChange {
  field: string;
  from: string | null;
  to: string | null;
}

export interface NodeDiff {
  id: string;
  change: Change;
  /** The node as the newer revision has it; the older revision's for a removed node. */
  node: DefinitionNode;
  /** The fields that differ (changed nodes only). */
  fields: FieldChange[];
}

/** An edge of the drawing (the outcomes from one node to another, merged); `$return` is no edge. */
export interface EdgeDiff {
  from: string;
  to: string;
  change: Change;
  /** The outcomes that lead along it in the older and in the newer revision (empty where it is absent). */
  outcomesBefore: string[];
  outcomesAfter: string[];
}

export interface DefinitionDiff {
  /** The entry node, when it moved. */
  entry: { from: string; to: string } | null;
  /** The description, when it changed. */
  description: { from: string | null; to: string | null } | null;
  /** Every node of either revision: the newer's in its order, then the removed ones in the older's order. */
  nodes: NodeDiff[];
  /** Every edge of either revision, in the same order as the nodes they leave. */
  edges: EdgeDiff[];
  counts: { nodes: Record<Exclude<Change, 'same'>, number>; edges: Record<Exclude<Change, 'same'>, number> };
  /** Nothing differs in the graph, the entry or the description. */
  identical: boolean;
}

/** Fields shown first, in this order; the rest follow by name, then the outcomes. */
const LEADING_FIELDS = ['kind', 'station', 'gate', 'router', 'result'];

/** A field's value as people read it: strings as they are, lists of strings joined, anything else as canonical JSON. */
export function fieldText(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.length === 0 ? '(none)' : value.join(', ');
  return canonicalJson(value);
}

function fieldOrder(a: string, b: string): number {
  const rank = (f: string) => (LEADING_FIELDS.includes(f) ? LEADING_FIELDS.indexOf(f) : LEADING_FIELDS.length);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * A field of a node as people read it. Triggers (`accepts`) by label, whichever spelling the body uses: a revision
 * published with the legacy labels and one by trigger ids accept the same, and people read labels, never ids.
 */
function shownField(node: DefinitionNode, field: string): unknown {
  if (field === 'accepts' && node.kind !== 'end' && node.accepts !== undefined) return nodeAccepts(node).map(triggerLabelOf);
  return (node as unknown as Record<string, unknown>)[field];
}

/** The fields of one node id that differ between two revisions: its kind, station, gate, labels, triggers, outcomes... */
export function nodeFieldChanges(before: DefinitionNode, after: DefinitionNode): FieldChange[] {
  const changes: FieldChange[] = [];
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((f) => f !== 'on').sort(fieldOrder);
  for (const field of fields) {
    const from = shownField(before, field);
    const to = shownField(after, field);
    if (canonicalJson(from ?? null) === canonicalJson(to ?? null)) continue;
    changes.push({ field, from: fieldText(from), to: fieldText(to) });
  }
  const outcomes = (node: DefinitionNode): Record<string, string> => (node.kind === 'end' ? {} : node.on);
  const onBefore = outcomes(before);
  const onAfter = outcomes(after);
  for (const outcome of [...new Set([...Object.keys(onBefore), ...Object.keys(onAfter)])]) {
    if (onBefore[outcome] === onAfter[outcome]) continue;
    changes.push({ field: `on.${outcome}`, from: onBefore[outcome] ?? null, to: onAfter[outcome] ?? null });
  }
  return changes;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * What changed from one revision of a definition to another: nodes added, removed and changed (same id, different
 * fields), and the drawing's edges added, removed and changed (same two nodes, different outcomes). Pure: the
 * console's diff page draws and lists it.
 */
export function diffDefinitions(before: WorkflowDefinition, after: WorkflowDefinition): DefinitionDiff {
  const nodes: NodeDiff[] = [];
  for (const [id, node] of Object.entries(after.nodes)) {
    const old = before.nodes[id];
    if (!old) nodes.push({ id, change: 'added', node, fields: [] });
    else {
      const fields = nodeFieldChanges(old, node);
      nodes.push({ id, change: fields.length > 0 ? 'changed' : 'same', node, fields });
    }
  }
  for (const [id, node] of Object.entries(before.nodes)) {
    if (!(id in after.nodes)) nodes.push({ id, change: 'removed', node, fields: [] });
  }

  const edgesBefore = definitionEdges(before);
  const edgesAfter = definitionEdges(after);
  const edges: EdgeDiff[] = [];
  const seen = new Set<string>();
  for (const { id: from } of nodes) {
    const leaving = [...edgesAfter.values(), ...edgesBefore.values()].filter((e) => e.from === from);
    for (const { to } of leaving) {
      const id = edgeId(from, to);
      if (seen.has(id)) continue;
      seen.add(id);
      const outcomesBefore = edgesBefore.get(id)?.outcomes ?? [];
      const outcomesAfter = edgesAfter.get(id)?.outcomes ?? [];
      const change: Change = outcomesBefore.length === 0 ? 'added' : outcomesAfter.length === 0 ? 'removed' : sameSet(outcomesBefore, outcomesAfter) ? 'same' : 'changed';
      edges.push({ from, to, change, outcomesBefore, outcomesAfter });
    }
  }

  const count = <T extends { change: Change }>(items: readonly T[]) => ({
    added: items.filter((i) => i.change === 'added').length,
    removed: items.filter((i) => i.change === 'removed').length,
    changed: items.filter((i) => i.change === 'changed').length,
  });
  const entry = before.entry === after.entry ? null : { from: before.entry, to: after.entry };
  const description = (before.description ?? null) === (after.description ?? null) ? null : { from: before.description ?? null, to: after.description ?? null };
  const counts = { nodes: count(nodes), edges: count(edges) };
  const identical = !entry && !description && [...Object.values(counts.nodes), ...Object.values(counts.edges)].every((n) => n === 0);
  return { entry, description, nodes, edges, counts, identical };
}
