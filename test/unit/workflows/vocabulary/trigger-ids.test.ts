import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { acceptsEntryOf, TRIGGER, TRIGGER_IDS, TRIGGER_LABEL, triggerIdOf, triggerLabelOf } from '../../../../workflows/vocabulary/command-words';

/**
 * Triggers are stable ids; their prose is a label (issue 44, point 2). Definitions store ids, bodies pinned or
 * published before them store the labels, and both must read as the same trigger.
 */
describe('trigger ids and their labels', () => {
  it('are snake_case ids, one per key of TRIGGER, none naming a node', () => {
    expect(TRIGGER_IDS).toEqual(Object.values(TRIGGER));
    expect(new Set(TRIGGER_IDS).size).toBe(TRIGGER_IDS.length);
    for (const id of TRIGGER_IDS) expect(id).toMatch(/^[a-z][a-z0-9_]*$/);
    // A trigger means what it means wherever a definition accepts it: no id names a gate of a built-in definition.
    const gates = Object.values(BUILT_IN_DEFINITIONS).flatMap((definition) => Object.entries(definition.nodes).filter(([, node]) => node.kind === 'gate').map(([name]) => name));
    expect(gates).toContain('review_response_gate');
    expect(TRIGGER_IDS.filter((id) => gates.some((gate) => id.includes(gate)))).toEqual([]);
    expect(TRIGGER.retryAtReviewResponseGate).toBe('retry_at_review_response');
  });

  it('keep the words people have always read as labels, a distinct one per id', () => {
    expect(Object.keys(TRIGGER_LABEL).sort()).toEqual([...TRIGGER_IDS].sort());
    expect(new Set(Object.values(TRIGGER_LABEL)).size).toBe(TRIGGER_IDS.length);
    expect(TRIGGER_LABEL[TRIGGER.retryAtReviewResponseGate]).toBe('service:retry at review_response_gate');
    expect(TRIGGER_LABEL[TRIGGER.question]).toBe('a question (?)');
    expect(TRIGGER_LABEL[TRIGGER.approve]).toBe('/service approve');
    expect(TRIGGER_LABEL[TRIGGER.prdApproved]).toBe('service:prd-approved');
    // No label is some other trigger's id, so an entry never reads as two triggers.
    for (const label of Object.values(TRIGGER_LABEL)) expect(TRIGGER_IDS).not.toContain(label);
  });

  it('triggerIdOf reads every id as itself and every legacy label as its id', () => {
    for (const id of TRIGGER_IDS) {
      expect(triggerIdOf(id), id).toBe(id);
      expect(triggerIdOf(TRIGGER_LABEL[id]), TRIGGER_LABEL[id]).toBe(id);
    }
  });

  it('triggerIdOf knows nothing else: near misses, other case, object keys', () => {
    for (const entry of ['', 'a question', 'A question (?)', '/service Approve', ' question', 'Question', 'prdApproved', 'constructor', 'toString', '__proto__', 'service:retry']) {
      expect(triggerIdOf(entry), entry).toBeUndefined();
    }
  });

  it('an accepts entry reads as its id and shows as its label; an unknown one stays as written', () => {
    expect(acceptsEntryOf('a merged pull request')).toBe('merged');
    expect(acceptsEntryOf('merged')).toBe('merged');
    expect(acceptsEntryOf('a newer trigger')).toBe('a newer trigger');
    expect(triggerLabelOf('merged')).toBe('a merged pull request');
    expect(triggerLabelOf('a merged pull request')).toBe('a merged pull request');
    expect(triggerLabelOf('a newer trigger')).toBe('a newer trigger');
  });
});
