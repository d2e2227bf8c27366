import { describe, expect, it } from 'vitest';
import { definitionEdges, layoutDefinition } from '../../../../src/console/graph/definition-layout';
import { ticketPath } from '../../../../src/console/graph/ticket-path';
import { BUG_DEFINITION, FEATURE_DEFINITION } from '../../../../workflows/built-in-definitions';
import type { TimelineEntry } from '../../../../workflows/read-model/timeline';

const move = (from: string, to: string, outcome: string, id: number): TimelineEntry => ({
  event_id: id, kind: 'transition', occurred_at: `2026-12-01T10:00:${String(id).padStart(2, '0')}Z`, status: outcome,
  summary: `${from} → ${to} (${outcome})`, details: { from, to, outcome },
});

describe('layoutDefinition', () => {
  it('places every node of a built-in definition, inside the drawing, without overlaps', () => {
    for (const definition of [FEATURE_DEFINITION, BUG_DEFINITION]) {
      const layout = layoutDefinition(definition);
      expect(layout.nodes.map((n) => n.id).sort()).toEqual(Object.keys(definition.nodes).sort());
      for (const node of layout.nodes) {
        expect(node.x - node.width / 2).toBeGreaterThanOrEqual(0);
        expect(node.y + node.height / 2).toBeLessThanOrEqual(layout.height);
      }
      for (const [i, a] of layout.nodes.entries()) {
        for (const b of layout.nodes.slice(i + 1)) {
          const apart = Math.abs(a.x - b.x) >= (a.width + b.width) / 2 || Math.abs(a.y - b.y) >= (a.height + b.height) / 2;
          expect(apart, `${a.id} and ${b.id} overlap`).toBe(true);
        }
      }
      expect(layout.edges.every((e) => e.points.length >= 2)).toBe(true);
    }
  });

  it('merges the outcomes that lead to one node into one edge and leaves $return undrawn', () => {
    const edges = definitionEdges(BUG_DEFINITION);
    expect(edges.get('rca_option_gate→analyze_bug')?.outcomes).toEqual(['feedback', 'regenerate']);
    expect([...edges.values()].some((e) => e.from === 'answer_question')).toBe(false);
  });

  it('marks the current node, the edges taken, a loop back as a detour, and a move along no edge as an extra detour', () => {
    const entries = [
      move('intake', 'triage_check', 'configured', 1),
      move('triage_check', 'analyze_bug', 'complete', 2),
      move('analyze_bug', 'reflect_rca', 'analyzed', 3),
      move('reflect_rca', 'analyze_bug', 'critique', 4),
      move('analyze_bug', 'reflect_rca', 'analyzed', 5),
      move('reflect_rca', 'rca_option_gate', 'done', 6),
      move('rca_option_gate', 'answer_question', 'question', 7),
      move('answer_question', 'rca_option_gate', '$return', 8),
    ];
    const layout = layoutDefinition(BUG_DEFINITION, ticketPath(entries, 'rca_option_gate'));
    expect(layout.nodes.filter((n) => n.current).map((n) => n.id)).toEqual(['rca_option_gate']);
    const edge = (from: string, to: string) => layout.edges.find((e) => e.from === from && e.to === to)!;
    expect(edge('analyze_bug', 'reflect_rca')).toMatchObject({ taken: 2, detour: false, extra: false });
    expect(edge('reflect_rca', 'analyze_bug')).toMatchObject({ taken: 1, detour: true });
    expect(edge('answer_question', 'rca_option_gate')).toMatchObject({ taken: 1, detour: true, extra: true });
    expect(edge('plan_bug_fix', 'plan_approval_gate')).toMatchObject({ taken: 0, detour: false });
    expect(layout.nodes.find((n) => n.id === 'plan_bug_fix')!.visited).toBe(false);
  });

  it('counts tickets per node when given counts', () => {
    const layout = layoutDefinition(FEATURE_DEFINITION, undefined, { intake: 3 });
    expect(layout.nodes.find((n) => n.id === 'intake')!.tickets).toBe(3);
    expect(layout.nodes.find((n) => n.id === 'done')!.tickets).toBe(0);
  });
});
