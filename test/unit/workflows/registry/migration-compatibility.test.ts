import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUG_DEFINITION, FEATURE_DEFINITION, TASK_TAKEOVER_DEFINITION } from '../../../../workflows/built-in-definitions';
import { pinDefinition } from '../../../../src/definition-rules/definition-digest';
import { nodeAccepts, type PinnedDefinition, type WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import { analyzeMigration, applyMigration, decideMigration, describeNodeChange, type MigrationAnalysis, type MigrationPosition } from '../../../../workflows/registry/migration-compatibility';
import { applyPosition, stepStateOf } from '../../../../workflows/runtime/position';
import { step } from '../../../../workflows/runtime/step';
import { initialRuntime } from '../../../../workflows/runtime/ticket-state';
import { initialTicketState, type TicketState } from '../../../../workflows/runtime/ticket-state';

/** What the workflow does on an applied migration: swap the definition, then move the ticket with `step` (`migrated`). */
function migrate(state: TicketState, to: PinnedDefinition, analysis: MigrationAnalysis): void {
  applyMigration(state, to, analysis);
  const moved = step(to.body, stepStateOf(state), { type: 'migrated', target_node: analysis.target_node, renames: analysis.renames }, { ticketKey: 'P-1', patched: () => true });
  for (const action of moved.actions) if (action.type === 'set_position') applyPosition(state.checkpoint, state.runtime!, action.position);
}

function feature(revision: number, change: Partial<{ approvedTo: string; gateName: string; gateKind: string; label: string; waiting: string }> = {}): WorkflowDefinition {
  const gate = change.gateName ?? 'prd_gate';
  return {
    apiVersion: 'service/v1', name: 'feature', revision, entry: 'generate_prd',
    nodes: {
      generate_prd: { kind: 'station', station: 'generate_prd', retry_bound: 3, on: { generated: gate } },
      [gate]: {
        kind: 'gate', gate: change.gateKind ?? 'artifact_approval', artifact: 'prd', pending_label: change.label ?? 'service:prd-pending',
        accepts: ['service:prd-approved', 'a question (?)'], waiting_for: change.waiting ?? 'approval of the PRD',
        on: { approved: change.approvedTo ?? 'generate_spec', question: 'answer_question' },
      },
      answer_question: { kind: 'station', station: 'answer_question', on: { answered: '$return' } },
      generate_spec: { kind: 'station', station: 'generate_spec', on: { generated: 'done' } },
      escalate_blocked: { kind: 'end', result: 'blocked' },
      done: { kind: 'end', result: 'completed' },
    },
  };
}

const r2 = pinDefinition(feature(2));
const atGate: MigrationPosition = { current_node: 'prd_gate', is_paused: true, is_blocked: false, ended: null, return_to: null, resume_at: null };

describe('migration compatibility analysis', () => {
  it('is eligible when the node the ticket waits at is the same in the new revision', () => {
    const r3 = pinDefinition({ ...feature(3), description: 'only the spec station changed' });
    r3.body.nodes.generate_spec = { kind: 'station', station: 'generate_spec', on: { generated: 'escalate_blocked' } };
    expect(analyzeMigration(r2, r3, atGate, {})).toEqual({ eligible: true, incompatibilities: [], target_node: 'prd_gate', renames: {} });
  });

  it('names a changed edge at the current node, and accepts it with an explicit mapping', () => {
    const r3 = pinDefinition(feature(3, { approvedTo: 'done' }));
    const refused = analyzeMigration(r2, r3, atGate, {});
    expect(refused).toEqual({
      eligible: false, target_node: null, renames: {},
      incompatibilities: ['the ticket stands at prd_gate, which changed in feature r3 (on.approved: generate_spec → done): confirm where it stands with --map prd_gate=<node of r3>'],
    });
    expect(analyzeMigration(r2, r3, atGate, { prd_gate: 'prd_gate' })).toEqual({ eligible: true, incompatibilities: [], target_node: 'prd_gate', renames: {} });
  });

  it('needs a mapping for a node the new revision does not have, and renames it with one', () => {
    const r3 = pinDefinition(feature(3, { gateName: 'prd_approval' }));
    expect(analyzeMigration(r2, r3, atGate, {}).incompatibilities).toEqual(['the ticket stands at prd_gate, which feature r3 does not have: map it with --map prd_gate=<node of r3>']);
    expect(analyzeMigration(r2, r3, atGate, { prd_gate: 'prd_approval' })).toEqual({ eligible: true, incompatibilities: [], target_node: 'prd_approval', renames: { prd_gate: 'prd_approval' } });
  });

  it('refuses mappings to another kind of node, another gate kind or another stage label, and mappings naming unknown nodes', () => {
    const r3 = pinDefinition(feature(3, { gateKind: 'draft_approval', label: 'service:spec-pending' }));
    expect(analyzeMigration(r2, r3, atGate, { prd_gate: 'generate_spec' }).incompatibilities).toEqual(['the ticket stands at prd_gate, mapped to generate_spec: a gate cannot become a station']);
    expect(analyzeMigration(r2, r3, atGate, { prd_gate: 'prd_gate' }).incompatibilities).toEqual(['the ticket stands at prd_gate, mapped to prd_gate: a artifact_approval gate cannot become a draft_approval gate']);
    const relabelled = pinDefinition(feature(3, { label: 'service:spec-pending' }));
    expect(analyzeMigration(r2, relabelled, atGate, { prd_gate: 'prd_gate' }).incompatibilities).toEqual(['the ticket stands at prd_gate, mapped to prd_gate: the gate\'s label service:prd-pending would become service:spec-pending']);
    expect(analyzeMigration(r2, pinDefinition(feature(3)), atGate, { nowhere: 'prd_gate', prd_gate: 'elsewhere' }).incompatibilities).toEqual([
      '--map nowhere=prd_gate: nowhere is not a node of feature r2',
      '--map prd_gate=elsewhere: elsewhere is not a node of feature r3',
    ]);
  });

  it('refuses a ticket that is working, has completed, runs another definition or already runs the revision', () => {
    const r3 = pinDefinition(feature(3));
    expect(analyzeMigration(r2, r3, { ...atGate, current_node: 'generate_spec', is_paused: false }, {}).incompatibilities[0]).toBe('the ticket is working at generate_spec; migrate while it waits at a gate or is blocked');
    expect(analyzeMigration(r2, r3, { ...atGate, current_node: 'done', ended: 'completed' }, {}).incompatibilities).toEqual(['the ticket completed at done; there is nothing to migrate']);
    expect(analyzeMigration(r2, pinDefinition({ ...feature(3), name: 'bug' }), atGate, {}).incompatibilities).toEqual(['bug r3 is not a revision of feature, the definition this ticket runs']);
    expect(analyzeMigration(r2, r2, atGate, {}).incompatibilities[0]).toMatch(/^the ticket already runs feature r2 \(digest [0-9a-f]{12}…\)$/);
  });

  it('checks where a blocked detour returns and where service:retry resumes after an escalation', () => {
    const r3 = pinDefinition(feature(3, { gateName: 'prd_approval' }));
    const blockedAnswering: MigrationPosition = { current_node: 'answer_question', is_paused: false, is_blocked: true, ended: null, return_to: 'prd_gate', resume_at: null };
    expect(analyzeMigration(r2, r3, blockedAnswering, {}).incompatibilities).toEqual(['the ticket returns to prd_gate, which feature r3 does not have: map it with --map prd_gate=<node of r3>']);
    expect(analyzeMigration(r2, r3, blockedAnswering, { prd_gate: 'prd_approval' })).toMatchObject({ eligible: true, target_node: 'answer_question', renames: { prd_gate: 'prd_approval' } });
    const escalated: MigrationPosition = { current_node: 'escalate_blocked', is_paused: false, is_blocked: true, ended: null, return_to: 'prd_gate', resume_at: 'generate_prd' };
    const r4 = pinDefinition(feature(4));
    (r4.body.nodes.generate_prd as { retry_bound?: number }).retry_bound = 5;
    expect(analyzeMigration(r2, r4, escalated, {}).incompatibilities).toEqual(['service:retry resumes at generate_prd, which changed in feature r4 (retry_bound: 3 → 5): confirm where it stands with --map generate_prd=<node of r4>']);
  });

  it('counts a node unchanged whose accepts name by id the triggers the pinned revision names by legacy label', () => {
    // r2 was pinned with the triggers' prose (as every body was before trigger ids); r3 writes the same triggers by id.
    const r3 = pinDefinition(feature(3));
    (r3.body.nodes.prd_gate as { accepts: string[] }).accepts = ['prd_approved', 'question'];
    expect(analyzeMigration(r2, r3, atGate, {})).toEqual({ eligible: true, incompatibilities: [], target_node: 'prd_gate', renames: {} });
    // And back: a body by ids, a successor by labels.
    expect(analyzeMigration(r3, pinDefinition(feature(4)), atGate, {})).toEqual({ eligible: true, incompatibilities: [], target_node: 'prd_gate', renames: {} });
    // Another trigger is still a change, named for people by its label whichever spelling either body uses.
    const r5 = pinDefinition(feature(5));
    (r5.body.nodes.prd_gate as { accepts: string[] }).accepts = ['prd_approved', 'feedback'];
    expect(analyzeMigration(r3, r5, atGate, {}).incompatibilities).toEqual([
      'the ticket stands at prd_gate, which changed in feature r5 (accepts: ["service:prd-approved","a question (?)"] → ["service:prd-approved","feedback (!)"]): confirm where it stands with --map prd_gate=<node of r5>',
    ]);
  });

  it('describes every changed field of a node', () => {
    expect(describeNodeChange(feature(2).nodes.prd_gate!, feature(3, { approvedTo: 'done', label: 'service:x-pending', waiting: 'the PRD, again' }).nodes.prd_gate!)).toEqual([
      'on.approved: generate_spec → done', 'pending_label: "service:prd-pending" → "service:x-pending"', 'waiting_for: "approval of the PRD" → "the PRD, again"',
    ]);
  });
});

describe('applying a migration', () => {
  function stateAtGate(): TicketState {
    const state: TicketState = { ...initialTicketState({ ticket_key: 'RT-1', project_key: 'RT', issue_type: 'Story', workflow_kind: 'feature' }, 'run-1', 'then'), definition: r2, runtime: initialRuntime('then') };
    state.checkpoint.current_node = 'prd_gate';
    state.checkpoint.is_paused = true;
    state.status = 'waiting';
    state.waiting = { code: 'gate', message: 'approval of the PRD (r2)', since: 'then', recovery: null };
    state.runtime!.visits = { generate_prd: 1, prd_gate: 2 };
    state.runtime!.bound_counts = { generate_prd: 1 };
    return state;
  }

  it('records a dry run without touching the run, and swaps definition, position and counts when applied', () => {
    const r3 = pinDefinition(feature(3, { gateName: 'prd_approval', approvedTo: 'done', waiting: 'approval of the PRD (r3)' }));
    const state = stateAtGate();
    const dry = decideMigration(state, { to: r3, mapping: { prd_gate: 'prd_approval' }, apply: false, requested_by: 'op' }, 'now');
    expect(dry.decision).toMatchObject({ eligible: true, dry_run: true, applied: false, from: { revision: 2 }, to: { revision: 3 }, current_node: 'prd_gate', target_node: 'prd_approval' });
    expect(state.definition).toBe(r2);

    const applied = decideMigration(state, { to: r3, mapping: { prd_gate: 'prd_approval' }, apply: true, requested_by: 'op' }, 'now');
    expect(applied.decision.applied).toBe(true);
    migrate(state, r3, applied.analysis);
    expect(state.definition).toBe(r3);
    expect(state.checkpoint).toMatchObject({ current_node: 'prd_approval', is_paused: true });
    expect(state.runtime!.visits).toEqual({ generate_prd: 1, prd_approval: 2 });
    expect(state.waiting).toMatchObject({ message: 'approval of the PRD (r3)', recovery: 'commands accepted here: service:prd-approved, a question (?)' });
  });

  it('tells people what the gate accepts by label when the new revision names its triggers by id', () => {
    const r3 = pinDefinition(feature(3, { waiting: 'approval of the PRD (r3)' }));
    (r3.body.nodes.prd_gate as { accepts: string[] }).accepts = ['prd_approved', 'question'];
    const state = stateAtGate();
    // Its waiting line changed too, so the operator confirms the gate.
    const applied = decideMigration(state, { to: r3, mapping: { prd_gate: 'prd_gate' }, apply: true, requested_by: 'op' }, 'now');
    expect(applied.decision).toMatchObject({ eligible: true, applied: true });
    migrate(state, r3, applied.analysis);
    expect(state.waiting).toMatchObject({ message: 'approval of the PRD (r3)', recovery: 'commands accepted here: service:prd-approved, a question (?)' });
  });

  it('does not apply what is not eligible', () => {
    const state = stateAtGate();
    const { decision } = decideMigration(state, { to: pinDefinition(feature(3, { approvedTo: 'done' })), mapping: {}, apply: true, requested_by: 'op' }, 'now');
    expect(decision).toMatchObject({ eligible: false, applied: false, dry_run: false, target_node: null });
  });
});

describe('tickets of the first bug and takeover revisions', () => {
  // r1 of both graphs, as earlier builds pinned them: their tickets stopped at triage_check (station_not_available).
  const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../../fixtures/definitions', name), 'utf8')) as WorkflowDefinition;
  const blockedAtTriage: MigrationPosition = { current_node: 'triage_check', is_paused: false, is_blocked: true, ended: null, return_to: null, resume_at: 'triage_check' };

  it('may move to r2 from their block at triage_check, which both revisions have unchanged', () => {
    for (const [file, current] of [['bug-r1.json', BUG_DEFINITION], ['task-takeover-r1.json', TASK_TAKEOVER_DEFINITION]] as const) {
      const r1 = pinDefinition(fixture(file));
      expect(r1.revision).toBe(1);
      const r2 = pinDefinition(fixture(file.replace('-r1', '-r2')));
      expect(r2.revision).toBe(2);
      expect(analyzeMigration(r1, r2, blockedAtTriage, {}), file).toMatchObject({ eligible: true, incompatibilities: [], target_node: 'triage_check' });
      expect(analyzeMigration(r1, pinDefinition(current), blockedAtTriage, {}), file).toMatchObject({ eligible: true, incompatibilities: [], target_node: 'triage_check' });
    }
  });
});

describe('tickets of the revisions before the built-ins declared their node behaviour (feature r1, bug r2, task_takeover r2)', () => {
  // The built-in revisions after them state on the nodes what those did by name (proposal review, retriage, the
  // review retry target, CI fix counting, the rebase target, the repositories the router walks), so a ticket resting
  // anywhere moves to them without a mapping.
  const fixture = (name: string) => pinDefinition(JSON.parse(readFileSync(join(__dirname, '../../../fixtures/definitions', name), 'utf8')) as WorkflowDefinition);
  const rest = (node: string, spec: WorkflowDefinition['nodes'][string]): MigrationPosition => ({
    current_node: node, is_paused: spec.kind === 'gate', is_blocked: spec.kind !== 'gate', ended: null, return_to: null, resume_at: null,
  });

  it('takes a ticket at every gate and every station of the earlier revision without a mapping', () => {
    for (const [file, current] of [['feature-r1.json', FEATURE_DEFINITION], ['bug-r2.json', BUG_DEFINITION], ['task-takeover-r2.json', TASK_TAKEOVER_DEFINITION]] as const) {
      const before = fixture(file);
      expect(current.revision, file).toBe(before.revision + 1);
      for (const [node, spec] of Object.entries(before.body.nodes)) {
        if (spec.kind === 'end' || spec.kind === 'router') continue;
        expect(analyzeMigration(before, pinDefinition(current), rest(node, spec), {}), `${file} at ${node}`).toMatchObject({ eligible: true, incompatibilities: [] });
      }
    }
  });

  it('sees that the declaring revisions differ from their predecessors only in the declared fields and trigger ids', () => {
    for (const [file, current] of [['feature-r1.json', FEATURE_DEFINITION], ['bug-r2.json', BUG_DEFINITION], ['task-takeover-r2.json', TASK_TAKEOVER_DEFINITION]] as const) {
      const before = fixture(file).body;
      const declared = ['reviews_proposal', 'feedback_retriages', 'retry_to', 'counts_ci_fix_attempt', 'resets_ci_fix_attempts_on', 'takes_rebase_target', 'repositories_from'];
      // Besides the declared fields, the later revisions name their triggers by id where the earlier named them by label.
      const comparable = (spec: WorkflowDefinition['nodes'][string]) => ({
        ...Object.fromEntries(Object.entries(spec).filter(([field]) => !declared.includes(field))),
        ...(spec.kind !== 'end' && spec.accepts !== undefined ? { accepts: nodeAccepts(spec) } : {}),
      });
      for (const node of Object.keys(current.nodes)) expect(comparable(current.nodes[node]!), `${file}: ${node}`).toEqual(comparable(before.nodes[node]!));
      expect(Object.keys(current.nodes).sort(), file).toEqual(Object.keys(before.nodes).sort());
    }
  });
});

describe('revisions that declare what a node did by its name', () => {
  // Bodies pinned before the gate and station fields existed get the behaviour by node name (node-traits.ts); a
  // revision stating the same behaviour is no change, one stating another behaviour is.
  const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
  const atTriage: MigrationPosition = { current_node: 'triage_gate', is_paused: true, is_blocked: false, ended: null, return_to: null, resume_at: null };

  it('takes a ticket at a gate whose new revision declares its behaviour without a mapping', () => {
    const declared = clone(BUG_DEFINITION);
    declared.revision = BUG_DEFINITION.revision + 1;
    Object.assign(declared.nodes.triage_gate!, { feedback_retriages: true });
    Object.assign(declared.nodes.review_response_gate!, { retry_to: 'human_review_gate' });
    Object.assign(declared.nodes.attempt_ci_fix!, { counts_ci_fix_attempt: true });
    for (const at of [atTriage, { ...atTriage, current_node: 'review_response_gate' }, { ...atTriage, current_node: 'attempt_ci_fix', is_paused: false, is_blocked: true }]) {
      expect(analyzeMigration(pinDefinition(BUG_DEFINITION), pinDefinition(declared), at, {}), at.current_node).toMatchObject({ eligible: true, incompatibilities: [] });
    }
  });

  it('names a declared behaviour that differs from what the node did', () => {
    const changed = clone(BUG_DEFINITION);
    changed.revision = BUG_DEFINITION.revision + 1;
    Object.assign(changed.nodes.triage_gate!, { feedback_retriages: false });
    expect(analyzeMigration(pinDefinition(BUG_DEFINITION), pinDefinition(changed), atTriage, {}).incompatibilities).toEqual([
      expect.stringContaining('(feedback_retriages: true → false)'),
    ]);
  });
});
