import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUG_DEFINITION, FEATURE_DEFINITION } from '../../../../workflows/built-in-definitions';
import type { WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import { stationTraits } from '../../../../workflows/runtime/node-traits';
import { BLOCKED_END_RESUMES_PATCH, DETOUR_RETURN_UNBOUNDED_PATCH, EXHAUSTED_CODE_BLOCKS_PATCH, NO_DEFINITION, RESUMED_YOLO_GATE_PATCH, reviewRetryPosition, ROUTER_COUNTS_DECISIONS_PATCH, SKIP_GATE_REEVALUATES_PATCH, step, TRIAGE_GATE_CLEARS_ITS_LABEL_PATCH } from '../../../../workflows/runtime/step';
import type { Action } from '../../../../workflows/runtime/step-types';
import { ENV, INVENTED, PR, stateAt } from './fixtures';

const types = (actions: Action[]) => actions.map((action) => action.type);

describe('step on an invented definition (every node param)', () => {
  it('runs a station with its params, model key and timeout as the node states them', () => {
    const { actions } = step(INVENTED, stateAt('write'), { type: 'act' }, ENV);
    expect(actions).toEqual([{ type: 'run_station', node: 'write', visit: 1, spec: INVENTED.nodes.write, params: { tone: 'dry', words: 200 } }]);
    expect(actions[0]).toMatchObject({ spec: { model_key: 'writer', timeout_seconds: 60 } });
  });

  it('escalates to on_exhausted with exhausted_code once retry_bound is spent, and service:retry resumes the bounded node', () => {
    const state = stateAt('note_gate', { paused: true, bound_counts: { write: 2 } });
    const feedback = step(INVENTED, state, { type: 'command', command: { type: 'feedback', text: 'again', via: 'comment' }, by: 'ada', delivery_identity: 'd1' }, ENV);
    const entry = feedback.actions.at(-1);
    expect(entry).toMatchObject({ type: 'enter', transition: { from: 'note_gate', to: 'gave_up', exhausted: { node: 'write', bound: 2, code: 'too_many_drafts' } } });
    expect(feedback.state.position).toMatchObject({ node: 'gave_up', resume_at: 'write', bound_counts: { write: 2 } });

    // The block names the bounded node's exhausted_code, not the end's own code (which other ways in would use).
    const atEnd = step(INVENTED, feedback.state, { type: 'act' }, ENV);
    expect(atEnd.actions).toEqual([{ type: 'block', code: 'too_many_drafts', message: 'the note could not be written; service:retry resumes at write' }]);
    const before = step(INVENTED, feedback.state, { type: 'act' }, { ...ENV, patched: (patch: string) => patch !== EXHAUSTED_CODE_BLOCKS_PATCH });
    expect(before.actions).toEqual([{ type: 'block', code: 'gave_up', message: 'the note could not be written; service:retry resumes at write' }]);

    const resumed = step(INVENTED, feedback.state, { type: 'resumed' }, ENV);
    expect(resumed.actions).toEqual([expect.objectContaining({ type: 'enter', transition: expect.objectContaining({ to: 'write', outcome: 'retry' }) })]);
    expect(resumed.state.position).toMatchObject({ node: 'write', resume_at: null, bound_counts: { write: 1 }, visits: { write: 1, gave_up: 1 } });
  });

  it('counts visits on every transition', () => {
    const { actions, state } = step(INVENTED, stateAt('write'), { type: 'station_returned', node: 'write', station: 'write_note', outcome: 'written', intents: [] }, ENV);
    expect(actions.at(-1)).toEqual({
      type: 'enter', position: state.position,
      transition: { from: 'write', to: 'note_gate', outcome: 'written', visit: 1, reason: 'write_note returned written' },
    });
    expect(state.position).toMatchObject({ visits: { write: 1, note_gate: 1 } });
  });

  it('runs the station\'s writes before it moves on, with the node and visit that name them', () => {
    const intent = { name: 'post_note', operation: { kind: 'tracker.comment' as const, issue_key: 'ACME-1', body: 'the note' }, required: true };
    const { actions } = step(INVENTED, stateAt('write', { visits: { write: 3 } }), { type: 'station_returned', node: 'write', station: 'write_note', outcome: 'written', intents: [intent] }, ENV);
    expect(types(actions)).toEqual(['record_attempt', 'keep_result', 'effect', 'enter']);
    expect(actions[2]).toEqual({ type: 'effect', name: 'post_note', node: 'write', visit: 3, operation: intent.operation, required: true });
  });

  it('blocks an outcome the node does not map, without running the station\'s writes', () => {
    const state = stateAt('write');
    const result = step(INVENTED, state, { type: 'station_returned', node: 'write', station: 'write_note', outcome: 'exploded', intents: [] }, ENV);
    // Where it stood, now blocked: the state says what the block action does.
    expect(result.state).toEqual({ ...state, blocked: true });
    expect(result.actions).toEqual([
      { type: 'record_attempt', status: 'invalid', error: 'write has no transition for outcome "exploded" in invented r3 (it maps: written)' },
      { type: 'block', code: 'invalid_station_result', message: 'write_note returned outcome "exploded": write has no transition for outcome "exploded" in invented r3 (it maps: written)' },
    ]);
  });

  it('reports a failed station by its own writes when it made any, else by the block comment', () => {
    const intent = { name: 'failure_note', operation: { kind: 'tracker.comment' as const, issue_key: 'ACME-1', body: 'no' } };
    expect(step(INVENTED, stateAt('write'), { type: 'station_failed', node: 'write', code: 'model_refused', message: 'no', intents: [intent] }, ENV).actions)
      .toEqual([expect.objectContaining({ type: 'effect', name: 'failure_note', required: false }), { type: 'block', code: 'model_refused', message: 'no', comment: null }]);
    expect(step(INVENTED, stateAt('write'), { type: 'station_failed', node: 'write', code: 'model_refused', message: 'no', intents: [] }, ENV).actions)
      .toEqual([{ type: 'block', code: 'model_refused', message: 'no' }]);
  });

  // The gate is the one writer of its pending label: the approval labels people added at earlier gates go too.
  it('opens a gate: its pending label replaces the other stage labels, then it waits for what it accepts', () => {
    const { actions, state } = step(FEATURE_DEFINITION, stateAt('spec_approval_gate'), { type: 'act' }, ENV);
    expect(actions[0]).toMatchObject({
      type: 'effect', name: 'stage_label', node: 'spec_approval_gate', visit: 1,
      operation: { kind: 'tracker.labels', issue_key: 'ACME-1', add: ['service:spec-pending'], remove: [
        'service:plan-approved', 'service:plan-pending', 'service:prd-approved', 'service:prd-pending', 'service:spec-approved', 'service:task-approved', 'service:task-pending',
      ] },
    });
    expect(actions[1]).toMatchObject({ type: 'wait', node: 'spec_approval_gate', spec: { waiting_for: expect.stringContaining('approval of the spec') } });
    expect(state.position.paused).toBe(true);
  });

  it('does not pause a gate while the ticket is blocked', () => {
    expect(types(step(INVENTED, stateAt('note_gate', {}, { blocked: true }), { type: 'act' }, ENV).actions)).toEqual(['effect']);
  });

  it('passes an auto_approve_in_yolo gate at once under yolo, as an approval by service:yolo', () => {
    const { actions, state } = step(INVENTED, stateAt('note_gate', { yolo: true }), { type: 'act' }, ENV);
    expect(types(actions)).toEqual(['effect', 'record', 'wait_ended', 'approve_artifact', 'effect', 'set_position', 'enter']);
    expect(actions[3]).toEqual({ type: 'approve_artifact', artifact: 'note', by: 'service:yolo' });
    expect(actions[4]).toMatchObject({ name: 'clear_stage_label', operation: { remove: ['service:note-pending'] } });
    expect(state.position.node).toBe('route');
  });

  it('switching yolo on passes the gate that waits, but not one that is blocked', () => {
    const waiting = stateAt('note_gate', { paused: true });
    expect(step(INVENTED, waiting, { type: 'yolo', enabled: true }, ENV).state.position).toMatchObject({ node: 'route', yolo: true });
    const blocked = { ...waiting, blocked: true };
    const switched = { ...blocked.position, yolo: true };
    expect(step(INVENTED, blocked, { type: 'yolo', enabled: true }, ENV)).toEqual({ state: { ...blocked, position: switched }, actions: [{ type: 'set_position', position: switched }] });
    expect(types(step(INVENTED, waiting, { type: 'yolo', enabled: false }, ENV).actions)).toEqual(['set_position']);
  });

  it('the question detour: the answer goes back to the gate, and the station is told the gate\'s artifact', () => {
    const asked = step(INVENTED, stateAt('note_gate', { paused: true }), { type: 'command', command: { type: 'question', text: 'why dry?' }, by: 'ada', delivery_identity: 'd1' }, ENV);
    expect(asked.state.position).toMatchObject({ node: 'explain', return_to: 'note_gate', request: { kind: 'question', text: 'why dry?' } });
    const run = step(INVENTED, asked.state, { type: 'act' }, ENV);
    expect(run.actions).toEqual([expect.objectContaining({ type: 'run_station', node: 'explain', params: { artifact: 'note' } })]);
    const answered = step(INVENTED, asked.state, { type: 'station_returned', node: 'explain', station: 'explain_note', outcome: 'answered', intents: [] }, ENV);
    expect(answered.state.position).toMatchObject({ node: 'note_gate', request: null });
  });

  it('routes by what the planning station left: next per repository, then done', () => {
    const outputs = { provision_tasks: { repositories: ['acme/app', 'acme/api'] } };
    const first = step(INVENTED, stateAt('route', {}, { outputs }), { type: 'act' }, ENV);
    expect(first.actions[0]).toEqual({ type: 'set_output', key: 'next_repository', data: { repository: 'acme/app', index: 1, count: 2 } });
    // The state step returns holds the decision the driver keeps.
    expect(first.state.outputs.next_repository).toEqual({ repository: 'acme/app', index: 1, count: 2 });
    expect(first.state.position.node).toBe('fix');
    // The third turn, after the router's second decision (kept by the driver under its name): every repository is done.
    const second = { ...outputs, next_repository: { repository: 'acme/api', index: 2, count: 2 } };
    expect(step(INVENTED, stateAt('route', { visits: { route: 3 } }, { outputs: second }), { type: 'act' }, ENV).state.position.node).toBe('check');
  });

  it('counts CI fix attempts where the node says so, and starts again on the outcome that resets them', () => {
    expect(stationTraits(INVENTED.nodes.fix as never)).toEqual({ counts_ci_fix_attempt: true, resets_ci_fix_attempts_on: null, takes_rebase_target: false });
    const fixed = step(INVENTED, stateAt('fix', { ci_fix_attempts: 2 }), { type: 'station_returned', node: 'fix', station: 'patch_build', outcome: 'patched', intents: [] }, ENV);
    expect(fixed.state.position.ci_fix_attempts).toBe(3);
    const red = step(INVENTED, stateAt('check', { ci_fix_attempts: 3 }), { type: 'station_returned', node: 'check', station: 'judge_build', outcome: 'red', intents: [] }, ENV);
    expect(red.state.position.ci_fix_attempts).toBe(3);
    const green = step(INVENTED, stateAt('check', { ci_fix_attempts: 3 }), { type: 'station_returned', node: 'check', station: 'judge_build', outcome: 'green', intents: [] }, ENV);
    expect(green.state.position.ci_fix_attempts).toBe(0);
  });

  it('keeps what the built-in stations did by name for nodes pinned before the traits existed', () => {
    // feature r1 as tickets pinned it, before its nodes stated these fields.
    const r1 = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/definitions/feature-r1.json'), 'utf8')) as WorkflowDefinition;
    const ciFix = r1.nodes.attempt_ci_fix!;
    expect(ciFix.kind === 'station' && ciFix.counts_ci_fix_attempt).toBeFalsy();
    for (const definition of [r1, FEATURE_DEFINITION]) {
      const label = `feature r${definition.revision}`;
      expect(step(definition, stateAt('attempt_ci_fix', { ci_fix_attempts: 1 }), { type: 'station_returned', node: 'attempt_ci_fix', station: 'attempt_ci_fix', outcome: 'fixed', intents: [] }, ENV).state.position.ci_fix_attempts, label).toBe(2);
      expect(step(definition, stateAt('ci_evaluator', { ci_fix_attempts: 4 }), { type: 'station_returned', node: 'ci_evaluator', station: 'ci_evaluator', outcome: 'pass', intents: [] }, ENV).state.position.ci_fix_attempts, label).toBe(0);
      expect(step(definition, stateAt('ci_evaluator', { ci_fix_attempts: 4 }), { type: 'station_returned', node: 'ci_evaluator', station: 'ci_evaluator', outcome: 'fail', intents: [] }, ENV).state.position.ci_fix_attempts, label).toBe(4);
    }
  });

  it('the rebase detour: the node that takes the rebase target works on the named pull request and returns where the ticket stood', () => {
    const asked = step(INVENTED, stateAt('merge_gate', { paused: true }, { pull_requests: [PR] }), { type: 'rebase', target: PR, delivery_identity: 'd1' }, ENV);
    expect(asked.state.position).toMatchObject({ node: 'tidy', return_to: 'merge_gate', rebase_target: PR, paused: false, request: null });
    expect(asked.actions).toEqual([expect.objectContaining({ type: 'enter', transition: expect.objectContaining({ outcome: 'rebase_requested', reason: '/service rebase at merge_gate' }) })]);
    expect(step(INVENTED, asked.state, { type: 'act' }, ENV).actions).toEqual([expect.objectContaining({ type: 'run_station', params: { pull_request: PR } })]);
    const back = step(INVENTED, asked.state, { type: 'station_returned', node: 'tidy', station: 'tidy_branch', outcome: 'tidied', intents: [] }, ENV);
    expect(back.state.position).toMatchObject({ node: 'merge_gate', rebase_target: null });
  });

  it('a gate with `merged` passes on entry once every pull request is merged, and waits while one is not', () => {
    const merged = step(INVENTED, stateAt('merge_gate', {}, { pull_requests: [PR], merged_pull_requests: [PR] }), { type: 'act' }, ENV);
    expect(merged.actions.at(-1)).toMatchObject({ type: 'enter', transition: { to: 'done', outcome: 'merged', reason: 'merge_gate: merged by the merge of every pull request' } });
    const two = { pull_requests: [PR, 'acme/api#2'], merged_pull_requests: [PR] };
    expect(types(step(INVENTED, stateAt('merge_gate', {}, two), { type: 'act' }, ENV).actions)).toEqual(['wait']);
    const news = step(INVENTED, stateAt('merge_gate', { paused: true }, two), { type: 'command', command: { type: 'pr_merged', pull_request: { repository: 'acme/app', number: 7 } }, by: 'github', delivery_identity: 'd1' }, ENV);
    expect(news.actions).toEqual([expect.objectContaining({ type: 'record', status: 'recorded', summary: 'a pull request was merged; still waiting for acme/api#2' })]);
  });

  it('service:retry at a review-response gate goes where retry_to says (human_review_gate by default)', () => {
    expect(reviewRetryPosition(INVENTED, stateAt('merge_gate', { paused: true }).position)).toMatchObject({ node: 'note_gate', paused: false, visits: { note_gate: 1 } });
    expect(reviewRetryPosition(FEATURE_DEFINITION, stateAt('review_response_gate', { visits: { human_review_gate: 2 } }).position)).toMatchObject({ node: 'human_review_gate', visits: { human_review_gate: 3 } });
  });

  it('the kill switch blocks with `stopped` and takes its label off', () => {
    const { actions, state } = step(INVENTED, stateAt('write', {}, { retry_count: 2 }), { type: 'stop', by: 'ada', via_label: true, cancelled: 'write_note', delivery_identity: 'd9' }, ENV);
    expect(actions).toEqual([
      {
        type: 'record', kind: 'operator_action', status: 'stopped', summary: 'service:stop by ada: the running write_note station was cancelled at write',
        details: { action: 'stop', by: 'ada', via: 'service:stop', node: 'write', cancelled_station: 'write_note', delivery_identity: 'd9' },
      },
      { type: 'block', code: 'stopped', message: 'stopped by ada (service:stop); the running write_note station was cancelled' },
      { type: 'effect', name: 'stop_2_label', node: 'write', visit: 1, operation: { kind: 'tracker.labels', issue_key: 'ACME-1', add: [], remove: ['service:stop'] }, required: false },
    ]);
    expect(state.position).toEqual(stateAt('write').position);
    expect(types(step(INVENTED, stateAt('write'), { type: 'stop', by: 'ada', via_label: false, cancelled: null, delivery_identity: 'd9' }, ENV).actions)).toEqual(['record', 'block']);
  });

  it('skip-gate judges the checks again at a waiting CI gate only under its patch', () => {
    const waiting = stateAt('wait_for_ci_gate', { paused: true }, { pull_requests: [PR] });
    const asked: string[] = [];
    const env = { ...ENV, patched: (patch: string) => (asked.push(patch), false) };
    expect(step(FEATURE_DEFINITION, waiting, { type: 'ci_recheck', via: '/service skip-gate' }, env)).toEqual({ state: waiting, actions: [] });
    expect(asked).toEqual([SKIP_GATE_REEVALUATES_PATCH]);
    expect(step(FEATURE_DEFINITION, waiting, { type: 'ci_recheck', via: '/service skip-gate' }, ENV).state.position.node).toBe('ci_evaluator');
    // Not at a waiting CI gate: the patch is not asked (its marker is written only where it always was).
    step(FEATURE_DEFINITION, stateAt('code_review'), { type: 'ci_recheck', via: '/service skip-gate' }, env);
    expect(asked).toHaveLength(1);
  });

  it('ends a run at a completing end, and blocks at a node the definition lacks', () => {
    const completed = step(INVENTED, stateAt('done'), { type: 'act' }, ENV);
    expect(completed.actions).toEqual([{ type: 'complete', node: 'done' }]);
    expect(completed.state).toMatchObject({ ended: true, blocked: false });
    expect(step(INVENTED, stateAt('gone'), { type: 'act' }, ENV).actions).toEqual([{ type: 'block', code: 'invalid_station_result', message: 'gone is not a node of invented r3' }]);
  });

  it('defers a command at a station: the station decides from the provider when it runs', () => {
    const result = step(INVENTED, stateAt('write'), { type: 'command', command: { type: 'pr_merged', pull_request: { repository: 'acme/app', number: 7 } }, by: 'github', delivery_identity: 'd3' }, ENV);
    expect(result.actions).toEqual([{
      type: 'record', kind: 'command_decision', status: 'deferred', summary: 'pr_merged at write: the station here decides from the provider\'s current state when it runs',
      details: { node: 'write', command: 'pr_merged', delivery_identity: 'd3' },
    }]);
  });

  it('never changes the state it is given', () => {
    const state = stateAt('note_gate', { paused: true, yolo: false });
    const frozen = JSON.stringify(state);
    step(INVENTED, state, { type: 'command', command: { type: 'question', text: '?' }, by: 'ada', delivery_identity: 'd1' }, ENV);
    step(INVENTED, state, { type: 'yolo', enabled: true }, ENV);
    step(INVENTED, state, { type: 'ci_skips', skip: true, match: 'x' }, ENV);
    expect(JSON.stringify(state)).toBe(frozen);
  });
});

describe('step: the start, a missing definition and conflicting evidence', () => {
  it('enters the entry node when a run starts, counting the visit; continued runs never ask', () => {
    const started = step(FEATURE_DEFINITION, stateAt('', { visits: {} }), { type: 'start' }, ENV);
    expect(started.state.position).toMatchObject({ node: 'intake', visits: { intake: 1 }, paused: false });
    expect(started.actions).toEqual([{ type: 'set_position', position: started.state.position }]);
  });

  it('blocks with missing_workflow_route, saying why, where no definition is pinned; a start changes nothing there', () => {
    const unrouted = { ...ENV, unrouted: 'no definition serves issue type "Sub-task"' };
    const acted = step(NO_DEFINITION, stateAt('intake'), { type: 'act' }, unrouted);
    expect(acted.actions).toEqual([{ type: 'block', code: 'missing_workflow_route', message: 'no definition serves issue type "Sub-task"' }]);
    expect(acted.state.blocked).toBe(true);
    expect(step(NO_DEFINITION, stateAt('intake'), { type: 'start' }, unrouted).actions).toEqual([]);
  });

  it('blocks with conflicting_evidence where the ledger found deliveries that contradict each other, wherever the ticket stands', () => {
    for (const node of ['write', 'note_gate']) {
      const result = step(INVENTED, stateAt(node, { paused: node === 'note_gate' }), { type: 'conflict', reason: 'the PR head moved back' }, ENV);
      expect(result.actions).toEqual([{ type: 'block', code: 'conflicting_evidence', message: 'conflicting provider evidence: the PR head moved back' }]);
      expect(result.state.position.node).toBe(node);
    }
  });
});

describe('step: what the simulation found (test/simulation/step-simulation.ts)', () => {
  it('service:retry at a gate that waits, with yolo switched on while the ticket was blocked, lets yolo approve it', () => {
    // Blocked while waiting at the gate (a stop, an unknown command): switching yolo on passes nothing yet.
    const blocked = stateAt('note_gate', { paused: true }, { blocked: true });
    const switched = step(INVENTED, blocked, { type: 'yolo', enabled: true }, ENV).state;
    expect(switched.position).toMatchObject({ node: 'note_gate', paused: true, yolo: true });
    // service:retry: the driver leaves the block (blocking.ts leaveBlocked), the gate still waits, then `resumed`.
    const resumed = step(INVENTED, { ...switched, blocked: false }, { type: 'resumed' }, ENV);
    expect(types(resumed.actions)).toEqual(['record', 'wait_ended', 'approve_artifact', 'effect', 'set_position', 'enter']);
    expect(resumed.actions[2]).toEqual({ type: 'approve_artifact', artifact: 'note', by: 'service:yolo' });
    expect(resumed.state.position).toMatchObject({ node: 'route', paused: false });
  });

  it('a resumed gate under yolo waits on in histories from before the patch', () => {
    const waiting = stateAt('note_gate', { paused: true, yolo: true });
    const asked: string[] = [];
    const env = { ...ENV, patched: (patch: string) => (asked.push(patch), false) };
    expect(step(INVENTED, waiting, { type: 'resumed' }, env)).toEqual({ state: waiting, actions: [] });
    expect(asked).toEqual([RESUMED_YOLO_GATE_PATCH]);
  });

  // The router read its entries as the index of the repository to route, and the rebase detour returns (`$return`)
  // to the router, entering it once more without a decision: a `/service rebase` handled while the ticket stood at
  // the router (between a teardown and the next repository) skipped a repository.
  it('a rebase detour back to the router does not skip a planned repository', () => {
    // The router's first decision, as the driver keeps it (set_output).
    const outputs = { provision_tasks: { repositories: ['acme/app', 'acme/api'] }, next_repository: { repository: 'acme/app', index: 1, count: 2 } };
    const first = stateAt('teardown_workspace', { visits: { task_router: 1, teardown_workspace: 1 } }, { outputs, pull_requests: [PR] });
    const back = step(FEATURE_DEFINITION, first, { type: 'station_returned', node: 'teardown_workspace', station: 'teardown_workspace', outcome: 'done', intents: [] }, ENV);
    expect(back.state.position).toMatchObject({ node: 'task_router', visits: { task_router: 2 } });
    const detour = step(FEATURE_DEFINITION, back.state, { type: 'rebase', target: PR, delivery_identity: 'd1' }, ENV);
    const returned = step(FEATURE_DEFINITION, detour.state, { type: 'station_returned', node: 'rebase', station: 'rebase', outcome: 'rebased', intents: [] }, ENV);
    expect(returned.state.position.node).toBe('task_router');
    const routed = step(FEATURE_DEFINITION, returned.state, { type: 'act' }, ENV);
    expect(routed.actions[0]).toMatchObject({ type: 'set_output', key: 'next_repository', data: { repository: 'acme/api' } });
  });

  it('a rebase detour back to the router skips on in histories from before the patch', () => {
    const outputs = { provision_tasks: { repositories: ['acme/app', 'acme/api'] }, next_repository: { repository: 'acme/app', index: 1, count: 2 } };
    const returned = stateAt('task_router', { visits: { task_router: 3 } }, { outputs, pull_requests: [PR] });
    const asked: string[] = [];
    const env = { ...ENV, patched: (patch: string) => (asked.push(patch), false) };
    expect(step(FEATURE_DEFINITION, returned, { type: 'act' }, env).actions[0]).toMatchObject({ type: 'set_output', data: { repository: null, index: 3 } });
    expect(asked).toEqual([ROUTER_COUNTS_DECISIONS_PATCH]);
    // Without a detour, entries and decisions agree and the patch is not asked (no marker in every history).
    const plain = stateAt('task_router', { visits: { task_router: 2 } }, { outputs, pull_requests: [PR] });
    expect(step(FEATURE_DEFINITION, plain, { type: 'act' }, env).actions[0]).toMatchObject({ type: 'set_output', data: { repository: 'acme/api', index: 2 } });
    expect(asked).toEqual([ROUTER_COUNTS_DECISIONS_PATCH]);
  });

  // The simulation's findings: an exhausted CI-fix bound blocked with the escalation end's generic code, though the
  // alerts (ServiceCiFixLimitHit) and the docs name ci_fix_limit; and a rebase detour returning to a bounded station
  // counted against its bound, so rebases alone could escalate a ticket.
  it('blocks with ci_fix_limit when attempt_ci_fix runs out of attempts, and with the end\'s code in histories from before', () => {
    const fixed = stateAt('ci_evaluator', { bound_counts: { attempt_ci_fix: 5 } }, { pull_requests: [PR] });
    const failed = step(FEATURE_DEFINITION, fixed, { type: 'station_returned', node: 'ci_evaluator', station: 'ci_evaluator', outcome: 'fail', intents: [] }, ENV);
    expect(failed.state.position).toMatchObject({ node: 'escalate_blocked', resume_at: 'attempt_ci_fix' });
    const asked: string[] = [];
    const blocked = step(FEATURE_DEFINITION, failed.state, { type: 'act' }, { ...ENV, patched: (patch: string) => (asked.push(patch), true) });
    expect(blocked.actions).toEqual([{ type: 'block', code: 'ci_fix_limit', message: expect.stringContaining('service:retry resumes at attempt_ci_fix') }]);
    expect(asked).toEqual([EXHAUSTED_CODE_BLOCKS_PATCH]);
    const before = step(FEATURE_DEFINITION, failed.state, { type: 'act' }, { ...ENV, patched: () => false });
    expect(before.actions).toEqual([expect.objectContaining({ type: 'block', code: 'retry_bound_exhausted' })]);
    // A bounded node without an exhausted_code of its own (local_review) keeps the end's code, and no patch is asked.
    asked.length = 0;
    const review = step(FEATURE_DEFINITION, stateAt('escalate_blocked', { resume_at: 'local_review' }), { type: 'act' }, { ...ENV, patched: (patch: string) => (asked.push(patch), true) });
    expect(review.actions).toEqual([expect.objectContaining({ type: 'block', code: 'retry_bound_exhausted' })]);
    expect(asked).toEqual([]);
  });

  it('a rebase detour back to a bounded station does not count against its bound', () => {
    const atBound = stateAt('implement_review', { bound_counts: { implement_review: 3 } }, { pull_requests: [PR] });
    const detour = step(FEATURE_DEFINITION, atBound, { type: 'rebase', target: PR, delivery_identity: 'd1' }, ENV);
    const rebased = { type: 'station_returned', node: 'rebase', station: 'rebase', outcome: 'rebased', intents: [] } as const;
    const back = step(FEATURE_DEFINITION, detour.state, rebased, ENV);
    expect(back.state.position).toMatchObject({ node: 'implement_review', bound_counts: { implement_review: 3 }, resume_at: null });
    expect(step(FEATURE_DEFINITION, back.state, { type: 'act' }, ENV).actions[0]).toMatchObject({ type: 'run_station', node: 'implement_review' });
    // Histories from before counted the return: at the bound, the ticket escalated.
    const before = step(FEATURE_DEFINITION, detour.state, rebased, { ...ENV, patched: (patch: string) => patch !== DETOUR_RETURN_UNBOUNDED_PATCH });
    expect(before.state.position).toMatchObject({ node: 'escalate_blocked', resume_at: 'implement_review' });
    // The station's own outcomes still count: it failing its way back is bounded as before.
    const again = step(FEATURE_DEFINITION, stateAt('human_review_gate', { paused: true, bound_counts: { implement_review: 3 } }, { pull_requests: [PR] }), {
      type: 'command', command: { type: 'review_changes_requested', review_id: 'r1', state: 'changes_requested', body: 'rename it' }, by: 'ada', delivery_identity: 'd9',
    }, ENV);
    expect(again.state.position).toMatchObject({ node: 'escalate_blocked', resume_at: 'implement_review' });
  });

  it('service:retry after a pull request closed without merging goes back to the gate it was closed at, as the end says', () => {
    const closed = { type: 'command', command: { type: 'pr_closed', pull_request: { repository: 'acme/app', number: 7 } }, by: 'ada', delivery_identity: 'd1' } as const;
    const atReview = stateAt('human_review_gate', { paused: true, visits: { human_review_gate: 1 } }, { pull_requests: [PR] });
    const ended = step(FEATURE_DEFINITION, atReview, closed, ENV);
    expect(ended.state.position).toMatchObject({ node: 'pull_request_closed', resume_at: 'human_review_gate' });
    const blocked = step(FEATURE_DEFINITION, ended.state, { type: 'act' }, ENV);
    expect(blocked.actions).toEqual([{ type: 'block', code: 'pull_request_closed', message: 'the pull request was closed without merging; reopen it and add service:retry; service:retry resumes at human_review_gate' }]);
    const resumed = step(FEATURE_DEFINITION, { ...ended.state, blocked: true }, { type: 'resumed' }, ENV);
    expect(resumed.state.position).toMatchObject({ node: 'human_review_gate', resume_at: null, visits: { human_review_gate: 2 } });
    expect(step(FEATURE_DEFINITION, { ...resumed.state, blocked: false }, { type: 'act' }, ENV).actions.at(-1)).toMatchObject({ type: 'wait', node: 'human_review_gate' });
    // Histories from before kept nowhere to go: service:retry found the end again and blocked.
    const before = step(FEATURE_DEFINITION, atReview, closed, { ...ENV, patched: (patch: string) => patch !== BLOCKED_END_RESUMES_PATCH });
    expect(before.state.position).toMatchObject({ node: 'pull_request_closed', resume_at: null });
    expect(step(FEATURE_DEFINITION, before.state, { type: 'resumed' }, ENV).actions).toEqual([]);
  });
});


describe('step: what the intake used to decide (issue 44)', () => {
  const retryEvent = (mode: 'resume' | 'review_response' | 'regenerate') => ({ type: 'retry', command: { type: 'retry', mode }, by: 'ada', delivery_identity: 'd9', request_name: 'reply_4' }) as const;

  it('service:retry on a blocked ticket leaves the block, starts the CI fix attempts again, takes both labels off, then resumes', () => {
    const blocked = stateAt('check', { ci_fix_attempts: 3 }, { blocked: true, retry_count: 1 });
    const result = step(INVENTED, blocked, retryEvent('resume'), ENV);
    expect(types(result.actions)).toEqual(['set_position', 'leave_block', 'effect', 'then']);
    expect(result.actions[1]).toEqual({ type: 'leave_block', by: 'retry', delivery_identity: 'd9' });
    // Named by the episode the block was: the next block's retry writes under a new name.
    expect(result.actions[2]).toMatchObject({ name: 'retry_1_labels', node: 'check', visit: 1, operation: { remove: ['service:retry', 'service:blocked'] } });
    expect(result.actions[3]).toEqual({ type: 'then', event: { type: 'resumed' } });
    expect(result.state).toMatchObject({ blocked: false, retry_count: 2, position: { node: 'check', ci_fix_attempts: 0 } });
  });

  it('service:retry at a review-response gate goes back to the review it answered; histories from before shared the resume\'s label write', () => {
    const atGate = stateAt('merge_gate', { paused: true, visits: { merge_gate: 1, note_gate: 2 } }, { retry_count: 3 });
    const result = step(INVENTED, atGate, retryEvent('review_response'), ENV);
    expect(result.actions[0]).toEqual({ type: 'back_to_review', position: result.state.position });
    expect(result.state.position).toMatchObject({ node: 'note_gate', paused: false, visits: { note_gate: 3 } });
    expect(result.actions.at(-1)).toMatchObject({ type: 'effect', name: 'review_retry_3_labels', node: 'note_gate', visit: 3, operation: { remove: ['service:retry'] } });
    const before = step(INVENTED, atGate, retryEvent('review_response'), { ...ENV, patched: () => false });
    expect(before.actions.at(-1)).toMatchObject({ type: 'effect', name: 'retry_3_labels' });
  });

  it('service:retry at a gate that shows its artifact regenerates it: the label goes, then the gate\'s outcome, as a follow-up', () => {
    const result = step(INVENTED, stateAt('note_gate', { paused: true }), retryEvent('regenerate'), ENV);
    expect(result.actions).toEqual([
      expect.objectContaining({ type: 'effect', name: 'reply_4_retry_label', node: 'note_gate' }),
      { type: 'then', event: { type: 'command', command: { type: 'retry', mode: 'regenerate' }, by: 'ada', delivery_identity: 'd9' } },
    ]);
    expect(result.state.position.node).toBe('note_gate');
  });

  it('a corrected command lifts the unknown command\'s block and keeps the CI fix attempts', () => {
    const blocked = stateAt('note_gate', { paused: true, ci_fix_attempts: 2 }, { blocked: true, retry_count: 0 });
    const result = step(INVENTED, blocked, { type: 'corrected', delivery_identity: 'd9' }, ENV);
    expect(result.actions).toEqual([
      { type: 'leave_block', by: 'corrected_command', delivery_identity: 'd9' },
      expect.objectContaining({ type: 'effect', name: 'corrected_0_labels', operation: expect.objectContaining({ remove: ['service:blocked'] }) }),
    ]);
    expect(result.state).toMatchObject({ blocked: false, retry_count: 1, position: { ci_fix_attempts: 2, paused: true } });
  });

  it('judges /service rebase: the detour where it may run, a refusal that says why where it may not', () => {
    const ok = step(INVENTED, stateAt('merge_gate', { paused: true }, { pull_requests: [PR] }), { type: 'rebase', target: null, delivery_identity: 'd9' }, ENV);
    expect(ok.state.position).toMatchObject({ node: 'tidy', return_to: 'merge_gate', rebase_target: null });
    const blocked = step(INVENTED, stateAt('merge_gate', { paused: true }, { pull_requests: [PR], blocked: true }), { type: 'rebase', target: null, delivery_identity: 'd9' }, ENV);
    expect(blocked.actions).toEqual([
      { type: 'record', kind: 'command_decision', status: 'rejected', summary: expect.stringContaining('/service rebase at merge_gate: the ticket is blocked'), details: { node: 'merge_gate', delivery_identity: 'd9' } },
      { type: 'refuse', trigger: 'rebase', reason: expect.stringContaining('add service:retry first'), reply: 'with_position' },
    ]);
    expect(blocked.state.position.node).toBe('merge_gate');
    // A merged pull request has nothing left to rebase; histories from before ran the station on it and answered bare.
    const merged = stateAt('merge_gate', { paused: true }, { pull_requests: [PR], merged_pull_requests: [PR] });
    expect(step(INVENTED, merged, { type: 'rebase', target: PR, delivery_identity: 'd9' }, ENV).actions.at(-1)).toMatchObject({ type: 'refuse', reason: `${PR} is merged already; there is nothing left to rebase on it` });
    expect(step(INVENTED, merged, { type: 'rebase', target: PR, delivery_identity: 'd9' }, { ...ENV, patched: () => false }).state.position.node).toBe('tidy');
    expect(step(NO_DEFINITION, stateAt('intake'), { type: 'rebase', target: null, delivery_identity: 'd9' }, ENV).actions.at(-1)).toMatchObject({ type: 'refuse', reason: expect.stringContaining('no rebase step') });
  });

  it('service:yolo standing at the start switches yolo on and says so; nothing is passed before a gate pauses', () => {
    const result = step(INVENTED, stateAt('write'), { type: 'yolo_at_start', delivery_identity: 'd1', reason: 'ada is allowed' }, ENV);
    expect(result.actions).toEqual([
      { type: 'record', kind: 'command_decision', status: 'accepted', summary: 'service:yolo was on the ticket when it started: planning gates approve themselves', details: { delivery_identity: 'd1', reason: 'ada is allowed' } },
      { type: 'set_position', position: result.state.position },
    ]);
    expect(result.state.position).toMatchObject({ node: 'write', yolo: true });
  });

  it('a draft edit edits the draft of the gate where the ticket waits, and nothing anywhere else', () => {
    const command = { type: 'draft_remove', item_id: 2 } as const;
    expect(step(INVENTED, stateAt('note_gate', { paused: true }), { type: 'draft_edit', command }, ENV).actions).toEqual([{ type: 'edit_draft', node: 'note_gate', artifact: 'note', command }]);
    expect(step(INVENTED, stateAt('write'), { type: 'draft_edit', command }, ENV).actions).toEqual([]);
    expect(step(INVENTED, stateAt('merge_gate', { paused: true }), { type: 'draft_edit', command }, ENV).actions).toEqual([]);
  });
});

describe('step: an operator\'s migration', () => {
  it('moves the ticket to the mapped node with its counts and return nodes renamed, and nothing else', () => {
    const before = stateAt('note_gate', { paused: true, visits: { write: 2, note_gate: 2 }, bound_counts: { write: 1 }, return_to: 'note_gate', resume_at: null, yolo: true });
    const result = step(INVENTED, before, { type: 'migrated', target_node: 'merge_gate', renames: { note_gate: 'merge_gate' } }, ENV);
    expect(result.state.position).toEqual({ ...before.position, node: 'merge_gate', visits: { write: 2, merge_gate: 2 }, return_to: 'merge_gate' });
    expect(result.actions).toEqual([{ type: 'set_position', position: result.state.position }]);
  });
});

describe('step: the triage gate writes its own label', () => {
  it('takes the triage label off whatever outcome leaves the gate; histories from before left it to the station', () => {
    const atGate = stateAt('triage_gate', { paused: true });
    for (const command of [{ type: 'feedback', text: 'it is on every build', via: 'comment' }, { type: 'retriage', trigger: 'ticket_update' }] as const) {
      const { actions } = step(BUG_DEFINITION, atGate, { type: 'command', command, by: 'ada', delivery_identity: 'd1' }, ENV);
      expect(actions.filter((a) => a.type === 'effect')).toEqual([expect.objectContaining({ name: 'clear_stage_label', node: 'triage_gate', operation: expect.objectContaining({ remove: ['service:triage-pending'] }) })]);
      const before = step(BUG_DEFINITION, atGate, { type: 'command', command, by: 'ada', delivery_identity: 'd1' }, { ...ENV, patched: (patch) => patch !== TRIAGE_GATE_CLEARS_ITS_LABEL_PATCH });
      expect(before.actions.filter((a) => a.type === 'effect')).toEqual([]);
    }
  });
});
