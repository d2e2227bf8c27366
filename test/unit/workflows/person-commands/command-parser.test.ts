import { describe, expect, it } from 'vitest';
import { MEANING, parseCommand, type Command, type CommandDecision, type CommandPosition } from '../../../../workflows/person-commands/command-parser';
import type { Observation, ObservationFacts, SourceSystem, WorkflowKind } from '../../../../workflows/ledger/observation';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { acceptTable } from '../../../../workflows/built-in-definitions/definition-types';
import { gateTable } from '../../../../workflows/runtime/node-traits';

// ---- builders -------------------------------------------------------------------------------------------------

function observation(event: Observation['event'], facts: ObservationFacts, source_system: SourceSystem = 'tracker'): Observation {
  return {
    delivery_identity: 'identity', source: 'webhook', source_system, event, resource: { kind: 'x', id: '1' }, revision: null,
    fingerprint: 'fingerprint', ticket_key: 'PROJ-1', facts, observed_at: null, received_at: '2026-11-23T08:00:00.000Z',
  };
}

/** The workflow kind a node belongs to, so a position is one the graphs can reach. */
const KIND_OF: Record<string, WorkflowKind> = { triage_gate: 'bug', rca_option_gate: 'bug', task_plan_approval_gate: 'task_takeover' };

/** A position in the built-in definition of the node's kind: what it accepts comes from that definition. */
function at(current_node: string, extra: Partial<CommandPosition> = {}): CommandPosition {
  const workflow_kind = extra.workflow_kind ?? KIND_OF[current_node] ?? 'feature';
  return {
    workflow_kind, current_node, accepts: acceptTable(BUILT_IN_DEFINITIONS[workflow_kind]), gates: gateTable(BUILT_IN_DEFINITIONS[workflow_kind]), is_blocked: false, is_paused: true, has_pull_request: true,
    draft_item_ids: [1, 2, 3, 4], rca_option_count: 3, proposal_review: true, ...extra,
  };
}

const ticketComment = (body: string, comment: Partial<ObservationFacts['comment']> = {}) =>
  observation('issue_commented', { comment: { id: 'c1', body, created: '2026-11-23T08:00:00.000Z', updated: '2026-11-23T08:00:00.000Z', ...comment } });
const PR = { number: 7, head_ref: 'service/proj-1' };
const prComment = (body: string, action = 'created') =>
  observation('issue_comment', { action, repository: 'acme/api', pull_request: PR, comment: { id: 'p1', body } }, 'scmhost');
const gitlabNote = (body: string) =>
  observation('note', { action: 'created', repository: 'acme/web', pull_request: { number: 3, head_ref: 'service/proj-1' }, comment: { id: 'n1', body } }, 'gitlab');
const labels = (added: string[], removed: string[] = []) => observation('issue_updated', { label_change: { added, removed } });
const review = (state: 'approved' | 'changes_requested' | 'commented', head_ref = PR.head_ref, action = 'submitted') =>
  observation('pull_request_review', {
    action, repository: 'acme/api', pull_request: { number: 7, head_ref }, review: { id: 'r1', state, body: 'please rename', author: 'alice' },
  }, 'scmhost');
const checkRun = (status = 'completed', conclusion: string | null = 'failure', head_ref = PR.head_ref) =>
  observation('check_run', {
    action: 'completed', repository: 'acme/api', pull_request: { number: 7, head_ref, head_sha: 'abc' },
    check_run: { id: 'k1', name: 'CI / Lint', status, conclusion, head_sha: 'abc' },
  }, 'scmhost');
const pipeline = (status: string) =>
  observation('pipeline', { action: 'completed', repository: 'acme/web', pipeline: { id: '55', status, sha: 'def' } }, 'gitlab');
const pullRequest = (action: string, merged: boolean, head_ref = PR.head_ref) =>
  observation('pull_request', { action, repository: 'acme/api', pull_request: { number: 7, head_ref, head_sha: 'abc', merged, state: action === 'closed' ? 'closed' : 'open' } }, 'scmhost');
const mergeRequest = (action: string, merged: boolean) =>
  observation('merge_request', { action, repository: 'acme/web', pull_request: { number: 3, head_ref: 'service/proj-1', head_sha: 'def', merged } }, 'gitlab');

const TARGET = { repository: 'acme/api', number: 7, head_ref: 'service/proj-1' };

// ---- the nodes of the built-in graphs (REFERENCE "Workflow graphs") -------------------------------------------

const NODES = [
  'intake', 'generate_prd', 'prd_approval_gate', 'generate_spec', 'spec_approval_gate', 'decompose_epics', 'plan_approval_gate',
  'provision_epics', 'generate_tasks', 'task_approval_gate', 'provision_tasks', 'task_router', 'setup_workspace', 'implement_task',
  'local_review', 'update_documentation', 'create_pr', 'teardown_workspace', 'human_review_gate', 'ci_evaluator', 'wait_for_ci_gate',
  'attempt_ci_fix', 'implement_review', 'review_response_gate', 'complete_tasks', 'aggregate_epic_status', 'aggregate_feature_status',
  'escalate_blocked', 'answer_question', 'triage_check', 'triage_gate', 'analyze_bug', 'reflect_rca', 'rca_option_gate', 'plan_bug_fix',
  'decompose_plan', 'implement_bug_fix', 'post_merge_summary', 'generate_plan', 'task_plan_approval_gate', 'execute_task_changes',
  'run_qualitative_review', 'complete_task_takeover', 'code_review', 'rebase',
];

const commandOf = (decision: CommandDecision): Command | undefined => (decision.kind === 'command' ? decision.command : undefined);

describe('the built-in definitions', () => {
  it('name only nodes of the REFERENCE graphs and only triggers the parser knows', () => {
    const definitions = Object.values(BUILT_IN_DEFINITIONS);
    const nodes = definitions.flatMap((definition) => Object.keys(definition.nodes));
    expect(nodes.filter((node) => !NODES.includes(node) && !['done', 'pull_request_closed'].includes(node))).toEqual([]);
    const triggers = definitions.flatMap((definition) => Object.values(acceptTable(definition)).flat());
    expect(triggers.filter((trigger) => !(trigger in MEANING))).toEqual([]);
  });
});

// ---- every trigger at every node: a command exactly where the table says ---------------------------------------

