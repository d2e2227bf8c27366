import { describe, expect, it } from 'vitest';
import { acceptTable, type GateNode, type WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { gateCommandEffect, stageLabels } from '../../../../workflows/runtime/gate-meaning';
import { decideRouter, plannedRepositoriesOf, rcaOptionCount } from '../../../../workflows/runtime/routers';
import { initialRuntime } from '../../../../workflows/runtime/ticket-state';
import { enter, resolveOutcome } from '../../../../workflows/runtime/enter';
import { positionOf } from '../../../../workflows/runtime/position';
import { initialCheckpoint, initialTicketState } from '../../../../workflows/runtime/ticket-state';
import { statusReply } from '../../../../workflows/person-commands/status-reply';
import { effectKey } from '../../../../workflows/effects/effect-journal';

const NOW = '2026-11-23T10:00:00.000Z';
const definition: WorkflowDefinition = {
  apiVersion: 'service/v1', name: 'test', revision: 1, entry: 'draft',
  nodes: {
    draft: { kind: 'station', station: 'draft_note', retry_bound: 2, on: { drafted: 'review_gate' } },
    review_gate: {
      kind: 'gate', gate: 'artifact_approval', pending_label: 'service:note-pending', accepts: ['service:prd-approved', 'feedback (!)', 'a question (?)'],
      on: { approved: 'publish', feedback: 'draft', question: 'answer' },
    },
    answer: { kind: 'station', station: 'answer_question', on: { answered: '$return' } },
    publish: { kind: 'station', station: 'publish_note', on: { published: 'done' } },
    escalate_blocked: { kind: 'end', result: 'blocked' },
    done: { kind: 'end', result: 'completed' },
  },
};

describe('the gate and router helpers of step', () => {
  it('follows mapped outcomes and names the unmapped ones', () => {
    expect(resolveOutcome(definition, null, 'draft', 'drafted')).toEqual({ ok: true, target: 'review_gate', returned: false });
    expect(resolveOutcome(definition, null, 'draft', 'exploded')).toEqual({ ok: false, reason: 'draft has no transition for outcome "exploded" in test r1 (it maps: drafted)' });
    expect(resolveOutcome(definition, null, 'answer', 'answered')).toMatchObject({ ok: false });
    expect(resolveOutcome(definition, 'review_gate', 'answer', 'answered')).toEqual({ ok: true, target: 'review_gate', returned: true });
    expect(resolveOutcome(definition, null, 'done', 'anything')).toEqual({ ok: false, reason: 'done is not a node that leads anywhere in test r1' });
  });

  it('counts visits for effect keys and escalates when a retry bound is exhausted', () => {
    let position = positionOf(initialCheckpoint(), initialRuntime(NOW));
    const into = (target: string) => {
      const entered = enter(definition, position, target);
      position = entered.position;
      return { node: position.node, visit: entered.visit, ...(entered.exhausted ? { exhausted: entered.exhausted } : {}) };
    };
    expect(into('draft')).toEqual({ node: 'draft', visit: 1 });
    expect(into('review_gate')).toEqual({ node: 'review_gate', visit: 1 });
    expect(into('draft')).toEqual({ node: 'draft', visit: 2 });
    // The third entry is past the bound of 2: escalate, remembering where service:retry resumes.
    expect(into('draft')).toEqual({ node: 'escalate_blocked', visit: 1, exhausted: { node: 'draft', bound: 2, code: 'retry_bound_exhausted' } });
    expect(position.resume_at).toBe('draft');
    // After a retry resets the bound, the node is entered again, with a visit number never used before.
    position = { ...position, bound_counts: { ...position.bound_counts, draft: 0 } };
    expect(into('draft')).toEqual({ node: 'draft', visit: 3 });
  });

  it('keys effects by node, visit and name, so a resumed visit asks for the same writes', () => {
    expect(effectKey({ ticket_key: 'SBX-1', run_id: 'run-1', node: 'generate_prd', visit: 2, name: 'post_prd_part_1' })).toBe('SBX-1:run-1:generate_prd:2:post_prd_part_1');
  });

  it('maps commands to gate outcomes, with what the next station is told', () => {
    expect(gateCommandEffect({ type: 'approve', gate: 'g', via: 'label' })).toEqual({ type: 'outcome', outcome: 'approved', request: null });
    expect(gateCommandEffect({ type: 'feedback', text: 'shorter', via: 'comment' })).toEqual({ type: 'outcome', outcome: 'feedback', request: { kind: 'feedback', text: 'shorter' } });
    expect(gateCommandEffect({ type: 'feedback', text: 'rename', item_id: 2, via: 'comment' })).toMatchObject({ request: { kind: 'draft_item_feedback', item_id: 2 } });
    expect(gateCommandEffect({ type: 'question', text: 'why?' })).toMatchObject({ outcome: 'question', request: { kind: 'question', text: 'why?' } });
    expect(gateCommandEffect({ type: 'retry', mode: 'regenerate' })).toMatchObject({ outcome: 'regenerate' });
    expect(gateCommandEffect({ type: 'review_changes_requested', review_id: 'r', state: 'commented', body: 'fix' })).toMatchObject({ outcome: 'changes_requested' });
    expect(gateCommandEffect({ type: 'skip_gate', check: 'lint', match: 'lint' })).toEqual({ type: 'in_place' });
  });

  it('lists the stage labels, pending and approved, so that exactly one stands', () => {
    expect(stageLabels(definition)).toEqual(['service:note-pending']);
    expect(stageLabels(BUILT_IN_DEFINITIONS.feature)).toEqual([
      'service:plan-approved', 'service:plan-pending', 'service:prd-approved', 'service:prd-pending', 'service:spec-approved', 'service:spec-pending', 'service:task-approved', 'service:task-pending',
    ]);
  });

  const legacyRouter = { kind: 'router', router: 'next_repository', on: { next: 'a', done: 'b' } } as const;
  const routerReading = (station: string) => ({ ...legacyRouter, repositories_from: station });

  it('routes one repository per visit of the task router', () => {
    const outputs = { provision_tasks: { repositories: ['acme/api', 'acme/web'] } };
    expect([1, 2, 3].map((visit) => decideRouter(routerReading('provision_tasks'), outputs, visit))).toEqual([
      { ok: true, outcome: 'next', data: { repository: 'acme/api', index: 1, count: 2 } },
      { ok: true, outcome: 'next', data: { repository: 'acme/web', index: 2, count: 2 } },
      { ok: true, outcome: 'done', data: { repository: null, index: 3, count: 2 } },
    ]);
    expect(decideRouter({ ...legacyRouter, router: 'coin_flip' }, outputs, 1)).toEqual({ ok: false, reason: 'no router named "coin_flip"' });
  });

  it('walks only the station the router names, and without the field the first built-in planner that left any', () => {
    const outputs = { provision_tasks: { repositories: ['acme/api'] }, my_planner: { repositories: ['acme/docs', 'acme/web'] } };
    expect(decideRouter(routerReading('my_planner'), outputs, 1)).toEqual({ ok: true, outcome: 'next', data: { repository: 'acme/docs', index: 1, count: 2 } });
    expect(decideRouter(legacyRouter, outputs, 1)).toEqual({ ok: true, outcome: 'next', data: { repository: 'acme/api', index: 1, count: 1 } });
    expect(decideRouter(routerReading('generate_plan'), outputs, 1)).toEqual({ ok: true, outcome: 'done', data: { repository: null, index: 1, count: 0 } });
  });

  it('routes the repositories of a bug\'s decomposed fix plan and of a takeover\'s plan; none planned routes straight to done', () => {
    const bug = { decompose_plan: { repositories: ['acme/api'] } };
    expect([1, 2].map((visit) => decideRouter(legacyRouter, bug, visit))).toEqual([
      { ok: true, outcome: 'next', data: { repository: 'acme/api', index: 1, count: 1 } },
      { ok: true, outcome: 'done', data: { repository: null, index: 2, count: 1 } },
    ]);
    expect(plannedRepositoriesOf({ generate_plan: { repositories: ['acme/web', 7] } }, ['generate_plan'])).toEqual(['acme/web']);
    expect(decideRouter(legacyRouter, {}, 1)).toEqual({ ok: true, outcome: 'done', data: { repository: null, index: 1, count: 0 } });
  });

  it('counts the fix options of the posted RCA for `>option N`, 0 before one is posted', () => {
    expect(rcaOptionCount({ reflect_rca: { option_count: 2 } })).toBe(2);
    expect(rcaOptionCount({ reflect_rca: { option_count: 0, sent_back: true } })).toBe(0);
    expect(rcaOptionCount({})).toBe(0);
  });

  it('builds the accept table the parser reads from the pinned definition, legacy labels read as trigger ids', () => {
    expect(acceptTable(definition)).toEqual({ review_gate: ['prd_approved', 'feedback', 'question'] });
    const accepting = (accepts: string[]): WorkflowDefinition => ({ ...definition, nodes: { ...definition.nodes, review_gate: { ...(definition.nodes.review_gate as GateNode), accepts } } });
    expect(acceptTable(accepting(['prd_approved', 'feedback', 'question']))).toEqual(acceptTable(definition));
    // An entry that names no trigger is kept as written (the validator refuses such a body).
    expect(acceptTable(accepting(['a question (?)', 'a shrug']))).toEqual({ review_gate: ['question', 'a shrug'] });
  });
});

describe('the answer to a request that means nothing here', () => {
  it('says where the ticket stands and what moves it', () => {
    const state = initialTicketState({ ticket_key: 'SBX-1', project_key: 'SBX', issue_type: 'Story', workflow_kind: 'feature' }, 'run', NOW);
    state.checkpoint.current_node = 'generate_prd';
    state.status = 'blocked';
    state.waiting = { code: 'station_not_available', message: 'the generate_prd station is not available', since: NOW, recovery: 'add the label service:retry to resume at generate_prd' };
    expect(statusReply(state, 'Your question', 'a question (?) is not meaningful while the workflow is blocked at generate_prd')).toBe([
      'ℹ️ Your question changed nothing: a question (?) is not meaningful while the workflow is blocked at generate_prd.',
      '',
      'The ticket is at `generate_prd` (blocked): the generate_prd station is not available.',
      'What moves it: add the label service:retry to resume at generate_prd.',
    ].join('\n'));
  });
});
