import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { pullRequestRefOf, rebaseDecision, type RebaseSituation } from '../../../../workflows/runtime/rebase-decision';
import type { Observation } from '../../../../workflows/ledger/observation';
import type { WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';

const feature = BUILT_IN_DEFINITIONS.feature;
type Position = RebaseSituation;
const at = (node: string, extra: { blocked?: boolean; prs?: string[] } = {}): Position => ({
  node,
  blocked: extra.blocked ?? false,
  ended: false,
  pull_requests: extra.prs ?? ['acme/api#3', 'acme/web#4'],
  merged_pull_requests: [],
});

describe('rebaseDecision', () => {
  it('runs the rebase node from a gate, on one pull request or all of them', () => {
    expect(rebaseDecision(feature, at('human_review_gate'), null)).toEqual({ type: 'run', node: 'rebase', target: null });
    expect(rebaseDecision(feature, at('wait_for_ci_gate'), 'acme/web#4')).toEqual({ type: 'run', node: 'rebase', target: 'acme/web#4' });
  });

  it('says why it will not run', () => {
    expect(rebaseDecision(feature, at('human_review_gate', { prs: [] }), null)).toMatchObject({ type: 'refuse', reason: expect.stringContaining('no pull request') });
    expect(rebaseDecision(feature, at('attempt_ci_fix', { blocked: true }), null)).toMatchObject({ type: 'refuse', reason: expect.stringContaining('add service:retry first') });
    expect(rebaseDecision(feature, at('human_review_gate'), 'other/repo#9')).toMatchObject({ type: 'refuse', reason: expect.stringContaining('acme/api#3, acme/web#4') });
    expect(rebaseDecision(feature, at('rebase'), null)).toMatchObject({ type: 'refuse', reason: 'a rebase is running already' });
    const withoutRebase = { ...feature, nodes: Object.fromEntries(Object.entries(feature.nodes).filter(([id]) => id !== 'rebase')) };
    expect(rebaseDecision(withoutRebase, at('human_review_gate'), null)).toMatchObject({ type: 'refuse', reason: expect.stringContaining('no rebase step') });
  });

  it('finds the rebase node by what it does, not by its name', () => {
    const rename = (from: string, to: string, change: (spec: WorkflowDefinition['nodes'][string]) => WorkflowDefinition['nodes'][string] = (spec) => spec): WorkflowDefinition => ({
      ...feature,
      nodes: Object.fromEntries(Object.entries(feature.nodes).map(([id, spec]) => (id === from ? [to, change(spec)] : [id, spec]))),
    });
    // The built-in rebase station under another node name.
    const renamed = rename('rebase', 'bring_up_to_date');
    expect(rebaseDecision(renamed, at('human_review_gate'), 'acme/web#4')).toEqual({ type: 'run', node: 'bring_up_to_date', target: 'acme/web#4' });
    expect(rebaseDecision(renamed, at('bring_up_to_date'), null)).toMatchObject({ type: 'refuse', reason: 'a rebase is running already' });
    // A station of another name that says it takes the named pull request.
    const declared = rename('rebase', 'merge_base', (spec) => ({ ...spec, station: 'merge_base_in', takes_rebase_target: true }) as WorkflowDefinition['nodes'][string]);
    expect(rebaseDecision(declared, at('human_review_gate'), null)).toEqual({ type: 'run', node: 'merge_base', target: null });
    // A node named rebase whose station does not take the pull request is no rebase step.
    const namedOnly = rename('rebase', 'rebase', (spec) => ({ ...spec, station: 'post_merge_summary', takes_rebase_target: undefined }) as WorkflowDefinition['nodes'][string]);
    expect(rebaseDecision(namedOnly, at('human_review_gate'), null)).toMatchObject({ type: 'refuse', reason: expect.stringContaining('no rebase step') });
  });

  it('refuses a pull request that is merged already, and a ticket whose pull requests all are', () => {
    const merged = (position: Position, refs: string[]): Position => ({ ...position, merged_pull_requests: refs });
    // The one merged pull request of two: the other can still be rebased, alone or as "all".
    const oneOfTwo = merged(at('human_review_gate'), ['acme/api#3']);
    expect(rebaseDecision(feature, oneOfTwo, 'acme/api#3')).toEqual({ type: 'refuse', reason: 'acme/api#3 is merged already; there is nothing left to rebase on it' });
    expect(rebaseDecision(feature, oneOfTwo, 'acme/web#4')).toEqual({ type: 'run', node: 'rebase', target: 'acme/web#4' });
    expect(rebaseDecision(feature, oneOfTwo, null)).toEqual({ type: 'run', node: 'rebase', target: null });
    // Merged, and the ticket moves on to completion: nothing left, said before anything else.
    const single = merged(at('complete_tasks', { prs: ['acme/api#3'] }), ['acme/api#3']);
    expect(rebaseDecision(feature, single, null)).toEqual({ type: 'refuse', reason: 'the ticket\'s pull request acme/api#3 is merged already; there is nothing left to rebase' });
    const both = merged(at('wait_for_ci_gate', { blocked: true }), ['acme/api#3', 'acme/web#4']);
    expect(rebaseDecision(feature, both, null)).toMatchObject({ type: 'refuse', reason: expect.stringContaining('every pull request of the ticket (acme/api#3, acme/web#4) is merged already') });
    // Histories from before the patch judged without the merged pull requests.
    expect(rebaseDecision(feature, single, null, { mergedAware: false })).toEqual({ type: 'run', node: 'rebase', target: null });
  });

  it('names the pull request a comment was written on, GitHub or GitLab', () => {
    const github = { source_system: 'scmhost', facts: { repository: 'acme/api' } } as unknown as Observation;
    const gitlab = { source_system: 'gitlab', facts: { repository: 'group/project' } } as unknown as Observation;
    expect(pullRequestRefOf({ number: 3 }, github)).toBe('acme/api#3');
    expect(pullRequestRefOf({ number: 5 }, gitlab)).toBe('group/project!5');
  });
});
