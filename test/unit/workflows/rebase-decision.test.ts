import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFINITIONS } from '../../../workflows/definitions';
import { pullRequestRefOf, rebaseDecision } from '../../../workflows/rebase-decision';
import type { Observation } from '../../../workflows/observation';
import type { TicketState } from '../../../workflows/ticket-state';

const feature = BUILT_IN_DEFINITIONS.feature;
type Position = Pick<TicketState, 'checkpoint' | 'pull_requests' | 'runtime'>;
const at = (node: string, extra: { blocked?: boolean; prs?: string[] } = {}): Position => ({
  checkpoint: { current_node: node, is_blocked: extra.blocked ?? false, is_paused: true } as TicketState['checkpoint'],
  pull_requests: extra.prs ?? ['acme/api#3', 'acme/web#4'],
  runtime: undefined,
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

  it('names the pull request a comment was written on, GitHub or GitLab', () => {
    const github = { source_system: 'scmhost', facts: { repository: 'acme/api' } } as unknown as Observation;
    const gitlab = { source_system: 'gitlab', facts: { repository: 'group/project' } } as unknown as Observation;
    expect(pullRequestRefOf({ number: 3 }, github)).toBe('acme/api#3');
    expect(pullRequestRefOf({ number: 5 }, gitlab)).toBe('group/project!5');
  });
});
