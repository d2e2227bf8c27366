import { describe, expect, it } from 'vitest';
import { parseCommand, type CommandPosition } from '../../../../workflows/person-commands/command-parser';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { acceptTable } from '../../../../workflows/built-in-definitions/definition-types';
import { gateTable } from '../../../../workflows/runtime/node-traits';
import type { Observation, ObservationFacts } from '../../../../workflows/ledger/observation';
import { isProposalBranch, noteProposalEvent, noteProposalOpened, proposalBranch, proposalFile, proposalPosition } from '../../../../workflows/person-commands/proposal-review';
import type { Runtime } from '../../../../workflows/runtime/ticket-state';

function observation(event: Observation['event'], facts: ObservationFacts, source_system: Observation['source_system'] = 'scmhost'): Observation {
  return {
    delivery_identity: 'identity', source: 'webhook', source_system, event, resource: { kind: 'x', id: '1' }, revision: null,
    fingerprint: 'fingerprint', ticket_key: 'PROJ-1', facts, observed_at: null, received_at: '2026-11-25T08:00:00.000Z',
  };
}
const pullRequest = (action: string, head_ref: string, merged = false, number = 3) =>
  observation('pull_request', { action, repository: 'acme/proposals', pull_request: { number, head_ref, merged } });
const open = (head: string) => ({ kind: 'scmhost.open_pr' as const, repository: 'acme/proposals', head, base: null, title: 't', body: 'b' });
const prdOutputs = { generate_prd: { proposal: { repository: 'acme/proposals', branch: 'service/prd/proj-1', path: 'proposals/PROJ-1/prd.md' } } };

describe('proposal review names', () => {
  it('names the branches and files of REFERENCE "Source host conventions"', () => {
    expect(proposalBranch('prd', 'PROJ-12')).toBe('service/prd/proj-12');
    expect(proposalBranch('spec', 'PROJ-12')).toBe('service/spec/proj-12');
    expect(proposalFile('prd', 'proposals', 'proj-12')).toBe('proposals/PROJ-12/prd.md');
    expect(proposalFile('spec', 'docs/rfcs/', 'PROJ-12')).toBe('docs/rfcs/PROJ-12/design.md');
    expect([isProposalBranch('service/prd/proj-1'), isProposalBranch('refs/heads/service/spec/proj-1'), isProposalBranch('service/proj-1'), isProposalBranch(undefined)])
      .toEqual([true, true, false, false]);
  });
});

describe('proposal pull requests in the workflow state', () => {
  it('keeps an opened proposal apart from the change and follows it to merged or closed', () => {
    const runtime: Pick<Runtime, 'proposals'> = {};
    expect(noteProposalOpened(runtime, open('service/proj-1'), 'acme/api#4')).toBe(false);
    expect(noteProposalOpened(runtime, open('service/prd/proj-1'), 'acme/proposals#3')).toBe(true);
    expect(runtime.proposals).toEqual({ 'service/prd/proj-1': { pull_request: 'acme/proposals#3', state: 'open' } });
    expect(noteProposalEvent(runtime, pullRequest('synchronize', 'service/prd/proj-1'))).toBe(true);
    expect(runtime.proposals!['service/prd/proj-1']!.state).toBe('open');
    expect(noteProposalEvent(runtime, pullRequest('closed', 'service/prd/proj-1', true))).toBe(true);
    expect(runtime.proposals!['service/prd/proj-1']).toEqual({ pull_request: 'acme/proposals#3', state: 'merged' });
    expect(noteProposalEvent(runtime, pullRequest('closed', 'service/proj-1', true))).toBe(false);
  });

  it('says at the gate whether proposal review is on and which proposal is open there', () => {
    const runtime: Pick<Runtime, 'proposals'> = {};
    expect(proposalPosition('prd', {}, runtime)).toEqual({ proposal_review: false });
    expect(proposalPosition('prd', prdOutputs, runtime)).toEqual({ proposal_review: true });
    noteProposalOpened(runtime, open('service/prd/proj-1'), 'acme/proposals#3');
    expect(proposalPosition('prd', prdOutputs, runtime)).toEqual({ proposal_review: true, proposal_open: 'acme/proposals#3' });
    // The spec gate has a proposal of its own; the PRD's does not count there.
    expect(proposalPosition('spec', prdOutputs, runtime)).toEqual({ proposal_review: true });
    noteProposalEvent(runtime, pullRequest('closed', 'service/prd/proj-1'));
    expect(proposalPosition('prd', prdOutputs, runtime)).toEqual({ proposal_review: true });
  });
});

describe('ticket commands while a proposal is open', () => {
  const at = (current_node: string, extra: Partial<CommandPosition> = {}): CommandPosition => ({
    workflow_kind: 'feature', current_node, accepts: acceptTable(BUILT_IN_DEFINITIONS.feature), gates: gateTable(BUILT_IN_DEFINITIONS.feature), is_blocked: false, is_paused: true, has_pull_request: false, proposal_review: true, ...extra,
  });
  const comment = (body: string) => observation('issue_commented', { comment: { id: 'c1', body } }, 'tracker');

  it.each([
    ['! add archived reports', 'feedback (!)'],
    ['? why CSV', 'a question (?)'],
  ])('ignores %s at the PRD gate with the reason', (body, trigger) => {
    expect(parseCommand(comment(body), at('prd_approval_gate', { proposal_open: 'acme/proposals#3' }))).toEqual({
      kind: 'ignore',
      reason: `${trigger} on the ticket is ignored at prd_approval_gate while the proposal pull request acme/proposals#3 is open: review it there (review comments revise it, merging approves it)`,
    });
  });

  it('reads ! and ? again once the proposal is merged or closed, and the label approves all along', () => {
    expect(parseCommand(comment('! add archived reports'), at('prd_approval_gate'))).toEqual({ kind: 'command', command: { type: 'feedback', text: 'add archived reports', via: 'comment' } });
    expect(parseCommand(comment('? why CSV'), at('spec_approval_gate'))).toEqual({ kind: 'command', command: { type: 'question', text: 'why CSV' } });
    const label = observation('issue_updated', { label_change: { added: ['service:prd-approved'], removed: [] } }, 'tracker');
    expect(parseCommand(label, at('prd_approval_gate', { proposal_open: 'acme/proposals#3' }))).toMatchObject({ kind: 'command', command: { type: 'approve', gate: 'prd_approval_gate' } });
  });
});
