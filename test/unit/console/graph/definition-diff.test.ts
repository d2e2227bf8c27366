import { describe, expect, it } from 'vitest';
import { diffDefinitions, fieldText, nodeFieldChanges } from '../../../../src/console/graph/definition-diff';
import { layoutDiff } from '../../../../src/console/graph/definition-layout';
import { graphSvg } from '../../../../src/console/graph/graph-svg';
import { BUG_DEFINITION, FEATURE_DEFINITION } from '../../../../workflows/built-in-definitions';
import type { DefinitionNode, WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import { triggerLabelOf } from '../../../../workflows/vocabulary/command-words';
import { bugNextRevision } from '../../../helpers/console-definition-revisions';

const changed = (diff: ReturnType<typeof diffDefinitions>, change: string) => diff.nodes.filter((n) => n.change === change).map((n) => n.id).sort();
const edges = (diff: ReturnType<typeof diffDefinitions>, change: string) => diff.edges.filter((e) => e.change === change).map((e) => `${e.from}→${e.to}`).sort();

describe('diffDefinitions', () => {
  it('finds nothing between a revision and itself, nor in a copy with its keys in another order', () => {
    const shuffled: WorkflowDefinition = { ...FEATURE_DEFINITION, nodes: Object.fromEntries(Object.entries(FEATURE_DEFINITION.nodes).reverse().map(([id, node]) => [id, Object.fromEntries(Object.entries(node).reverse())])) as WorkflowDefinition['nodes'] };
    for (const other of [FEATURE_DEFINITION, shuffled]) {
      const diff = diffDefinitions(FEATURE_DEFINITION, other);
      expect(diff.identical).toBe(true);
      expect(diff.nodes.every((n) => n.change === 'same')).toBe(true);
      expect(diff.edges.every((e) => e.change === 'same')).toBe(true);
      expect(diff.counts).toEqual({ nodes: { added: 0, removed: 0, changed: 0 }, edges: { added: 0, removed: 0, changed: 0 } });
    }
  });

  it('lists the nodes added, removed and changed, and each field that changed: kind, station, retry bound, gate label, triggers, retry_to, outcomes', () => {
    const diff = diffDefinitions(BUG_DEFINITION, bugNextRevision());
    expect(changed(diff, 'added')).toEqual(['security_review']);
    expect(changed(diff, 'removed')).toEqual(['update_documentation']);
    expect(changed(diff, 'changed')).toEqual(['local_review', 'rca_option_gate', 'review_response_gate', 'teardown_workspace', 'triage_check']);
    const fields = (id: string) => diff.nodes.find((n) => n.id === id)!.fields;
    expect(fields('triage_check')).toEqual([
      { field: 'station', from: 'triage_check', to: 'triage_check_v2' },
      { field: 'retry_bound', from: '3', to: '5' },
    ]);
    expect(fields('teardown_workspace')).toEqual([
      { field: 'kind', from: 'station', to: 'router' },
      { field: 'station', from: 'teardown_workspace', to: null },
      { field: 'router', from: null, to: 'next_repository' },
    ]);
    const gate = BUG_DEFINITION.nodes.rca_option_gate as { accepts: string[] };
    expect(fields('rca_option_gate')).toEqual([
      // Triggers by label, as people read them (the built-in body names them by id).
      { field: 'accepts', from: gate.accepts.map(triggerLabelOf).join(', '), to: gate.accepts.slice(1).map(triggerLabelOf).join(', ') },
      { field: 'pending_label', from: 'service:rca-pending', to: 'service:rca-waiting' },
      { field: 'on.regenerate', from: 'analyze_bug', to: 'plan_bug_fix' },
    ]);
    expect(fields('review_response_gate')).toEqual([{ field: 'retry_to', from: 'human_review_gate', to: 'implement_review' }]);
    expect(fields('local_review')).toEqual([{ field: 'on.passed', from: 'update_documentation', to: 'security_review' }]);
    // The removed and added nodes keep their own fields: the drawing shows what they were.
    expect(diff.nodes.find((n) => n.id === 'update_documentation')!.node).toEqual(BUG_DEFINITION.nodes.update_documentation);
    expect(diff.description).toEqual({ from: BUG_DEFINITION.description, to: 'Bug flow with a security review.' });
    expect(diff.entry).toBeNull();
    expect(diff.identical).toBe(false);
  });

  it('finds no change in triggers named by legacy label in one revision and by id in the other, and shows labels', () => {
    const gate = BUG_DEFINITION.nodes.rca_option_gate as Extract<DefinitionNode, { kind: 'gate' }>;
    expect(gate.accepts[0]).toBe('option');
    const byLabel: WorkflowDefinition = { ...BUG_DEFINITION, revision: 3, nodes: { ...BUG_DEFINITION.nodes, rca_option_gate: { ...gate, accepts: gate.accepts.map(triggerLabelOf) } } };
    expect(diffDefinitions(BUG_DEFINITION, byLabel).identical).toBe(true);
    const fewer: WorkflowDefinition = { ...BUG_DEFINITION, revision: 3, nodes: { ...BUG_DEFINITION.nodes, rca_option_gate: { ...gate, accepts: gate.accepts.slice(1) } } };
    expect(nodeFieldChanges(byLabel.nodes.rca_option_gate!, fewer.nodes.rca_option_gate!)[0]).toEqual({
      field: 'accepts', from: expect.stringMatching(/^>option, a question \(\?\), /), to: expect.stringMatching(/^a question \(\?\), /),
    });
  });

  it('lists the edges added, removed and changed (the same two nodes, other outcomes)', () => {
    const diff = diffDefinitions(BUG_DEFINITION, bugNextRevision());
    expect(edges(diff, 'added')).toEqual(['local_review→security_review', 'security_review→create_pr']);
    expect(edges(diff, 'removed')).toEqual(['local_review→update_documentation', 'update_documentation→create_pr']);
    expect(edges(diff, 'changed')).toEqual(['rca_option_gate→analyze_bug', 'rca_option_gate→plan_bug_fix']);
    const toPlan = diff.edges.find((e) => e.from === 'rca_option_gate' && e.to === 'plan_bug_fix')!;
    expect(toPlan.outcomesBefore).toEqual(['option_selected', 'approved']);
    expect(toPlan.outcomesAfter).toEqual(['option_selected', 'approved', 'regenerate']);
    expect(diff.counts).toEqual({ nodes: { added: 1, removed: 1, changed: 5 }, edges: { added: 2, removed: 2, changed: 2 } });
    // Every edge of either revision is there once.
    const ids = diff.edges.map((e) => `${e.from}→${e.to}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads the other way round as the mirror image', () => {
    const forward = diffDefinitions(BUG_DEFINITION, bugNextRevision());
    const back = diffDefinitions(bugNextRevision(), BUG_DEFINITION);
    expect(changed(back, 'added')).toEqual(changed(forward, 'removed'));
    expect(changed(back, 'removed')).toEqual(changed(forward, 'added'));
    expect(edges(back, 'added')).toEqual(edges(forward, 'removed'));
    expect(back.nodes.find((n) => n.id === 'triage_check')!.fields).toEqual([
      { field: 'station', from: 'triage_check_v2', to: 'triage_check' },
      { field: 'retry_bound', from: '5', to: '3' },
    ]);
  });

  it('says when the entry moved, and where an outcome that leads to $return changed (no edge is drawn for it)', () => {
    const before: WorkflowDefinition = { apiVersion: 'service/v1', name: 'tiny', revision: 1, entry: 'a', nodes: {
      a: { kind: 'station', station: 'a', on: { ok: 'b' } }, b: { kind: 'station', station: 'b', on: { ok: '$return', done: 'end' } }, end: { kind: 'end', result: 'completed' },
    } };
    const after: WorkflowDefinition = { ...before, revision: 2, entry: 'b', nodes: { ...before.nodes, b: { kind: 'station', station: 'b', on: { done: 'end' } } } };
    const diff = diffDefinitions(before, after);
    expect(diff.entry).toEqual({ from: 'a', to: 'b' });
    expect(diff.nodes.find((n) => n.id === 'b')!.fields).toEqual([{ field: 'on.ok', from: '$return', to: null }]);
    expect(diff.edges.every((e) => e.change === 'same')).toBe(true);
    expect(nodeFieldChanges({ kind: 'end', result: 'completed' }, { kind: 'end', result: 'blocked', code: 'x' })).toEqual([
      { field: 'result', from: 'completed', to: 'blocked' }, { field: 'code', from: null, to: 'x' },
    ]);
    expect(fieldText({ b: 1, a: true })).toBe('{"a":true,"b":1}');
    expect(fieldText([])).toBe('(none)');
  });
});

describe('layoutDiff', () => {
  it('draws both revisions in one graph, every node and edge marked as the diff says', () => {
    const diff = diffDefinitions(BUG_DEFINITION, bugNextRevision());
    const layout = layoutDiff(diff, ['intake']);
    expect(layout.nodes.map((n) => n.id).sort()).toEqual(diff.nodes.map((n) => n.id).sort());
    expect(layout.nodes.find((n) => n.id === 'update_documentation')!.change).toBe('removed');
    expect(layout.nodes.find((n) => n.id === 'security_review')!.change).toBe('added');
    expect(layout.nodes.find((n) => n.id === 'teardown_workspace')).toMatchObject({ change: 'changed', kind: 'router' });
    expect(layout.nodes.find((n) => n.id === 'intake')!.change).toBeUndefined();
    expect(layout.edges.every((e) => e.points.length >= 2)).toBe(true);
    expect(layout.edges.find((e) => e.from === 'local_review' && e.to === 'update_documentation')!.change).toBe('removed');
    // The rework loops are still drawn as loops.
    expect(layout.edges.find((e) => e.from === 'reflect_rca' && e.to === 'analyze_bug')!.loop).toBe(true);
    const svg = graphSvg(layout, 'bug r2 → r3').text;
    expect(svg).toMatch(/<g class="node station removed" data-node="update_documentation" data-kind="station" data-change="removed">/);
    expect(svg).toMatch(/<g class="edge changed" data-from="rca_option_gate" data-to="plan_bug_fix" data-taken="0" data-change="changed">/);
    expect(svg).toMatch(/<g class="node station" data-node="intake" data-kind="station">/);
  });
});
