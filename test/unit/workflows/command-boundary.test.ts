import { describe, expect, it } from 'vitest';
import { parseCommand, parseKeyValues, type CommandPosition } from '../../../workflows/command-boundary';
import type { Observation, ObservationFacts } from '../../../workflows/observation';

function observation(event: Observation['event'], facts: ObservationFacts, source: Observation['source_system'] = 'tracker'): Observation {
  return {
    delivery_identity: 'id', source: 'webhook', source_system: source, event, resource: { kind: 'x', id: '1' }, revision: null,
    fingerprint: 'f', ticket_key: 'PROJ-1', facts, observed_at: null, received_at: '2026-11-23T08:00:00.000Z',
  };
}
const at = (current_node: string, extra: Partial<CommandPosition> = {}): CommandPosition => ({
  current_node, is_blocked: false, is_paused: true, has_pull_request: false, draft_item_ids: [1, 2, 3], rca_option_count: 2, ...extra,
});
const comment = (body: string) => observation('issue_commented', { comment: { id: '1', body } });
const prComment = (body: string) => observation('issue_comment', { comment: { id: '1', body }, pull_request: { number: 4 } }, 'scmhost');
const labels = (added: string[], removed: string[] = []) => observation('issue_updated', { label_change: { added, removed } });

describe('parseCommand: tracker comments', () => {
  it.each([
    ['? which columns', 'prd_approval_gate', { type: 'question', text: 'which columns' }],
    ['  @Service ASK why CSV?', 'spec_approval_gate', { type: 'question', text: 'why CSV?' }],
    ['! add a date filter', 'plan_approval_gate', { type: 'feedback', text: 'add a date filter' }],
    ['/service approve', 'plan_approval_gate', { type: 'approve', gate: 'plan_approval_gate', via: 'comment' }],
    ['/SERVICE Approve', 'task_approval_gate', { type: 'approve', gate: 'task_approval_gate', via: 'comment' }],
    ['/service remove 2', 'plan_approval_gate', { type: 'draft_remove', id: 2 }],
    ['/service exclude 3', 'task_approval_gate', { type: 'draft_exclude', id: 3 }],
    [`/service update 1 summary="Export as CSV" repo=acme/api description='two words'`, 'plan_approval_gate',
      { type: 'draft_update', id: 1, fields: { summary: 'Export as CSV', repo: 'acme/api', description: 'two words' } }],
    ['/service add summary=New', 'task_approval_gate', { type: 'draft_add', fields: { summary: 'New' } }],
    ['I pick >OPTION 2 please', 'rca_option_gate', { type: 'select_option', option: 2 }],
  ])('%j at %s is a command', (body, node, expected) => {
    expect(parseCommand(comment(body), at(node))).toEqual({ kind: 'command', command: expected });
  });

  it.each([
    ['? which columns', 'intake', 'a question is not meaningful at intake'],
    ['/service approve', 'prd_approval_gate', '/service approve is not meaningful at prd_approval_gate'],
    ['/service remove 9', 'human_review_gate', '/service remove is not meaningful at human_review_gate'],
    ['>option 3', 'rca_option_gate', 'option 3 is out of range (1-2)'],
    ['>option 1', 'plan_approval_gate', '>option is not meaningful at plan_approval_gate'],
    ['thanks, looks good', 'prd_approval_gate', 'conversation, not a command'],
    ['/service skip-gate lint', 'human_review_gate', '/service skip-gate is a pull-request command'],
  ])('%j at %s is ignored: %s', (body, node, reason) => {
    expect(parseCommand(comment(body), at(node))).toEqual({ kind: 'ignore', reason });
  });

  it.each([
    ['/service remove 9', 'there is no draft item 9 (items: 1-3)'],
    ['/service remove two', 'expected a draft item number'],
    ['/service update 1 colour=red', 'unknown field "colour"'],
    ['/service update 1 summary="unterminated', 'expected key=value pairs'],
    ['/service add repo=acme/api', 'a new draft item needs a summary'],
  ])('%j at a draft gate is invalid with a ❌ reply and no block', (body, reason) => {
    const decision = parseCommand(comment(body), at('plan_approval_gate'));
    expect(decision).toMatchObject({ kind: 'invalid', reason, blocks: false });
    expect(decision.kind === 'invalid' && decision.reply).toMatch(/^❌ `\/service/);
  });

  it('blocks on an unrecognized /service command, at any position', () => {
    for (const node of ['intake', 'plan_approval_gate', 'human_review_gate']) {
      expect(parseCommand(comment('/service frobnicate now'), at(node))).toMatchObject({ kind: 'invalid', reason: 'unknown command "frobnicate"', blocks: true });
    }
    expect(parseCommand(prComment('/service'), at('intake'))).toMatchObject({ kind: 'invalid', reason: 'no command given', blocks: true });
  });

  it('keeps echoed text short in replies', () => {
    const decision = parseCommand(comment(`/service ${'x'.repeat(500)}`), at('intake'));
    expect(decision.kind === 'invalid' && decision.reply.length).toBeLessThan(400);
  });
});

describe('parseCommand: labels and updates', () => {
  it.each([
    [['service:prd-approved'], 'prd_approval_gate', { type: 'approve', gate: 'prd_approval_gate', via: 'label' }],
    [['service:spec-approved'], 'spec_approval_gate', { type: 'approve', gate: 'spec_approval_gate', via: 'label' }],
    [['service:plan-approved'], 'task_plan_approval_gate', { type: 'approve', gate: 'task_plan_approval_gate', via: 'label' }],
    [['service:task-approved'], 'task_approval_gate', { type: 'approve', gate: 'task_approval_gate', via: 'label' }],
    [['service:yolo'], 'intake', { type: 'yolo' }],
  ])('%j at %s', (added, node, expected) => {
    expect(parseCommand(labels(added), at(node))).toEqual({ kind: 'command', command: expected });
  });

  it('reads service:retry by position', () => {
    expect(parseCommand(labels(['service:retry']), at('intake', { is_blocked: true }))).toEqual({ kind: 'command', command: { type: 'retry', mode: 'resume' } });
    expect(parseCommand(labels(['service:retry']), at('review_response_gate'))).toEqual({ kind: 'command', command: { type: 'retry', mode: 'review_response' } });
    expect(parseCommand(labels(['service:retry']), at('prd_approval_gate'))).toEqual({ kind: 'command', command: { type: 'retry', mode: 'regenerate' } });
    expect(parseCommand(labels(['service:retry']), at('intake'))).toMatchObject({ kind: 'ignore' });
  });

  it('ignores approval labels elsewhere and re-triages on any update at the triage gate', () => {
    expect(parseCommand(labels(['service:prd-approved']), at('spec_approval_gate'))).toEqual({ kind: 'ignore', reason: 'service:prd-approved is not meaningful at spec_approval_gate' });
    expect(parseCommand(observation('issue_updated', {}), at('triage_gate'))).toEqual({ kind: 'command', command: { type: 'retriage' } });
    expect(parseCommand(observation('issue_updated', {}), at('intake')).kind).toBe('ignore');
    expect(parseCommand(observation('issue_created', {}), at('intake'))).toEqual({ kind: 'ignore', reason: 'the workflow start, not a command' });
  });
});

describe('parseCommand: source-host events', () => {
  it('takes skip-gate and unskip-gate at CI positions, lower-casing the check name', () => {
    expect(parseCommand(prComment('/service skip-gate Lint'), at('wait_for_ci_gate'))).toEqual({ kind: 'command', command: { type: 'skip_gate', check: 'lint' } });
    expect(parseCommand(prComment('/service unskip-gate e2e tests'), at('human_review_gate'))).toEqual({ kind: 'command', command: { type: 'unskip_gate', check: 'e2e tests' } });
    expect(parseCommand(prComment('/service skip-gate lint'), at('intake')).kind).toBe('ignore');
    expect(parseCommand(prComment('/service skip-gate'), at('ci_evaluator'))).toMatchObject({ kind: 'invalid', blocks: false });
  });

  it('treats a commented review as changes requested at human review', () => {
    const review = (state: 'approved' | 'changes_requested' | 'commented') => observation('pull_request_review', { review: { id: '9', state, body: 'b' } }, 'scmhost');
    expect(parseCommand(review('approved'), at('human_review_gate'))).toMatchObject({ kind: 'command', command: { type: 'review', state: 'approved' } });
    expect(parseCommand(review('commented'), at('human_review_gate'))).toMatchObject({ kind: 'command', command: { type: 'review', state: 'changes_requested' } });
    expect(parseCommand(review('approved'), at('intake')).kind).toBe('ignore');
  });

  it('takes CI results, merges and rebase where they mean something', () => {
    const run = observation('check_run', { check_run: { id: '1', name: 'unit', status: 'completed', conclusion: 'failure', head_sha: 'abc' } }, 'scmhost');
    expect(parseCommand(run, at('ci_evaluator'))).toEqual({ kind: 'command', command: { type: 'ci_completed', check: 'unit', conclusion: 'failure', head_sha: 'abc' } });
    const pipeline = observation('pipeline', { pipeline: { id: '3', status: 'failed', sha: 'def' } }, 'gitlab');
    expect(parseCommand(pipeline, at('wait_for_ci_gate'))).toMatchObject({ kind: 'command', command: { type: 'ci_completed', conclusion: 'failed' } });
    const merged = observation('pull_request', { action: 'closed', pull_request: { number: 4, merged: true } }, 'scmhost');
    expect(parseCommand(merged, at('human_review_gate'))).toEqual({ kind: 'command', command: { type: 'pr_merged', number: 4 } });
    expect(parseCommand(merged, at('prd_approval_gate'))).toEqual({ kind: 'command', command: { type: 'approve', gate: 'prd_approval_gate', via: 'merge' } });
    expect(parseCommand(prComment('/service rebase'), at('human_review_gate', { has_pull_request: true }))).toEqual({ kind: 'command', command: { type: 'rebase' } });
    expect(parseCommand(prComment('/service rebase'), at('intake'))).toEqual({ kind: 'ignore', reason: '/service rebase needs a pull request' });
  });
});

describe('parseKeyValues', () => {
  it('reads bare, single- and double-quoted values', () => {
    expect(parseKeyValues(`a=1 b='two words' c="three words here"`)).toEqual([['a', '1'], ['b', 'two words'], ['c', 'three words here']]);
    expect(parseKeyValues('a=1 junk')).toBeUndefined();
  });
});
