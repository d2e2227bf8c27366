import { describe, expect, it } from 'vitest';
import { checkActionsReflected, historyMoments, type AcknowledgedAction, type HistoryMoment, type RawHistoryEvent } from '../../../chaos/acknowledged-actions';

const json = (value: unknown) => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) });
const observe = (event: string, facts: Record<string, unknown>): RawHistoryEvent => ({ workflowExecutionSignaledEventAttributes: { signalName: 'observe', input: { payloads: [json({ event, facts })] } } });
const at = (node: string, blocked = false): RawHistoryEvent => ({ upsertWorkflowSearchAttributesEventAttributes: { searchAttributes: { indexedFields: { ServiceNode: json(node), ServiceBlocked: json(blocked) } } } });

describe('reading a ticket\'s history for the person\'s actions', () => {
  it('keeps the observations received, the node and the block as published, and the end, in order', () => {
    const moments = historyMoments([
      { workflowExecutionStartedEventAttributes: { searchAttributes: { indexedFields: { ServiceNode: json('intake') } } } },
      observe('issue_commented', { comment: { id: '10', body: '? q' } }),
      { workflowExecutionSignaledEventAttributes: { signalName: 'something-else', input: { payloads: [json({})] } } },
      observe('issue_updated', { label_change: { added: ['service:prd-approved'], removed: [] }, labels: ['service:prd-approved'] }),
      at('generate_spec'),
      observe('check_run', { check_run: { id: '1', name: 'build', status: 'completed', conclusion: 'failure', head_sha: 'abc' } }),
      observe('pull_request_review', { review: { id: '2', state: 'approved', body: '' } }),
      observe('pull_request', { pull_request: { number: 1, merged: true } }),
      { workflowExecutionCompletedEventAttributes: {} },
    ]);
    expect(moments).toEqual([
      { kind: 'node', node: 'intake' },
      { kind: 'observed', fact: { event: 'issue_commented', commentId: '10' } },
      { kind: 'observed', fact: { event: 'issue_updated', labelsAdded: ['service:prd-approved'], labels: ['service:prd-approved'] } },
      { kind: 'node', node: 'generate_spec' },
      { kind: 'blocked', blocked: false },
      { kind: 'observed', fact: { event: 'check_run', check: { sha: 'abc', conclusion: 'failure' } } },
      { kind: 'observed', fact: { event: 'pull_request_review', reviewState: 'approved' } },
      { kind: 'observed', fact: { event: 'pull_request', merged: true } },
      { kind: 'closed', how: 'completed' },
    ]);
  });
});