const GATES_WITH_ARTIFACTS = ['prd_approval_gate', 'spec_approval_gate', 'plan_approval_gate', 'task_approval_gate', 'task_plan_approval_gate', 'rca_option_gate', 'triage_gate'];
const CI_AND_REVIEW = ['human_review_gate', 'ci_evaluator', 'wait_for_ci_gate', 'attempt_ci_fix'];
const OPEN_PR = [...CI_AND_REVIEW, 'implement_review', 'review_response_gate', 'code_review', 'rebase'];

describe.each<[string, Observation, string[]]>([
  ['label service:prd-approved', labels(['service:prd-approved']), ['prd_approval_gate']],
  ['label service:spec-approved', labels(['service:spec-approved']), ['spec_approval_gate']],
  ['label service:plan-approved', labels(['service:plan-approved']), ['plan_approval_gate', 'task_plan_approval_gate']],
  ['label service:task-approved', labels(['service:task-approved']), ['task_approval_gate']],
  ['label service:yolo', labels(['service:yolo']), NODES],
  ['a ticket edit', observation('issue_updated', { summary: 'now with steps' }), ['triage_gate']],
  ['? question', ticketComment('? why'), GATES_WITH_ARTIFACTS],
  ['! feedback', ticketComment('! shorter'), GATES_WITH_ARTIFACTS],
  ['>option 1', ticketComment('>option 1'), ['rca_option_gate']],
  ['/service approve', ticketComment('/service approve'), ['plan_approval_gate', 'task_approval_gate', 'task_plan_approval_gate']],
  ['/service remove 2', ticketComment('/service remove 2'), ['plan_approval_gate', 'task_approval_gate']],
  ['/service exclude 2', ticketComment('/service exclude 2'), ['plan_approval_gate', 'task_approval_gate']],
  ['/service update 2 repo=x', ticketComment('/service update 2 repo=x'), ['plan_approval_gate', 'task_approval_gate']],
  ['/service add summary=x', ticketComment('/service add summary=x'), ['plan_approval_gate', 'task_approval_gate']],
  ['/service skip-gate lint', prComment('/service skip-gate lint'), CI_AND_REVIEW],
  ['/service unskip-gate lint', prComment('/service unskip-gate lint'), CI_AND_REVIEW],
  ['/service rebase', prComment('/service rebase'), NODES],
  ['approving review', review('approved'), ['human_review_gate', 'wait_for_ci_gate', 'review_response_gate']],
  ['changes_requested review', review('changes_requested'), ['human_review_gate', 'wait_for_ci_gate', 'review_response_gate']],
  ['check_run completed', checkRun(), CI_AND_REVIEW],
  ['pipeline failed', pipeline('failed'), CI_AND_REVIEW],
  ['pull request synchronize', pullRequest('synchronize', false), CI_AND_REVIEW],
  ['pull request merged', pullRequest('closed', true), OPEN_PR],
  ['pull request closed', pullRequest('closed', false), OPEN_PR],
  ['proposal merged', pullRequest('closed', true, 'service/prd/proj-1'), ['prd_approval_gate']],
])('%s', (_name, trigger, meaningfulAt) => {
  it.each(NODES)('at %s', (node) => {
    const decision = parseCommand(trigger, at(node, { is_paused: node.endsWith('_gate') }));
    if (meaningfulAt.includes(node)) {
      expect(decision.kind).toBe('command');
    } else {
      expect(decision.kind).toBe('ignore');
      if (decision.kind === 'ignore') expect(decision.reason).toMatch(/not meaningful|not a command/);
    }
  });
});

// ---- tracker labels ---------------------------------------------------------------------------------------------

describe('service:retry', () => {
  it.each<[string, Partial<CommandPosition>, Command | string]>([
    ['implement_task', { is_blocked: true, is_paused: false }, { type: 'retry', mode: 'resume' }],
    ['prd_approval_gate', { is_blocked: true }, { type: 'retry', mode: 'resume' }],
    ['review_response_gate', { is_blocked: true }, { type: 'retry', mode: 'resume' }],
    ['review_response_gate', {}, { type: 'retry', mode: 'review_response' }],
    ['prd_approval_gate', {}, { type: 'retry', mode: 'regenerate' }],
    ['task_plan_approval_gate', {}, { type: 'retry', mode: 'regenerate' }],
    ['rca_option_gate', {}, { type: 'retry', mode: 'regenerate' }],
    ['plan_approval_gate', { is_paused: false }, 'service:retry: nothing to retry at plan_approval_gate (not blocked, not at review_response_gate, not paused at an approval gate)'],
    ['implement_task', { is_paused: false }, 'service:retry: nothing to retry at implement_task (not blocked, not at review_response_gate, not paused at an approval gate)'],
    ['triage_gate', {}, 'service:retry: nothing to retry at triage_gate (not blocked, not at review_response_gate, not paused at an approval gate)'],
    ['human_review_gate', {}, 'service:retry: nothing to retry at human_review_gate (not blocked, not at review_response_gate, not paused at an approval gate)'],
  ])('at %s %j', (node, extra, expected) => {
    const decision = parseCommand(labels(['service:retry']), at(node, extra));
    expect(decision).toEqual(typeof expected === 'string' ? { kind: 'ignore', reason: expected } : { kind: 'command', command: expected });
  });
});

