import { describe, expect, it } from 'vitest';
import { pinDefinition } from '../../../../src/definition-rules/definition-digest';
import { addRevision, decidePublish, emptyRegistry, latestOfEach, nextRevision, summarize, type RegistryState } from '../../../../workflows/registry/definition-registry-state';
import { BUILT_IN_DEFINITIONS, FEATURE_DEFINITION } from '../../../../workflows/built-in-definitions';
import type { WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';

const feature = (revision: number, approvedTo = 'generate_spec'): WorkflowDefinition => ({
  apiVersion: 'service/v1', name: 'feature', revision, entry: 'generate_prd',
  nodes: {
    generate_prd: { kind: 'station', station: 'generate_prd', on: { generated: 'prd_gate' } },
    prd_gate: { kind: 'gate', gate: 'artifact_approval', accepts: ['service:prd-approved'], on: { approved: approvedTo } },
    generate_spec: { kind: 'station', station: 'generate_spec', on: { generated: 'done' } },
    done: { kind: 'end', result: 'completed' },
  },
});

const publish = (state: RegistryState, definition: WorkflowDefinition) => {
  const pinned = pinDefinition(definition);
  const decision = decidePublish(state, pinned);
  if (decision.type === 'publish') addRevision(state, { ...pinned, published_at: '2026-01-01T00:00:00.000Z', published_by: 'test' });
  return decision;
};

describe('the definition registry: publish rules', () => {
  it('publishes a revision newer than the built-in, then the next one; the newest is what new tickets pin', () => {
    const state = emptyRegistry();
    expect(publish(state, feature(3))).toEqual({ type: 'publish' });
    expect(publish(state, feature(4, 'done'))).toEqual({ type: 'publish' });
    expect(latestOfEach(state)).toEqual({ feature: pinDefinition(feature(4, 'done')) });
    expect(nextRevision(state, 'feature')).toBe(5);
  });

  it('answers the same revision with the same digest again with the existing one (idempotent)', () => {
    const state = emptyRegistry();
    publish(state, feature(3));
    const again = publish(state, feature(3));
    expect(again).toMatchObject({ type: 'existing', revision: { revision: 3, digest: pinDefinition(feature(3)).digest } });
    expect(state.revisions).toHaveLength(1);
  });

  it('refuses a taken revision with another digest, naming the next free revision', () => {
    const state = emptyRegistry();
    publish(state, feature(3));
    expect(publish(state, feature(3, 'done'))).toEqual({ type: 'refuse', reason: expect.stringMatching(/^feature r3 is already published with digest [0-9a-f]{12}…; publish the change as r4$/) });
  });

  it('refuses revisions that do not increase, including the built-in revision', () => {
    const state = emptyRegistry();
    expect(publish(state, feature(2))).toEqual({ type: 'refuse', reason: 'feature r2 is not newer than the latest revision, r2 (built in); publish it as r3' });
    publish(state, feature(5));
    expect(publish(state, feature(4))).toEqual({ type: 'refuse', reason: 'feature r4 is not newer than the latest revision, r5; publish it as r6' });
  });

  it('refuses a name no issue type selects, a body that disagrees with its pin, and a malformed digest', () => {
    const state = emptyRegistry();
    expect(publish(state, { ...feature(2), name: 'frobnicate' })).toEqual({ type: 'refuse', reason: 'no issue type selects a definition named "frobnicate"; publish a revision of bug, feature, task_takeover' });
    expect(decidePublish(state, { ...pinDefinition(feature(2)), revision: 3 })).toMatchObject({ type: 'refuse', reason: expect.stringContaining('differ from the body') });
    expect(decidePublish(state, { ...pinDefinition(feature(2)), digest: 'abc' })).toMatchObject({ type: 'refuse', reason: 'digest "abc" is not a sha256 hex digest' });
  });

  it('keeps a bounded number of revisions per name, dropping the oldest', () => {
    const state = emptyRegistry();
    for (let r = 2; r <= 8; r += 1) {
      const pinned = pinDefinition(feature(r));
      addRevision(state, { ...pinned, published_at: 'then', published_by: 'test' }, 3);
    }
    expect(state.revisions.map((r) => r.revision)).toEqual([6, 7, 8]);
  });

  it('lists built-in and published revisions by name and revision, marking what a new ticket pins', () => {
    const state = emptyRegistry();
    publish(state, feature(3));
    const rows = summarize(state, Object.values(BUILT_IN_DEFINITIONS).map(pinDefinition));
    expect(rows.map((r) => `${r.name} r${r.revision} ${r.source}${r.latest ? ' latest' : ''}`)).toEqual([
      'bug r3 built_in latest', 'feature r2 built_in', 'feature r3 published latest', 'task_takeover r3 built_in latest',
    ]);
    expect(rows.find((r) => r.name === 'feature' && r.revision === 2)?.digest).toBe(pinDefinition(FEATURE_DEFINITION).digest);
  });
});
