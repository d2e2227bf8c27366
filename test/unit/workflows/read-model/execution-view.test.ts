import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { permittedCommands } from '../../../../workflows/read-model/execution-view';
import type { WorkflowKind } from '../../../../workflows/ledger/observation';
import { initialTicketState, type TicketState } from '../../../../workflows/runtime/ticket-state';
import { ticketAtNode } from '../../../helpers/ticket-at-node';

const NOW = '2026-11-27T10:00:00.000Z';
const SWITCHES = ['service:yolo', 'service:stop', '/service stop'];

/** A ticket of the built-in definition of `kind`, standing at `node` (paused there when it is a gate). */
function ticket(node: string, kind: WorkflowKind = 'feature', change: (state: TicketState) => void = () => undefined): TicketState {
  const state = ticketAtNode(BUILT_IN_DEFINITIONS[kind], kind, node, NOW);
  change(state);
  return state;
}

const blocked = (state: TicketState) => {
  state.checkpoint.is_blocked = true;
  state.status = 'blocked';
};
const withPullRequest = (state: TicketState) => {
  state.pull_requests = ['acme/api#7'];
};

describe('permitted_commands: only what would do something now', () => {
  it('at the PRD gate without proposal review: its approval label, `?`, `!`, regenerating, and the switches', () => {
    expect(permittedCommands(ticket('prd_approval_gate'))).toEqual([
      'service:prd-approved', 'a question (?)', 'feedback (!)', 'service:retry at a paused gate', ...SWITCHES,
    ]);
  });

  it('offers no /service rebase without an open pull request', () => {
    expect(permittedCommands(ticket('prd_approval_gate'))).not.toContain('/service rebase');
    expect(permittedCommands(ticket('human_review_gate', 'feature', withPullRequest))).toContain('/service rebase');
    // The only pull request was merged: nothing to rebase.
    expect(permittedCommands(ticket('human_review_gate', 'feature', (state) => {
      withPullRequest(state);
      state.runtime!.merged_pull_requests = ['acme/api#7'];
    }))).not.toContain('/service rebase');
    // A rebase is running already.
    expect(permittedCommands(ticket('rebase', 'feature', withPullRequest))).not.toContain('/service rebase');
  });

  it('offers no regeneration at a gate that has not paused yet', () => {
    expect(permittedCommands(ticket('prd_approval_gate', 'feature', (state) => {
      state.checkpoint.is_paused = false;
    }))).not.toContain('service:retry at a paused gate');
  });

  it('while blocked: service:retry and the switches allowed while blocked, nothing of the node', () => {
    expect(permittedCommands(ticket('generate_prd', 'feature', blocked))).toEqual(['service:retry', 'service:yolo']);
    expect(permittedCommands(ticket('prd_approval_gate', 'feature', blocked))).toEqual(['service:retry', 'service:yolo']);
    // A blocked ticket is not rebased (service:retry first), pull request or not.
    expect(permittedCommands(ticket('human_review_gate', 'feature', (state) => {
      withPullRequest(state);
      blocked(state);
    }))).toEqual(['service:retry', 'service:yolo']);
  });

  it('at a station: only the switches', () => {
    expect(permittedCommands(ticket('generate_spec'))).toEqual(SWITCHES);
  });

  it('at the draft gates: approval by label and comment and the draft edits, in a feature workflow only', () => {
    expect(permittedCommands(ticket('plan_approval_gate'))).toEqual([
      'service:plan-approved', '/service approve', 'a question (?)', 'feedback (!)', 'service:retry at a paused gate',
      'feedback on a draft item (! <n>:)', '/service remove', '/service exclude', '/service update', '/service add', ...SWITCHES,
    ]);
    const bugPlan = permittedCommands(ticket('plan_approval_gate', 'bug'));
    expect(bugPlan).toContain('service:plan-approved');
    expect(bugPlan).not.toContain('/service remove');
  });

  it('while a proposal pull request is open at its gate: the review happens there, `!` and `?` on the ticket mean nothing', () => {
    const state = ticket('prd_approval_gate', 'feature', (s) => {
      s.outputs = { generate_prd: { proposal: { repository: 'acme/proposals', branch: 'service/prd/sbx-1', path: 'proposals/SBX-1/prd.md' } } };
      s.runtime!.proposals = { 'service/prd/sbx-1': { pull_request: 'acme/proposals#3', state: 'open' } };
    });
    expect(permittedCommands(state)).toEqual([
      'service:prd-approved', 'service:retry at a paused gate', 'a review of the proposal', 'a merged proposal', ...SWITCHES,
    ]);
  });

  it('nothing once the ticket completed', () => {
    expect(permittedCommands(ticket('done', 'feature', (state) => {
      state.status = 'completed';
      state.runtime!.ended = 'completed';
    }))).toEqual([]);
  });

  it('a ticket of the v0.1 build (no pinned definition): the switches, and service:retry when blocked', () => {
    const legacy = initialTicketState({ ticket_key: 'OLD-1', project_key: 'OLD', issue_type: 'Feature', workflow_kind: 'feature' }, 'run', NOW);
    expect(permittedCommands(legacy)).toEqual(SWITCHES);
    blocked(legacy);
    expect(permittedCommands(legacy)).toEqual(['service:retry', 'service:yolo']);
  });

  it('lists a trigger this build has no meaning for as the definition names it', () => {
    expect(permittedCommands(ticket('prd_approval_gate', 'feature', (state) => {
      const gate = state.definition!.body.nodes.prd_approval_gate!;
      state.definition = { ...state.definition!, body: { ...state.definition!.body, nodes: { ...state.definition!.body.nodes, prd_approval_gate: { ...gate, accepts: ['a newer trigger'] } as typeof gate } } };
    }))).toEqual(['a newer trigger', ...SWITCHES]);
  });
});

describe('permitted_commands and merged pull requests', () => {
  // Judged as the intake judges it (command-position.ts): a merged pull request still counts as the ticket's, and
  // `/service rebase` says itself that there is nothing left to rebase on it.
  it('offers /service rebase while a pull request is open, and not once every one is merged', () => {
    const merged = (refs: string[]) => ticket('human_review_gate', 'feature', (s) => {
      s.pull_requests = ['acme/api#7', 'acme/web#2'];
      s.runtime!.merged_pull_requests = refs;
    });
    expect(permittedCommands(merged(['acme/web#2']))).toContain('/service rebase');
    expect(permittedCommands(merged(['acme/web#2', 'acme/api#7']))).not.toContain('/service rebase');
  });
});