describe('label changes', () => {
  it.each<[string, Observation, CommandPosition, CommandDecision]>([
    ['an approval label approves its gate', labels(['service:prd-approved']), at('prd_approval_gate'),
      { kind: 'command', command: { type: 'approve', gate: 'prd_approval_gate', via: 'label' } }],
    ['service:plan-approved approves the takeover plan', labels(['service:plan-approved']), at('task_plan_approval_gate'),
      { kind: 'command', command: { type: 'approve', gate: 'task_plan_approval_gate', via: 'label' } }],
    ['an approval label elsewhere is recorded and changes nothing', labels(['service:prd-approved']), at('spec_approval_gate'),
      { kind: 'ignore', reason: 'service:prd-approved is not meaningful at spec_approval_gate (only at prd_approval_gate)' }],
    ['an approval label while blocked waits for service:retry', labels(['service:spec-approved']), at('spec_approval_gate', { is_blocked: true }),
      { kind: 'ignore', reason: 'service:spec-approved is not meaningful while the workflow is blocked at spec_approval_gate; add service:retry to resume first' }],
    ['removing an approval label is not a command', labels([], ['service:prd-approved']), at('prd_approval_gate'),
      { kind: 'ignore', reason: 'label change -service:prd-approved is not a command' }],
    ['service:yolo added turns autonomous mode on', labels(['service:yolo']), at('generate_spec'),
      { kind: 'command', command: { type: 'yolo', enabled: true } }],
    ['service:yolo removed turns it off', labels([], ['service:yolo']), at('generate_spec', { yolo: true }),
      { kind: 'command', command: { type: 'yolo', enabled: false } }],
    ['service:yolo works while blocked', labels(['service:yolo']), at('implement_task', { is_blocked: true }),
      { kind: 'command', command: { type: 'yolo', enabled: true } }],
    ['service:yolo already on', labels(['service:yolo']), at('generate_spec', { yolo: true }),
      { kind: 'ignore', reason: 'service:yolo: autonomous mode is already on' }],
    ['the service\'s own stage labels are not commands', labels(['service:prd-pending'], ['service:blocked']), at('prd_approval_gate'),
      { kind: 'ignore', reason: 'label change +service:prd-pending -service:blocked is not a command' }],
    ['other labels are not commands', labels(['frontend']), at('prd_approval_gate'),
      { kind: 'ignore', reason: 'label change +frontend: a ticket update is not meaningful at prd_approval_gate (nowhere in the feature workflow)' }],
    ['retry wins over an approval label added with it', labels(['service:prd-approved', 'service:retry']), at('prd_approval_gate', { is_blocked: true }),
      { kind: 'command', command: { type: 'retry', mode: 'resume' } }],
    ['a meaningful approval wins over yolo', labels(['service:task-approved', 'service:yolo']), at('task_approval_gate'),
      { kind: 'command', command: { type: 'approve', gate: 'task_approval_gate', via: 'label' } }],
    ['yolo still counts when the approval label is not meaningful', labels(['service:prd-approved', 'service:yolo']), at('generate_spec'),
      { kind: 'command', command: { type: 'yolo', enabled: true } }],
    ['every ignored label is named', labels(['service:prd-approved', 'service:retry']), at('generate_spec', { is_paused: false }),
      { kind: 'ignore', reason: 'service:retry: nothing to retry at generate_spec (not blocked, not at review_response_gate, not paused at an approval gate); service:prd-approved is not meaningful at generate_spec (only at prd_approval_gate)' }],
  ])('%s', (_name, trigger, position, expected) => {
    expect(parseCommand(trigger, position)).toEqual(expected);
  });
});

describe('ticket updates at triage_gate', () => {
  it.each<[string, Observation, CommandDecision]>([
    ['a field edit triages again', observation('issue_updated', { summary: 'steps added' }), { kind: 'command', command: { type: 'retriage', trigger: 'ticket_update' } }],
    ['a label a person added triages again', labels(['repo:api']), { kind: 'command', command: { type: 'retriage', trigger: 'ticket_update' } }],
    ['the service\'s own label does not (no loop)', labels(['service:triage-pending']), { kind: 'ignore', reason: 'label change +service:triage-pending is not a command' }],
    ['nor removing service:retry', labels([], ['service:retry']), { kind: 'ignore', reason: 'label change -service:retry is not a command' }],
  ])('%s', (_name, trigger, expected) => {
    expect(parseCommand(trigger, at('triage_gate'))).toEqual(expected);
  });
  it('not while blocked', () => {
    expect(parseCommand(observation('issue_updated', {}), at('triage_gate', { is_blocked: true }))).toEqual({
      kind: 'ignore', reason: 'ticket update without label changes: a ticket update is not meaningful while the workflow is blocked at triage_gate; add service:retry to resume first',
    });
  });
  it('not elsewhere', () => {
    expect(parseCommand(observation('issue_updated', {}), at('analyze_bug'))).toEqual({
      kind: 'ignore', reason: 'ticket update without label changes: a ticket update is not meaningful at analyze_bug (nowhere in the feature workflow)',
    });
  });
});

// ---- tracker comments -------------------------------------------------------------------------------------------

describe('questions and feedback', () => {
  it.each<[string, string, Command]>([
    ['? which columns', 'prd_approval_gate', { type: 'question', text: 'which columns' }],
    ['   ?why two epics', 'plan_approval_gate', { type: 'question', text: 'why two epics' }],
    ['\n\t@service ask why CSV?', 'spec_approval_gate', { type: 'question', text: 'why CSV?' }],
    ['@SERVICE Ask: is it safe', 'rca_option_gate', { type: 'question', text: 'is it safe' }],
    ['? is >option 2 risky', 'rca_option_gate', { type: 'question', text: 'is >option 2 risky' }],
    ['! add a date filter', 'prd_approval_gate', { type: 'feedback', text: 'add a date filter', via: 'comment' }],
    ['  !', 'spec_approval_gate', { type: 'feedback', text: '', via: 'comment' }],
    ['! 2 epics are too many', 'plan_approval_gate', { type: 'feedback', text: '2 epics are too many', via: 'comment' }],
    ['! 2: split it', 'plan_approval_gate', { type: 'feedback', text: 'split it', item_id: 2, via: 'comment' }],
    ['!4 :merge with 3', 'task_approval_gate', { type: 'feedback', text: 'merge with 3', item_id: 4, via: 'comment' }],
    ['! 2: smaller steps', 'task_plan_approval_gate', { type: 'feedback', text: '2: smaller steps', via: 'comment' }],
    ['! >option 2 but with tests', 'rca_option_gate', { type: 'feedback', text: '>option 2 but with tests', via: 'comment' }],
    ['! version 2.3 on Linux', 'triage_gate', { type: 'retriage', trigger: 'feedback', text: 'version 2.3 on Linux' }],
  ])('%j at %s', (body, node, expected) => {
    expect(parseCommand(ticketComment(body), at(node))).toEqual({ kind: 'command', command: expected });
  });

  it('item feedback in a bug plan is feedback on the whole plan (no draft items there)', () => {
    expect(commandOf(parseCommand(ticketComment('! 1: fix the parser too'), at('plan_approval_gate', { workflow_kind: 'bug', draft_item_ids: undefined }))))
      .toEqual({ type: 'feedback', text: '1: fix the parser too', via: 'comment' });
  });

  it.each<[string, string, Partial<CommandPosition>, CommandDecision]>([
    ['?', 'prd_approval_gate', {}, { kind: 'invalid', reason: 'invalid command: there is no question after it', blocks: false,
      reply: '❌ `?`: there is no question after it. Write the question in the same comment, e.g. `? why two epics`.' }],
    ['! 9: drop it', 'plan_approval_gate', {}, { kind: 'invalid', reason: 'invalid command: there is no draft item 9 (items: 1-4)', blocks: false,
      reply: '❌ `! 9: drop it`: there is no draft item 9 (items: 1-4). Use the numbers of the latest draft comment. Without a number, `!` revises the whole draft.' }],
    ['? why', 'implement_task', {}, { kind: 'ignore', reason: 'a question (?) is not meaningful at implement_task (only at prd_approval_gate, spec_approval_gate, plan_approval_gate, task_approval_gate)' }],
    ['! shorter', 'prd_approval_gate', { is_blocked: true }, { kind: 'ignore', reason: 'feedback (!) is not meaningful while the workflow is blocked at prd_approval_gate; add service:retry to resume first' }],
    ['![screenshot](https://x/y.png) it crashes', 'prd_approval_gate', {}, { kind: 'ignore', reason: 'conversation, not a command' }],
    ['@service asks nothing', 'prd_approval_gate', {}, { kind: 'ignore', reason: 'conversation, not a command' }],
    ['Looks good, thanks! ?', 'prd_approval_gate', {}, { kind: 'ignore', reason: 'conversation, not a command' }],
  ])('%j at %s', (body, node, extra, expected) => {
    expect(parseCommand(ticketComment(body), at(node, extra))).toEqual(expected);
  });
});