describe('every acknowledged action of the person is reflected', () => {
  const acted = (action: AcknowledgedAction['action'], position: string, extra: Partial<AcknowledgedAction> = {}): AcknowledgedAction => ({ ticket: 'SBX-1', action, position, atMs: 1000, ...extra });
  const check = (actions: AcknowledgedAction[], events: RawHistoryEvent[]) => checkActionsReflected(actions, (ticket) => (ticket === 'SBX-1' ? historyMoments(events) : undefined));

  it('passes when each action reached the workflow and the ticket left the gate (or finished) after it', () => {
    const result = check([
      acted({ kind: 'label', label: 'service:prd-approved' }, 'prd_approval_gate'),
      acted({ kind: 'comment', text: '/service update 1 summary="x"' }, 'plan_approval_gate', { commentId: '11' }),
      acted({ kind: 'comment', text: '/service approve' }, 'plan_approval_gate', { commentId: '12' }),
      acted({ kind: 'check', conclusion: 'success', summary: 'green' }, 'human_review_gate', { headSha: 'abc' }),
      acted({ kind: 'approve-pr' }, 'human_review_gate'),
      acted({ kind: 'merge' }, 'completed', { afterCompletion: true }),
    ], [
      at('prd_approval_gate'),
      // Delivered twice (webhook and poller): the duplicate claims nothing.
      observe('issue_updated', { label_change: { added: ['service:prd-approved'], removed: [] } }),
      observe('issue_updated', { label_change: { added: ['service:prd-approved'], removed: [] } }),
      at('generate_spec'), at('plan_approval_gate'),
      // The draft edit stays at its gate: its artefact is checked elsewhere.
      observe('issue_commented', { comment: { id: '11' } }),
      observe('issue_commented', { comment: { id: '12' } }),
      at('implement'), at('human_review_gate'),
      observe('check_run', { check_run: { head_sha: 'abc', conclusion: 'success' } }),
      at('ci_evaluator'), at('human_review_gate'),
      observe('pull_request_review', { review: { state: 'approved' } }),
      { workflowExecutionCompletedEventAttributes: {} },
    ]);
    expect(result).toEqual({ checked: 5, violations: [] });
  });

  it('finds the person\'s actions on a GitLab merge request: a pipeline as the CI result, a note as the review, the approval and the merge', () => {
    const result = check([
      acted({ kind: 'check', conclusion: 'failure', summary: 'red' }, 'human_review_gate', { headSha: 'abc' }),
      acted({ kind: 'review', body: 'Name the rows.' }, 'human_review_gate'),
      acted({ kind: 'approve-pr' }, 'human_review_gate'),
    ], [
      at('human_review_gate'),
      observe('pipeline', { pipeline: { id: 7, status: 'failed', sha: 'abc' } }),
      at('attempt_ci_fix'), at('human_review_gate'),
      observe('note', { comment: { id: '91', body: 'Name the rows.' } }),
      at('implement_review'), at('human_review_gate'),
      observe('pull_request_review', { review: { state: 'approved' } }),
      { workflowExecutionCompletedEventAttributes: {} },
    ]);
    expect(result).toEqual({ checked: 3, violations: [] });
    // A pipeline of another head is not the one the person reported.
    expect(check([acted({ kind: 'check', conclusion: 'failure', summary: 'red' }, 'human_review_gate', { headSha: 'abc' })], [
      at('human_review_gate'), observe('pipeline', { pipeline: { id: 7, status: 'failed', sha: 'def' } }), at('attempt_ci_fix'),
    ]).violations).toHaveLength(1);
  });

  it('names an action the simulator accepted that never reached the workflow, and one the workflow received but did not act on', () => {
    const { violations } = check([
      acted({ kind: 'comment', text: '>option 2' }, 'rca_option_gate', { commentId: '20' }),
      acted({ kind: 'approve-pr' }, 'human_review_gate', { atMs: 61_000 }),
    ], [
      at('rca_option_gate'),
      observe('issue_commented', { comment: { id: '19' } }),
      at('implement'), at('human_review_gate'),
      observe('pull_request_review', { review: { state: 'approved' } }),
    ]);
    expect(violations).toEqual([
      expect.objectContaining({ invariant: 'each acknowledged action reaches the workflow', ticket: 'SBX-1', write: 'comment ">option 2" at rca_option_gate (+1.0 s)' }),
      expect.objectContaining({ invariant: 'each acknowledged action is reflected', ticket: 'SBX-1', write: 'approval of the pull request at human_review_gate (+61.0 s)' }),
    ]);
  });

  it('counts one delivery for one action: a second identical action needs a delivery of its own', () => {
    const { violations } = check([
      acted({ kind: 'label', label: 'service:retry' }, 'implement', { blocked: true }),
      acted({ kind: 'label', label: 'service:retry' }, 'implement', { blocked: true }),
    ], [
      at('implement', true),
      observe('issue_updated', { label_change: { added: ['service:retry'], removed: [] } }),
      // The block lifted at the same node counts as leaving it.
      at('implement', false),
      at('implement', true),
    ]);
    expect(violations.map((v) => v.invariant)).toEqual(['each acknowledged action reaches the workflow']);
  });

  it('matches a CI result by its commit, and a polled label by the ticket\'s labels', () => {
    const moments: HistoryMoment[] = historyMoments([
      at('wait_for_ci_gate'),
      observe('check_run', { check_run: { head_sha: 'old', conclusion: 'failure' } }),
      observe('issue_updated', { labels: ['service:managed', 'service:spec-approved'] }),
      at('decompose_epics'),
    ]);
    const result = checkActionsReflected([
      acted({ kind: 'check', conclusion: 'failure', summary: 'red' }, 'wait_for_ci_gate', { headSha: 'new' }),
      acted({ kind: 'label', label: 'service:spec-approved' }, 'spec_approval_gate'),
    ], () => moments);
    expect(result.violations.map((v) => [v.invariant, v.write])).toEqual([['each acknowledged action reaches the workflow', 'CI failure at wait_for_ci_gate (+1.0 s)']]);
  });
});
