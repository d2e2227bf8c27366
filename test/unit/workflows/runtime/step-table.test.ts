import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../../workflows/person-commands/command-types';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { nodeAccepts, RETURN_TARGET, type DefinitionNode, type WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import { step } from '../../../../workflows/runtime/step';
import type { Action, StepState } from '../../../../workflows/runtime/step-types';
import type { WorkflowKind } from '../../../../workflows/ledger/observation';
import { COMMAND_FOR_OUTCOME, deliveriesOf, ENV, intakeEvent, meaningsOf, parsed, PR, settle, stateAt, waitingPosition } from './fixtures';
import { BLOCKED_LABEL, RETRY_LABEL } from '../../../../workflows/vocabulary/labels';
import { MEANING, type Trigger } from '../../../../workflows/person-commands/command-meaning';
import { TRIGGER } from '../../../../workflows/vocabulary/command-words';

/**
 * Generated from the built-in definitions: every (node, outcome) and every (node, accepted trigger) pair goes through
 * `step`, and the expected target comes from the definition's data. The last test asserts that every pair ran.
 */

/** The outcome a command means at a gate, as REFERENCE "Commands" says (independent of gateCommandEffect). */
const OUTCOME_OF: Readonly<Partial<Record<Command['type'], string>>> = {
  approve: 'approved', feedback: 'feedback', question: 'question', select_option: 'option_selected', retriage: 'retriage',
  review_approved: 'review_approved', review_changes_requested: 'changes_requested', ci_completed: 'ci_event', pr_synchronized: 'ci_event',
  pr_merged: 'merged', pr_closed: 'closed',
};
function outcomeOf(command: Command): string | undefined {
  return command.type === 'retry' ? (command.mode === 'regenerate' ? 'regenerate' : undefined) : OUTCOME_OF[command.type];
}

interface Pair { id: string; run: () => void }
const pairs: Pair[] = [];
const covered = new Set<string>();

function entered(actions: Action[]): Extract<Action, { type: 'enter' }> {
  const last = actions.at(-1);
  if (last?.type !== 'enter') throw new Error(`expected the step to end by entering a node, got ${JSON.stringify(actions.map((a) => a.type))}`);
  return last;
}

/** A node the `$return` of a detour can come back to: the first gate of the definition. */
function someGate(definition: WorkflowDefinition): string {
  return Object.entries(definition.nodes).find(([, node]) => node.kind === 'gate')![0];
}

/** The first entry into `target`: a bounded station counts 1 of its bound, so the ticket stands there. */
function expectedNode(target: string, returnTo: string): string {
  return target === RETURN_TARGET ? returnTo : target;
}

function gateState(node: string, outcome: string | undefined, rest: Partial<Omit<StepState, 'position'>> = {}): StepState {
  return stateAt(node, { paused: true }, {
    pull_requests: [PR],
    merged_pull_requests: outcome === 'merged' ? [PR] : [],
    approved_pull_requests: outcome === 'review_approved' ? [PR] : [],
    ...rest,
  });
}

function expectGatePass(id: string, spec: Extract<DefinitionNode, { kind: 'gate' }>, actions: Action[], outcome: string, state: StepState) {
  const target = spec.on[outcome];
  expect(target, `${outcome} at ${state.position.node} leads nowhere`).toBeDefined();
  const entry = entered(actions);
  expect(entry.transition).toMatchObject({ from: state.position.node, to: target, outcome });
  expect(actions[0]).toEqual({ type: 'wait_ended' });
  const approves = outcome === 'approved' || outcome === 'option_selected';
  expect(actions.some((a) => a.type === 'approve_artifact')).toBe(approves && spec.artifact !== undefined);
  // Approval takes the gate's label off; a triage gate's goes with any outcome (it is the label's one writer).
  const clears = approves || spec.feedback_retriages === true;
  expect(actions.some((a) => a.type === 'effect' && a.name === 'clear_stage_label')).toBe(clears && spec.pending_label !== undefined);
  expect(entry.position.return_to).toBe(outcome === 'question' ? state.position.node : null);
  covered.add(id);
}