describe('>option N at rca_option_gate', () => {
  it.each<[string, Partial<CommandPosition>, CommandDecision]>([
    ['>option 2', {}, { kind: 'command', command: { type: 'select_option', option: 2 } }],
    ['I pick >OPTION 3 please', {}, { kind: 'command', command: { type: 'select_option', option: 3 } }],
    ['go with >Option1', {}, { kind: 'command', command: { type: 'select_option', option: 1 } }],
    ['&gt;option 2', {}, { kind: 'command', command: { type: 'select_option', option: 2 } }],
    ['>option 2, yes >option 2', {}, { kind: 'command', command: { type: 'select_option', option: 2 } }],
    ['>option 9 or >option 1', {}, { kind: 'command', command: { type: 'select_option', option: 1 } }],
    ['>option 0', {}, { kind: 'ignore', reason: '>option 0: out of range (the RCA offers options 1-3)' }],
    ['>option 4', {}, { kind: 'ignore', reason: '>option 4: out of range (the RCA offers options 1-3)' }],
    ['>option 1', { rca_option_count: undefined }, { kind: 'ignore', reason: '>option 1: out of range (the RCA offers no options)' }],
    ['>option 12', {}, { kind: 'ignore', reason: '>option 12: out of range (the RCA offers options 1-3)' }],
    ['> Option 1: rewrite the parser', {}, { kind: 'ignore', reason: 'conversation, not a command' }],
    ['>option two', {}, { kind: 'ignore', reason: 'conversation, not a command' }],
    ['>option 1 or >option 2', {}, { kind: 'invalid', reason: 'invalid command: it picks options 1 and 2', blocks: false,
      reply: '❌ `>option 1 or >option 2`: it picks options 1 and 2. Pick one option per comment: one `>option N`, N its number.' }],
    ['>option 1', { is_blocked: true }, { kind: 'ignore', reason: '>option is not meaningful while the workflow is blocked at rca_option_gate; add service:retry to resume first' }],
  ])('%j %j', (body, extra, expected) => {
    expect(parseCommand(ticketComment(body), at('rca_option_gate', extra))).toEqual(expected);
  });
  it('is ignored away from rca_option_gate', () => {
    expect(parseCommand(ticketComment('>option 1'), at('plan_approval_gate'))).toEqual({
      kind: 'ignore', reason: '>option is not meaningful at plan_approval_gate (nowhere in the feature workflow)',
    });
  });
});

