import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../../src/definition-rules/validate-definition';
import { BUG_DEFINITION, FEATURE_DEFINITION } from '../../../../workflows/built-in-definitions';
import { acceptTable, type DefinitionNode, type WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import type { Observation, ObservationFacts, SourceSystem } from '../../../../workflows/ledger/observation';
import { parseCommand, type CommandPosition } from '../../../../workflows/person-commands/command-parser';
import { proposalPosition } from '../../../../workflows/person-commands/proposal-review';
import { gateTable, gateTraits } from '../../../../workflows/runtime/node-traits';
import { TRIGGER } from '../../../../workflows/vocabulary/command-words';

/**
 * Gate behaviour as node data (issue 44): proposal review, retriage and the review retry target come from the gate's
 * fields, so a published definition can give them to gates of any name; a body without the fields (pinned before
 * they existed) keeps what the built-in gate of each name did.
 */

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Proposal review and retriage at gates whose names the built-in definitions never used. */
const RENAMED: WorkflowDefinition = {
  apiVersion: 'service/v1', name: 'feature', revision: 9, entry: 'intake',
  nodes: {
    intake: { kind: 'station', station: 'intake', on: { configured: 'check' } },
    check: { kind: 'station', station: 'triage_check', model_key: 'bug_triage', on: { complete: 'write', incomplete: 'details_gate' } },
    details_gate: {
      kind: 'gate', gate: 'triage', feedback_retriages: true, accepts: [TRIGGER.ticketUpdate, TRIGGER.feedback],
      on: { retriage: 'check', feedback: 'check' },
    },
    write: { kind: 'station', station: 'generate_prd', model_key: 'generate_prd', on: { generated: 'brief_gate' } },
    brief_gate: {
      kind: 'gate', gate: 'artifact_approval', artifact: 'prd', reviews_proposal: 'prd',
      accepts: [TRIGGER.prdApproved, TRIGGER.feedback, TRIGGER.proposalReview, TRIGGER.proposalMerged],
      on: { approved: 'done', feedback: 'write' },
    },
    done: { kind: 'end', result: 'completed' },
  },
};

function observation(event: Observation['event'], facts: ObservationFacts, source_system: SourceSystem = 'tracker'): Observation {
  return {
    delivery_identity: 'identity', source: 'webhook', source_system, event, resource: { kind: 'x', id: '1' }, revision: null,
    fingerprint: 'fingerprint', ticket_key: 'PROJ-1', facts, observed_at: null, received_at: '2026-11-23T08:00:00.000Z',
  };
}
const comment = (body: string) => observation('issue_commented', { comment: { id: 'c1', body } });
const proposalMerged = (branch: string) => observation('pull_request', {
  action: 'closed', repository: 'acme/proposals', pull_request: { number: 3, head_ref: branch, merged: true },
}, 'scmhost');

function at(definition: WorkflowDefinition, current_node: string, extra: Partial<CommandPosition> = {}): CommandPosition {
  return {
    workflow_kind: 'feature', current_node, accepts: acceptTable(definition), gates: gateTable(definition),
    is_blocked: false, is_paused: true, has_pull_request: false, proposal_review: true, ...extra,
  };
}

/** The body as pinned before the gate fields existed. */
function withoutGateFields(definition: WorkflowDefinition): WorkflowDefinition {
  const body = clone(definition);
  for (const node of Object.values(body.nodes) as Array<DefinitionNode & Record<string, unknown>>) {
    delete node.reviews_proposal;
    delete node.feedback_retriages;
    delete node.retry_to;
  }
  return body;
}

describe('gate fields on gates of any name', () => {
  it('is a valid definition', () => {
    const valid = validateDefinition(RENAMED);
    expect(valid.ok ? [] : valid.problems).toEqual([]);
  });

  it('a `!` at the gate that says feedback_retriages is the details triage asked for', () => {
    expect(parseCommand(comment('! it happens in Firefox only'), at(RENAMED, 'details_gate'))).toEqual({
      kind: 'command', command: { type: 'retriage', trigger: 'feedback', text: 'it happens in Firefox only' },
    });
    // The same words at a gate without the field revise its artifact.
    expect(parseCommand(comment('! shorter'), at(RENAMED, 'brief_gate'))).toEqual({ kind: 'command', command: { type: 'feedback', text: 'shorter', via: 'comment' } });
  });

  it('a merged PRD proposal approves the gate that reviews the PRD, and only there', () => {
    expect(parseCommand(proposalMerged('service/prd/proj-1'), at(RENAMED, 'brief_gate'))).toEqual({ kind: 'command', command: { type: 'approve', gate: 'brief_gate', via: 'merge' } });
    expect(parseCommand(proposalMerged('service/prd/proj-1'), at(RENAMED, 'details_gate'))).toEqual({
      kind: 'ignore', reason: 'the brief_gate proposal was merged; not meaningful at details_gate',
    });
    // No gate of this definition reviews a spec: its proposal is named by its kind, and approves nothing.
    expect(parseCommand(proposalMerged('service/spec/proj-1'), at(RENAMED, 'brief_gate'))).toEqual({
      kind: 'ignore', reason: 'the spec proposal was merged; not meaningful at brief_gate',
    });
  });

  it('while the proposal is open, the ticket\'s `!` at its gate is ignored', () => {
    const runtime = { proposals: { 'service/prd/proj-1': { pull_request: 'acme/proposals#3', state: 'open' as const } } };
    const outputs = { generate_prd: { proposal: { repository: 'acme/proposals', branch: 'service/prd/proj-1', path: 'docs/PROJ-1/prd.md' } } };
    const position = at(RENAMED, 'brief_gate', proposalPosition(gateTable(RENAMED).brief_gate!.reviews_proposal, outputs, runtime));
    expect(position.proposal_open).toBe('acme/proposals#3');
    expect(parseCommand(comment('! shorter'), position)).toMatchObject({ kind: 'ignore', reason: expect.stringContaining('while the proposal pull request acme/proposals#3 is open') });
  });

  it('the field wins over the name: a triage_gate that says no retriage takes `!` as feedback', () => {
    const named = clone(RENAMED);
    named.nodes.triage_gate = { ...(named.nodes.details_gate as Extract<DefinitionNode, { kind: 'gate' }>), feedback_retriages: false };
    expect(gateTraits('triage_gate', named.nodes.triage_gate as Extract<DefinitionNode, { kind: 'gate' }>)).toEqual({ reviews_proposal: null, feedback_retriages: false });
    expect(parseCommand(comment('! more'), at(named, 'triage_gate'))).toEqual({ kind: 'command', command: { type: 'feedback', text: 'more', via: 'comment' } });
  });
});

describe('bodies pinned before the gate fields', () => {
  it('the built-in definitions\' gates do what their names did, declared or not', () => {
    for (const definition of [FEATURE_DEFINITION, BUG_DEFINITION]) {
      expect(gateTable(withoutGateFields(definition)), definition.name).toEqual(gateTable(definition));
    }
    expect(gateTable(FEATURE_DEFINITION)).toMatchObject({ prd_approval_gate: { reviews_proposal: 'prd' }, spec_approval_gate: { reviews_proposal: 'spec' } });
    expect(gateTable(BUG_DEFINITION)).toMatchObject({ triage_gate: { feedback_retriages: true }, rca_option_gate: { feedback_retriages: false } });
  });

  it('keep the behaviour of the built-in gate of each name', () => {
    const feature = withoutGateFields(FEATURE_DEFINITION);
    const bug = withoutGateFields(BUG_DEFINITION);
    expect(gateTable(feature)).toMatchObject({ prd_approval_gate: { reviews_proposal: 'prd' }, spec_approval_gate: { reviews_proposal: 'spec' }, plan_approval_gate: { reviews_proposal: null } });
    expect(parseCommand(comment('! it crashes on save'), { ...at(bug, 'triage_gate'), workflow_kind: 'bug' })).toEqual({
      kind: 'command', command: { type: 'retriage', trigger: 'feedback', text: 'it crashes on save' },
    });
    expect(parseCommand(proposalMerged('service/spec/proj-1'), at(feature, 'spec_approval_gate'))).toEqual({ kind: 'command', command: { type: 'approve', gate: 'spec_approval_gate', via: 'merge' } });
  });
});

describe('the gate fields in the schema and the validator', () => {
  const problems = (definition: unknown) => {
    const valid = validateDefinition(definition);
    return valid.ok ? [] : valid.problems;
  };

  it('refuses an unknown proposal kind and a retriage flag that is not a boolean, naming the node', () => {
    const bad = clone(RENAMED) as unknown as { nodes: Record<string, Record<string, unknown>> };
    bad.nodes.brief_gate!.reviews_proposal = 'design';
    bad.nodes.details_gate!.feedback_retriages = 'yes';
    const found = problems(bad);
    expect(found).toEqual(expect.arrayContaining([expect.stringMatching(/^nodes\.brief_gate\.reviews_proposal: /), expect.stringMatching(/^nodes\.details_gate\.feedback_retriages: /)]));
  });

  it('refuses two gates reviewing the same proposal kind', () => {
    const two = clone(RENAMED);
    two.nodes.second_gate = { ...(two.nodes.brief_gate as Extract<DefinitionNode, { kind: 'gate' }>), on: { approved: 'done', feedback: 'write' } };
    (two.nodes.brief_gate as Extract<DefinitionNode, { kind: 'gate' }>).on.approved = 'second_gate';
    expect(problems(two)).toEqual(['nodes.second_gate: reviews the prd proposal, as nodes.brief_gate does; one gate per proposal kind']);
  });

  it('refuses a retriaging gate with no `retriage` outcome', () => {
    const unmapped = clone(RENAMED);
    const gate = unmapped.nodes.details_gate as Extract<DefinitionNode, { kind: 'gate' }>;
    gate.accepts = [TRIGGER.feedback];
    delete gate.on.retriage;
    expect(problems(unmapped)).toEqual(['nodes.details_gate: feedback_retriages, whose outcome "retriage" is not mapped in "on"']);
  });
});