for (const [kind, definition] of Object.entries(BUILT_IN_DEFINITIONS)) {
  for (const [node, spec] of Object.entries(definition.nodes)) {
    if (spec.kind === 'end') continue;
    for (const [outcome, target] of Object.entries(spec.on)) {
      const id = `${kind}: ${node} --${outcome}--> ${target}`;
      pairs.push({
        id,
        run: () => {
          if (spec.kind === 'station') {
            const returnTo = someGate(definition);
            const state = stateAt(node, { return_to: target === RETURN_TARGET ? returnTo : null, request: { kind: 'feedback', text: 'x' } });
            const result = step(definition, state, { type: 'station_returned', node, station: spec.station, outcome, intents: [] }, ENV);
            expect(result.actions.slice(0, 2)).toEqual([{ type: 'record_attempt', status: 'succeeded', error: null }, { type: 'keep_result' }]);
            expect(entered(result.actions).transition).toMatchObject({ from: node, to: expectedNode(target, returnTo), outcome });
            expect(result.state.position).toMatchObject({ node: expectedNode(target, returnTo), request: null, paused: false });
            covered.add(id);
          } else if (spec.kind === 'router') {
            const outputs = outcome === 'next' ? { provision_tasks: { repositories: ['acme/app'] }, decompose_plan: { repositories: ['acme/app'] }, generate_plan: { repositories: ['acme/app'] } } : {};
            const result = step(definition, stateAt(node, {}, { outputs }), { type: 'act' }, ENV);
            expect(result.actions[0]).toMatchObject({ type: 'set_output', key: spec.router });
            expect(entered(result.actions).transition).toMatchObject({ from: node, to: target, outcome });
            covered.add(id);
          } else {
            const command = COMMAND_FOR_OUTCOME[outcome];
            if (!command) throw new Error(`no command means "${outcome}" at a gate: add it to COMMAND_FOR_OUTCOME`);
            const state = gateState(node, outcome);
            const { last } = settle(definition, state, intakeEvent(command));
            expectGatePass(id, spec, last.actions, outcome, state);
          }
        },
      });
    }
    for (const trigger of nodeAccepts(spec)) {
      meaningsOf(definition, kind as WorkflowKind, node, trigger).forEach((meaning, index) => {
        const id = `${kind}: ${node} accepts ${trigger}${index > 0 ? ` (#${index + 1})` : ''}`;
        pairs.push({
          id,
          run: () => {
            if (meaning.kind === 'review_retry') {
              // The contested review goes, and the ticket is back at the review it answered (the gate's retry_to).
              const state = gateState(node, undefined, { retry_count: 2 });
              const result = step(definition, state, intakeEvent({ type: 'retry', mode: 'review_response' }), ENV);
              expect(result.state.position).toMatchObject({ node: 'human_review_gate', paused: false });
              expect(result.state.position.visits.human_review_gate).toBe(1);
              expect(result.actions.map((a) => a.type)).toEqual(['back_to_review', 'record', 'effect']);
              expect(result.actions.at(-1)).toMatchObject({ name: 'review_retry_2_labels', node: 'human_review_gate', visit: 1, operation: { remove: [RETRY_LABEL] } });
              covered.add(id);
              return;
            }
            if (meaning.kind === 'ci_skips') {
              const skips = step(definition, gateState(node, undefined), { type: 'ci_skips', skip: meaning.skip, match: 'lint' }, ENV);
              expect(skips.state.position.ci_skipped_checks).toEqual(meaning.skip ? ['lint'] : []);
              expect(skips.actions).toEqual([{ type: 'set_position', position: skips.state.position }]);
              const state = skips.state;
              const result = step(definition, state, { type: 'ci_recheck', via: '/service skip-gate' }, ENV);
              if (spec.kind === 'gate') expectGatePass(id, spec, result.actions, 'ci_event', state);
              else {
                expect(result.actions).toEqual([]);
                covered.add(id);
              }
              return;
            }
            const command: Command = meaning.kind === 'draft_edit' ? { type: 'draft_remove', item_id: 1 } : meaning.command;
            const outcome = meaning.kind === 'draft_edit' ? undefined : outcomeOf(command);
            const state = gateState(node, outcome);
            const { first, last: result } = settle(definition, state, intakeEvent(command));
            // service:retry at a gate that shows its artifact regenerates it: the label goes first, then the gate's outcome.
            if (command.type === 'retry') expect(first.map((a) => a.type)).toEqual(['effect', 'then']);
            if (outcome === undefined) {
              // Edited in place: the gate keeps waiting.
              expect(spec.kind === 'gate' && spec.artifact).toBeTruthy();
              expect(result).toEqual({ state, actions: [{ type: 'edit_draft', node, artifact: spec.kind === 'gate' ? spec.artifact : '', command }] });
            } else if (spec.kind === 'gate') {
              expectGatePass(id, spec, result.actions, outcome, state);
            } else {
              // A station decides from the provider's state when it runs: the command is recorded, nothing moves.
              expect(result.actions).toEqual([expect.objectContaining({ type: 'record', status: 'deferred' })]);
              expect(result.state).toEqual(state);
            }
            covered.add(id);
          },
        });
      });
    }
  }
}

describe('step on every pair of the built-in definitions', () => {
  it.each(pairs.map((pair) => [pair.id, pair] as const))('%s', (_id, pair) => pair.run());

  afterAll(() => {
    // The coverage line: how many (node, outcome) and (node, trigger) pairs there are, and how many went through step.
    console.log(`step table: ${covered.size}/${pairs.length} pairs of ${Object.keys(BUILT_IN_DEFINITIONS).length} built-in definitions covered`);
  });

  it('covers every pair', () => {
    // Runs last in this file (vitest runs a file's tests in order).
    expect(pairs.length).toBeGreaterThan(100);
    expect(pairs.filter((pair) => !covered.has(pair.id)).map((pair) => pair.id)).toEqual([]);
  });
});

/**
 * The same deliveries in the other states a ticket can be in when they arrive, through the real parser and `step`:
 * blocked at the node (a stop is a block too: the boundary sees the same position), and away on the question detour
 * (at the station that answers, the gate waiting to be returned to).
 */
describe('each accepted trigger in every state kind', () => {
  const cases: Array<[string, () => void]> = [];
  for (const [kind, definition] of Object.entries(BUILT_IN_DEFINITIONS)) {
    for (const [node, spec] of Object.entries(definition.nodes)) {
      for (const trigger of nodeAccepts(spec)) {
        cases.push([`${kind}: ${node} blocked (or stopped), ${trigger}`, () => {
          for (const observation of deliveriesOf(trigger, node, definition)) {
            const result = parsed(observation, waitingPosition(definition, kind as WorkflowKind, node, trigger, { is_blocked: true }));
            if (trigger === TRIGGER.retryAtPausedGate || trigger === TRIGGER.retryAtReviewResponseGate) {
              // service:retry on a blocked ticket resumes it, whatever it means at an open gate: the block goes, the
              // CI fix attempts start again, and the gate waits again (nothing passes it but what it waits for).
              expect(result).toEqual({ command: { type: 'retry', mode: 'resume' } });
              const blocked = gateState(node, undefined, { blocked: true, retry_count: 1 });
              const atBlock: StepState = { ...blocked, position: { ...blocked.position, ci_fix_attempts: 3 } };
              const { first, last } = settle(definition, atBlock, intakeEvent({ type: 'retry', mode: 'resume' }));
              expect(first.map((a) => a.type)).toEqual(['set_position', 'leave_block', 'effect', 'then']);
              expect(first[2]).toMatchObject({ name: 'retry_1_labels', operation: { remove: [RETRY_LABEL, BLOCKED_LABEL] } });
              expect(last.state).toMatchObject({ blocked: false, retry_count: 2, position: { node, paused: true, ci_fix_attempts: 0 } });
            } else if (MEANING[trigger as Trigger].while_blocked) {
              // Facts that cannot wait (a merge, a close, the skip list) are taken while blocked.
              expect(result).toHaveProperty('command');
            } else {
              expect(result).toEqual({ refused: expect.stringContaining('blocked') });
            }
          }
        }]);
        const question = spec.kind === 'gate' ? spec.on.question : undefined;
        if (!question) continue;
        cases.push([`${kind}: on the question detour from ${node}, ${trigger}`, () => {
          const state = stateAt(question, { return_to: node, request: { kind: 'question', text: 'why?' } }, { pull_requests: [PR] });
          for (const observation of deliveriesOf(trigger, node, definition)) {
            const result = parsed(observation, waitingPosition(definition, kind as WorkflowKind, question, trigger));
            if ('refused' in result) {
              expect(result.refused).toContain(question);
              continue;
            }
            // Meaningful at the station too (a merge, a review): recorded for the station, the ticket stays.
            const stepped = step(definition, state, { type: 'command', command: result.command, by: 'ada', delivery_identity: 'd1' }, ENV);
            expect(stepped.actions.filter((a) => a.type === 'enter' || a.type === 'run_station')).toEqual([]);
            expect(stepped.state.position).toEqual(state.position);
          }
        }]);
      }
    }
  }
  it.each(cases)('%s', (_id, run) => run());
});