describe('/service draft commands on the ticket', () => {
  it.each<[string, string, Command]>([
    ['/service approve', 'plan_approval_gate', { type: 'approve', gate: 'plan_approval_gate', via: 'comment' }],
    ['  /SERVICE Approve', 'task_approval_gate', { type: 'approve', gate: 'task_approval_gate', via: 'comment' }],
    ['/service approve\nLooks great, thanks!', 'task_plan_approval_gate', { type: 'approve', gate: 'task_plan_approval_gate', via: 'comment' }],
    ['/service approve', 'plan_approval_gate', { type: 'approve', gate: 'plan_approval_gate', via: 'comment' }],
    ['/service remove 2', 'plan_approval_gate', { type: 'draft_remove', item_id: 2 }],
    ['/service REMOVE 4\nit duplicates 3', 'task_approval_gate', { type: 'draft_remove', item_id: 4 }],
    ['/service exclude 3', 'task_approval_gate', { type: 'draft_exclude', item_id: 3 }],
    [`/service update 1 summary="Export as CSV" repo=acme/api description='two words'`, 'plan_approval_gate',
      { type: 'draft_update', item_id: 1, fields: { summary: 'Export as CSV', repo: 'acme/api', description: 'two words' } }],
    ['/service Update 2 Description="first line\nsecond line"', 'task_approval_gate',
      { type: 'draft_update', item_id: 2, fields: { description: 'first line\nsecond line' } }],
    ['/service update 3 repo=""', 'plan_approval_gate', { type: 'draft_update', item_id: 3, fields: { repo: '' } }],
    ['/service add summary=New', 'task_approval_gate', { type: 'draft_add', fields: { summary: 'New' } }],
    [`/service add summary='Audit log' description="who did what" repo=acme/web`, 'plan_approval_gate',
      { type: 'draft_add', fields: { summary: 'Audit log', description: 'who did what', repo: 'acme/web' } }],
  ])('%j at %s', (body, node, expected) => {
    expect(parseCommand(ticketComment(body), at(node))).toEqual({ kind: 'command', command: expected });
  });

  const reply = (echoed: string, rest: string) => `❌ \`${echoed}\`: ${rest}`;
  it.each<[string, string, string]>([
    ['/service remove 9', 'there is no draft item 9 (items: 1-4)', reply('/service remove 9', 'there is no draft item 9 (items: 1-4). Use the numbers of the latest draft comment.')],
    ['/service remove', 'the draft item number is missing', reply('/service remove', 'the draft item number is missing. Example: `/service remove 2`.')],
    ['/service exclude two', '"two" is not a draft item number', reply('/service exclude two', '"two" is not a draft item number. Items are numbered from 1 (items: 1-4).')],
    ['/service exclude -1', '"-1" is not a draft item number', reply('/service exclude -1', '"-1" is not a draft item number. Items are numbered from 1 (items: 1-4).')],
    ['/service remove 1 2', '`/service remove <n>` takes one item number', reply('/service remove 1 2', '`/service remove <n>` takes one item number. Example: `/service remove 2`; one comment per item.')],
    ['/service update 5 summary=x', 'there is no draft item 5 (items: 1-4)', reply('/service update 5 summary=x', 'there is no draft item 5 (items: 1-4). Use the numbers of the latest draft comment.')],
    ['/service update 2', 'no fields given', reply('/service update 2', 'no fields given. Fields: summary, description, repo. Example: summary="Export as CSV".')],
    ['/service update 2 title=x', 'unknown field "title"', reply('/service update 2 title=x', 'unknown field "title". Fields: summary, description, repo.')],
    ['/service update 2 summary="open', 'the value of "summary" has no closing "', reply('/service update 2 summary="open', 'the value of "summary" has no closing ". Write key=value pairs; quote values with spaces: summary="Export as CSV".')],
    ['/service update 2 summary=Export as CSV', 'expected key=value at "as"', reply('/service update 2 summary=Export as CSV', 'expected key=value at "as". Write key=value pairs; quote values with spaces: summary="Export as CSV".')],
    ['/service add repo=acme/api', 'a new draft item needs a summary', reply('/service add repo=acme/api', 'a new draft item needs a summary. Example: `/service add summary="Export as CSV" repo=acme/api`.')],
    ['/service add', 'no fields given', reply('/service add', 'no fields given. Fields: summary, description, repo. Example: summary="Export as CSV".')],
    ['/service approve 2', '`/service approve` takes no arguments', reply('/service approve 2', '`/service approve` takes no arguments. It approves the whole draft; use `/service exclude <n>` first to leave an item out.')],
  ])('%j is invalid: %s', (body, problem, expectedReply) => {
    expect(parseCommand(ticketComment(body), at('plan_approval_gate'))).toEqual({ kind: 'invalid', reason: `invalid command: ${problem}`, reply: expectedReply, blocks: false });
  });

  it.each<[string, CommandPosition, string]>([
    ['/service remove 9', at('human_review_gate'), '/service remove is not meaningful at human_review_gate (only at plan_approval_gate, task_approval_gate)'],
    ['/service remove abc', at('generate_prd'), '/service remove is not meaningful at generate_prd (only at plan_approval_gate, task_approval_gate)'],
    ['/service approve', at('prd_approval_gate'), '/service approve is not meaningful at prd_approval_gate (only at plan_approval_gate, task_approval_gate)'],
    ['/service add summary=x', at('plan_approval_gate', { workflow_kind: 'bug' }), '/service add is not meaningful at plan_approval_gate (nowhere in the bug workflow)'],
    ['/service exclude 1', at('task_plan_approval_gate'), '/service exclude is not meaningful at task_plan_approval_gate (nowhere in the task_takeover workflow)'],
    ['/service approve', at('plan_approval_gate', { is_blocked: true }), '/service approve is not meaningful while the workflow is blocked at plan_approval_gate; add service:retry to resume first'],
    ['/service skip-gate lint', at('human_review_gate'), '/service skip-gate is a pull-request comment command; it means nothing on the ticket'],
  ])('%j is recorded and changes nothing', (body, position, reason) => {
    expect(parseCommand(ticketComment(body), position)).toEqual({ kind: 'ignore', reason });
  });

  it('an empty draft answers with what is there', () => {
    expect(parseCommand(ticketComment('/service remove 1'), at('task_approval_gate', { draft_item_ids: [] }))).toMatchObject({
      kind: 'invalid', reason: 'invalid command: there is no draft item 1 (the draft has no items)',
    });
  });
});

describe('unrecognized /service commands block', () => {
  it.each<[Observation, string, string, string]>([
    [ticketComment('/service frobnicate'), 'unknown command "frobnicate"', '/service frobnicate', ''],
    [ticketComment('  /Service APPROVED'), 'unknown command "APPROVED"', '/Service APPROVED', 'Did you mean `/service approve`? '],
    [ticketComment('/service aprove'), 'unknown command "aprove"', '/service aprove', 'Did you mean `/service approve`? '],
    [ticketComment('/service'), 'no command after /service', '/service', ''],
    [ticketComment('/service\napprove'), 'no command after /service', '/service', ''],
    [prComment('/service skipgate lint'), 'unknown command "skipgate"', '/service skipgate lint', 'Did you mean `/service skip-gate`? '],
    [prComment('/service rebsae'), 'unknown command "rebsae"', '/service rebsae', 'Did you mean `/service rebase`? '],
    [gitlabNote('/service merge'), 'unknown command "merge"', '/service merge', ''],
  ])('%#: %s', (trigger, problem, echoed, suggestion) => {
    // Unknown verbs block wherever the ticket stands, even where no command would be meaningful.
    for (const node of ['implement_task', 'plan_approval_gate', 'human_review_gate']) {
      expect(parseCommand(trigger, at(node))).toEqual({
        kind: 'invalid', reason: `invalid command: ${problem}`, blocks: true,
        reply: `❌ \`${echoed}\`: ${problem}. ${suggestion}Known commands: \`/service approve\`, \`/service remove <n>\`, \`/service exclude <n>\`, \`/service update <n> key=value ...\`, \`/service add key=value ...\`, \`/service skip-gate <check>\`, \`/service unskip-gate <check>\`, \`/service stop\`, \`/service rebase\`.`,
      });
    }
  });

  it('suggests stop only where the kill switch is on', () => {
    expect(parseCommand(ticketComment('/service stpo'), at('implement_task'))).toMatchObject({ kind: 'invalid', reply: expect.not.stringContaining('Did you mean') });
    expect(parseCommand(ticketComment('/service stpo'), at('implement_task', { kill_switch: true }))).toMatchObject({ kind: 'invalid', reply: expect.stringContaining('Did you mean `/service stop`?') });
  });

  it('echoes long and backticked input safely', () => {
    const decision = parseCommand(ticketComment(`/service ${'x'.repeat(300)}\`secret\``), at('implement_task'));
    expect(decision.kind).toBe('invalid');
    if (decision.kind !== 'invalid') return;
    expect(decision.reply.startsWith('❌ `/service xxx')).toBe(true);
    expect(decision.reply).toContain('unknown command "xxxxxxxx');
    expect(decision.reply).not.toContain('secret');
    expect(decision.reply.split('`').length % 2).toBe(1);
  });

  it.each(['/services approve', '/serviceapprove', 'please /service approve', 'see /service docs'])('%j is conversation', (body) => {
    expect(parseCommand(ticketComment(body), at('plan_approval_gate'))).toEqual({ kind: 'ignore', reason: 'conversation, not a command' });
  });
});

// ---- pull-request comments --------------------------------------------------------------------------------------

describe('pull-request comments', () => {
  it.each<[Observation, string, Partial<CommandPosition>, Command]>([
    [prComment('/service skip-gate lint'), 'ci_evaluator', {}, { type: 'skip_gate', check: 'lint', match: 'lint' }],
    [prComment('  /SERVICE Skip-Gate CI / Lint'), 'wait_for_ci_gate', {}, { type: 'skip_gate', check: 'CI / Lint', match: 'ci / lint' }],
    [prComment('/service skip-gate "build (ubuntu)"\nflaky since Monday'), 'human_review_gate', {}, { type: 'skip_gate', check: 'build (ubuntu)', match: 'build (ubuntu)' }],
    [prComment('/service unskip-gate Lint'), 'attempt_ci_fix', {}, { type: 'unskip_gate', check: 'Lint', match: 'lint' }],
    // Blocked after the CI fix limit: skipping the flaky check is what makes the retry worth it.
    [prComment('/service skip-gate e2e'), 'attempt_ci_fix', { is_blocked: true }, { type: 'skip_gate', check: 'e2e', match: 'e2e' }],
    [gitlabNote('/service skip-gate sast'), 'human_review_gate', {}, { type: 'skip_gate', check: 'sast', match: 'sast' }],
    [prComment('/service rebase'), 'human_review_gate', {}, { type: 'rebase', pull_request: TARGET }],
    [prComment('/service rebase'), 'implement_task', { is_blocked: true }, { type: 'rebase', pull_request: TARGET }],
    [gitlabNote('/service Rebase'), 'ci_evaluator', {}, { type: 'rebase', pull_request: { repository: 'acme/web', number: 3, head_ref: 'service/proj-1' } }],
    [ticketComment('/service rebase'), 'human_review_gate', {}, { type: 'rebase' }],
  ])('%#: at %s', (trigger, node, extra, expected) => {
    expect(parseCommand(trigger, at(node, extra))).toEqual({ kind: 'command', command: expected });
  });

  it.each<[Observation, CommandPosition, CommandDecision]>([
    [prComment('/service skip-gate'), at('ci_evaluator'), { kind: 'invalid', reason: 'invalid command: the check name is missing', blocks: false,
      reply: '❌ `/service skip-gate`: the check name is missing. Example: `/service skip-gate lint` matches every check whose name contains "lint".' }],
    [prComment('/service rebase now'), at('human_review_gate'), { kind: 'invalid', reason: 'invalid command: `/service rebase` takes no arguments', blocks: false,
      reply: '❌ `/service rebase now`: `/service rebase` takes no arguments. It rebases the pull request it is written on (on the ticket: all of them).' }],
    [prComment('/service skip-gate lint'), at('implement_task'), { kind: 'ignore', reason: '/service skip-gate is not meaningful at implement_task (only at human_review_gate, ci_evaluator, wait_for_ci_gate, attempt_ci_fix)' }],
    [ticketComment('/service rebase'), at('implement_task', { has_pull_request: false }), { kind: 'ignore', reason: '/service rebase needs a pull request; the ticket has none yet' }],
    [prComment('/service approve'), at('plan_approval_gate'), { kind: 'ignore', reason: '/service approve is a ticket comment command; it means nothing on a pull request' }],
    [prComment('/service remove 1'), at('plan_approval_gate'), { kind: 'ignore', reason: '/service remove is a ticket comment command; it means nothing on a pull request' }],
    [prComment('? why'), at('human_review_gate'), { kind: 'ignore', reason: 'pull-request conversation, not a command' }],
    [prComment('LGTM >option 1'), at('rca_option_gate'), { kind: 'ignore', reason: 'pull-request conversation, not a command' }],
  ])('%#', (trigger, position, expected) => {
    expect(parseCommand(trigger, position)).toEqual(expected);
  });
});

describe('edited comments are not new commands', () => {
  const reason = 'an edited comment is not a new command; write a new comment';
  it.each<[string, Observation]>([
    ['tracker', ticketComment('/service remove 2', { updated: '2026-11-23T08:05:00.000Z' })],
    ['scmhost', prComment('/service skip-gate lint', 'edited')],
  ])('%s', (_name, trigger) => {
    expect(parseCommand(trigger, at('plan_approval_gate'))).toEqual({ kind: 'ignore', reason });
    expect(parseCommand(trigger, at('ci_evaluator'))).toEqual({ kind: 'ignore', reason });
  });
});

// ---- source-host facts ------------------------------------------------------------------------------------------

describe('reviews', () => {
  it.each<[Observation, string, Partial<CommandPosition>, CommandDecision]>([
    [review('approved'), 'human_review_gate', {}, { kind: 'command', command: { type: 'review_approved', review_id: 'r1', author: 'alice', pull_request: TARGET } }],
    [review('changes_requested'), 'human_review_gate', {}, { kind: 'command', command: { type: 'review_changes_requested', review_id: 'r1', state: 'changes_requested', body: 'please rename', author: 'alice', pull_request: TARGET } }],
    [review('commented'), 'human_review_gate', {}, { kind: 'command', command: { type: 'review_changes_requested', review_id: 'r1', state: 'commented', body: 'please rename', author: 'alice', pull_request: TARGET } }],
    [review('approved'), 'human_review_gate', { is_blocked: true }, { kind: 'ignore', reason: 'a pull request review is not meaningful while the workflow is blocked at human_review_gate; add service:retry to resume first' }],
    [review('approved', PR.head_ref, 'dismissed'), 'human_review_gate', {}, { kind: 'ignore', reason: 'review dismissed is not a command' }],
    [review('approved'), 'ci_evaluator', {}, { kind: 'ignore', reason: 'a pull request review is not meaningful at ci_evaluator (only at human_review_gate, wait_for_ci_gate, review_response_gate)' }],
    // Proposal review: review comments regenerate the artifact; merging approves it.
    [review('changes_requested', 'service/prd/proj-1'), 'prd_approval_gate', {}, { kind: 'command', command: { type: 'feedback', text: 'please rename', via: 'review' } }],
    [review('commented', 'service/spec/proj-1'), 'spec_approval_gate', {}, { kind: 'command', command: { type: 'feedback', text: 'please rename', via: 'review' } }],
    [review('approved', 'service/prd/proj-1'), 'prd_approval_gate', {}, { kind: 'ignore', reason: 'an approving review does not approve the proposal; merging its pull request does' }],
    [review('commented', 'service/prd/proj-1'), 'prd_approval_gate', { proposal_review: false }, { kind: 'ignore', reason: 'a review of the proposal is not meaningful: proposal review is off' }],
    [review('commented', 'service/prd/proj-1'), 'spec_approval_gate', {}, { kind: 'ignore', reason: 'a review of the prd_approval_gate proposal is not meaningful at spec_approval_gate' }],
    [review('changes_requested', 'service/prd/proj-1'), 'human_review_gate', {}, { kind: 'ignore', reason: 'a review of the prd_approval_gate proposal is not meaningful at human_review_gate' }],
  ])('%#: at %s', (trigger, node, extra, expected) => {
    expect(parseCommand(trigger, at(node, extra))).toEqual(expected);
  });
});

describe('CI results', () => {
  it.each<[Observation, string, CommandDecision]>([
    [checkRun('completed', 'failure'), 'ci_evaluator', { kind: 'command', command: { type: 'ci_completed', source: 'check_run', check: 'CI / Lint', conclusion: 'failure', head_sha: 'abc', pull_request: TARGET } }],
    [checkRun('completed', 'success'), 'human_review_gate', { kind: 'command', command: { type: 'ci_completed', source: 'check_run', check: 'CI / Lint', conclusion: 'success', head_sha: 'abc', pull_request: TARGET } }],
    [checkRun('in_progress', null), 'wait_for_ci_gate', { kind: 'ignore', reason: 'check CI / Lint is in_progress, not completed' }],
    [checkRun('completed', 'success', 'service/spec/proj-1'), 'human_review_gate', { kind: 'ignore', reason: 'service/spec/proj-1 is a proposal pull request (spec_approval_gate), not the change' }],
    [pipeline('success'), 'wait_for_ci_gate', { kind: 'command', command: { type: 'ci_completed', source: 'pipeline', check: 'pipeline', conclusion: 'success', head_sha: 'def' } }],
    [pipeline('failed'), 'ci_evaluator', { kind: 'command', command: { type: 'ci_completed', source: 'pipeline', check: 'pipeline', conclusion: 'failure', head_sha: 'def' } }],
    [pipeline('canceled'), 'human_review_gate', { kind: 'command', command: { type: 'ci_completed', source: 'pipeline', check: 'pipeline', conclusion: 'cancelled', head_sha: 'def' } }],
    [pipeline('skipped'), 'attempt_ci_fix', { kind: 'command', command: { type: 'ci_completed', source: 'pipeline', check: 'pipeline', conclusion: 'skipped', head_sha: 'def' } }],
    [pipeline('running'), 'wait_for_ci_gate', { kind: 'ignore', reason: 'pipeline 55 is running, not finished' }],
    [checkRun(), 'implement_task', { kind: 'ignore', reason: 'a CI result is not meaningful at implement_task (only at human_review_gate, ci_evaluator, wait_for_ci_gate, attempt_ci_fix)' }],
  ])('%#: at %s', (trigger, node, expected) => {
    expect(parseCommand(trigger, at(node))).toEqual(expected);
  });
});

describe('GitLab notes on the merge request', () => {
  const target = { repository: 'acme/web', number: 3, head_ref: 'service/proj-1' };
  it('reads a person\'s note at a review gate as a commented review (GitLab has no changes-requested review)', () => {
    expect(parseCommand(gitlabNote('Rename the export column.'), at('human_review_gate'))).toEqual({
      kind: 'command', command: { type: 'review_changes_requested', review_id: 'note:n1', state: 'commented', body: 'Rename the export column.', pull_request: target },
    });
    expect(parseCommand(gitlabNote('I still want it renamed.'), at('review_response_gate'))).toMatchObject({ kind: 'command', command: { type: 'review_changes_requested' } });
  });

  it('is conversation elsewhere and on a proposal merge request; an edit never counts', () => {
    expect(parseCommand(gitlabNote('nice'), at('implement_task', { is_paused: false }))).toEqual({ kind: 'ignore', reason: 'merge-request conversation, not a review here' });
    const proposal = observation('note', { action: 'created', repository: 'acme/web', pull_request: { number: 4, head_ref: 'service/prd/proj-1' }, comment: { id: 'n2', body: 'looks good' } }, 'gitlab');
    expect(parseCommand(proposal, at('human_review_gate'))).toEqual({ kind: 'ignore', reason: 'merge-request conversation, not a command' });
    const edited = observation('note', { action: 'edited', repository: 'acme/web', pull_request: { number: 3, head_ref: 'service/proj-1' }, comment: { id: 'n1', body: 'changed' } }, 'gitlab');
    expect(parseCommand(edited, at('human_review_gate')).kind).toBe('ignore');
  });
});

describe('pull-request state', () => {
  it.each<[Observation, string, Partial<CommandPosition>, CommandDecision]>([
    [pullRequest('closed', true), 'human_review_gate', {}, { kind: 'command', command: { type: 'pr_merged', pull_request: TARGET } }],
    // A merge is final and not delivered again: it counts while CI runs and while blocked.
    [pullRequest('closed', true), 'ci_evaluator', { is_blocked: true }, { kind: 'command', command: { type: 'pr_merged', pull_request: TARGET } }],
    [mergeRequest('merge', true), 'human_review_gate', {}, { kind: 'command', command: { type: 'pr_merged', pull_request: { repository: 'acme/web', number: 3, head_ref: 'service/proj-1' } } }],
    [pullRequest('closed', false), 'human_review_gate', {}, { kind: 'command', command: { type: 'pr_closed', pull_request: TARGET } }],
    [mergeRequest('close', false), 'wait_for_ci_gate', {}, { kind: 'command', command: { type: 'pr_closed', pull_request: { repository: 'acme/web', number: 3, head_ref: 'service/proj-1' } } }],
    [pullRequest('synchronize', false), 'human_review_gate', {}, { kind: 'command', command: { type: 'pr_synchronized', head_sha: 'abc', pull_request: TARGET } }],
    [mergeRequest('update', false), 'wait_for_ci_gate', {}, { kind: 'command', command: { type: 'pr_synchronized', head_sha: 'def', pull_request: { repository: 'acme/web', number: 3, head_ref: 'service/proj-1' } } }],
    [pullRequest('synchronize', false), 'implement_review', {}, { kind: 'ignore', reason: 'a push to the pull request is not meaningful at implement_review (only at human_review_gate, ci_evaluator, wait_for_ci_gate, attempt_ci_fix)' }],
    [pullRequest('opened', false), 'human_review_gate', {}, { kind: 'ignore', reason: 'pull request opened is not a command' }],
    [pullRequest('reopened', false), 'human_review_gate', {}, { kind: 'ignore', reason: 'pull request reopened is not a command' }],
    [pullRequest('closed', true), 'generate_tasks', {}, { kind: 'ignore', reason: 'a merged pull request is not meaningful at generate_tasks (only at code_review, rebase, human_review_gate, ci_evaluator, wait_for_ci_gate, attempt_ci_fix, implement_review, review_response_gate)' }],
    // Proposal pull requests: the merge approves the artifact at its own gate only.
    [pullRequest('closed', true, 'service/prd/proj-1'), 'prd_approval_gate', {}, { kind: 'command', command: { type: 'approve', gate: 'prd_approval_gate', via: 'merge' } }],
    [pullRequest('closed', true, 'service/spec/proj-1'), 'spec_approval_gate', {}, { kind: 'command', command: { type: 'approve', gate: 'spec_approval_gate', via: 'merge' } }],
    [pullRequest('closed', true, 'service/prd/proj-1'), 'spec_approval_gate', {}, { kind: 'ignore', reason: 'the prd_approval_gate proposal was merged; not meaningful at spec_approval_gate' }],
    [pullRequest('closed', true, 'service/prd/proj-1'), 'human_review_gate', {}, { kind: 'ignore', reason: 'the prd_approval_gate proposal was merged; not meaningful at human_review_gate' }],
    [pullRequest('closed', true, 'service/prd/proj-1'), 'prd_approval_gate', { proposal_review: false }, { kind: 'ignore', reason: 'a merged proposal is not meaningful: proposal review is off' }],
    [pullRequest('closed', true, 'service/prd/proj-1'), 'prd_approval_gate', { is_blocked: true }, { kind: 'ignore', reason: 'a merged proposal is not meaningful while the workflow is blocked at prd_approval_gate; add service:retry to resume first' }],
    [pullRequest('closed', false, 'service/prd/proj-1'), 'prd_approval_gate', {}, { kind: 'ignore', reason: 'the prd_approval_gate proposal pull request was closed without merging; the approval label still approves' }],
    [pullRequest('synchronize', false, 'service/spec/proj-1'), 'spec_approval_gate', {}, { kind: 'ignore', reason: 'a push to the spec_approval_gate proposal is not a command' }],
  ])('%#: at %s', (trigger, node, extra, expected) => {
    expect(parseCommand(trigger, at(node, extra))).toEqual(expected);
  });
});

describe('events that are never commands', () => {
  it.each<[Observation, string]>([
    [observation('issue_created', { labels: ['service:managed'] }), 'issue_created starts the workflow; it is not a command'],
    [observation('push', { push: { ref: 'refs/heads/service/proj-1', after: 'abc' } }, 'gitlab'), 'a push is seen through its pull request and CI; not a command'],
    [observation('issue_commented', {}), 'ticket comment without a body'],
    [ticketComment('Thanks, looks good'), 'conversation, not a command'],
  ])('%#: %s', (trigger, reason) => {
    expect(parseCommand(trigger, at('human_review_gate'))).toEqual({ kind: 'ignore', reason });
  });
});

describe('determinism', () => {
  it('the same observation and position give the same decision, and the inputs are not changed', () => {
    const trigger = ticketComment('/service update 2 summary="x"');
    const position = at('plan_approval_gate');
    const before = JSON.stringify([trigger, position]);
    expect(parseCommand(trigger, position)).toEqual(parseCommand(trigger, position));
    expect(JSON.stringify([trigger, position])).toBe(before);
  });
});

describe('the kill switch', () => {
  it('service:stop and /service stop are commands anywhere the ticket is not blocked, on the ticket and on a pull request', () => {
    for (const node of ['generate_prd', 'prd_approval_gate', 'implement_task', 'human_review_gate']) {
      expect(commandOf(parseCommand(labels(['service:stop']), at(node, { kill_switch: true, is_paused: false })))).toEqual({ type: 'stop', via: 'label' });
      expect(commandOf(parseCommand(ticketComment('/service stop'), at(node, { kill_switch: true })))).toEqual({ type: 'stop', via: 'comment' });
      expect(commandOf(parseCommand(prComment('/service stop'), at(node, { kill_switch: true })))).toEqual({ type: 'stop', via: 'comment' });
    }
    // Stop wins over the other labels of the same update.
    expect(commandOf(parseCommand(labels(['service:prd-approved', 'service:stop']), at('prd_approval_gate', { kill_switch: true })))).toEqual({ type: 'stop', via: 'label' });
  });

  it('a blocked ticket is already stopped; arguments are refused', () => {
    expect(parseCommand(labels(['service:stop']), at('implement_task', { kill_switch: true, is_blocked: true }))).toMatchObject({ kind: 'ignore', reason: expect.stringContaining('while the workflow is blocked') });
    expect(parseCommand(ticketComment('/service stop now'), at('implement_task', { kill_switch: true }))).toMatchObject({ kind: 'invalid', blocks: false });
  });

  it('histories from before the kill switch replay as they ran: the label is no command and the verb is unknown', () => {
    expect(parseCommand(labels(['service:stop']), at('implement_task'))).toMatchObject({ kind: 'ignore' });
    expect(parseCommand(ticketComment('/service stop'), at('implement_task'))).toMatchObject({ kind: 'invalid', blocks: true, reason: 'invalid command: unknown command "stop"' });
  });
});
