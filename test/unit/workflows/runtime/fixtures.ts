import { parseCommand } from '../../../../workflows/person-commands/command-parser';
import type { Command, CommandPosition } from '../../../../workflows/person-commands/command-types';
import { acceptTable, type WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import { gateTable, gateTraits } from '../../../../workflows/runtime/node-traits';
import type { Observation, ObservationFacts, WorkflowKind } from '../../../../workflows/ledger/observation';
import type { Action, Position, StepEnv, StepEvent, StepResult, StepState } from '../../../../workflows/runtime/step-types';
import { step } from '../../../../workflows/runtime/step';
import { TRIGGER, TRIGGER_LABEL, triggerIdOf } from '../../../../workflows/vocabulary/command-words';

export const ENV: StepEnv = { patched: () => true, ticketKey: 'ACME-1' };
export const PR = 'acme/app#7';

export function positionAt(node: string, overrides: Partial<Position> = {}): Position {
  return {
    node, paused: false, visits: { [node]: 1 }, bound_counts: {}, return_to: null, resume_at: null, request: null, yolo: false,
    rebase_target: null, ci_fix_attempts: 0, ci_skipped_checks: [], ...overrides,
  };
}

export function stateAt(node: string, overrides: Partial<Position> = {}, rest: Partial<Omit<StepState, 'position'>> = {}): StepState {
  return {
    position: positionAt(node, overrides), blocked: false, ended: false, retry_count: 0, pull_requests: [], merged_pull_requests: [],
    approved_pull_requests: [], outputs: {}, ...rest,
  };
}

/** The event the intake (workflows/runtime/intake.ts) hands `step` for an accepted command. */
export function intakeEvent(command: Command, by = 'ada', deliveryIdentity = 'd1'): StepEvent {
  switch (command.type) {
    case 'retry':
      return { type: 'retry', command, by, delivery_identity: deliveryIdentity, request_name: 'reply_1' };
    case 'draft_remove':
    case 'draft_exclude':
    case 'draft_update':
    case 'draft_add':
      return { type: 'draft_edit', command };
    default:
      return { type: 'command', command, by, delivery_identity: deliveryIdentity };
  }
}

/**
 * `step` as the driver runs it: each follow-up (`then`) decided on the state the step before returned. `first` holds
 * the actions before the last step's, `last` the last step's result.
 */
export function settle(definition: WorkflowDefinition, state: StepState, event: StepEvent, env: StepEnv = ENV): { first: Action[]; last: StepResult } {
  const first: Action[] = [];
  let result = step(definition, state, event, env);
  for (let follow = result.actions.at(-1); follow?.type === 'then'; follow = result.actions.at(-1)) {
    first.push(...result.actions);
    result = step(definition, result.state, follow.event, env);
  }
  return { first, last: result };
}

/** A command whose meaning at a gate is `outcome` (workflows/runtime/gate-meaning.ts gateCommandEffect). */
export const COMMAND_FOR_OUTCOME: Readonly<Record<string, Command>> = {
  approved: { type: 'approve', gate: 'any', via: 'label' },
  feedback: { type: 'feedback', text: 'shorter, please', via: 'comment' },
  regenerate: { type: 'retry', mode: 'regenerate' },
  question: { type: 'question', text: 'why?' },
  option_selected: { type: 'select_option', option: 1 },
  retriage: { type: 'retriage', trigger: 'ticket_update' },
  review_approved: { type: 'review_approved', review_id: 'r1' },
  changes_requested: { type: 'review_changes_requested', review_id: 'r2', state: 'changes_requested', body: 'rename it' },
  ci_event: { type: 'ci_completed', source: 'check_run', check: 'test', conclusion: 'success', head_sha: 'abc' },
  merged: { type: 'pr_merged', pull_request: { repository: 'acme/app', number: 7 } },
  closed: { type: 'pr_closed', pull_request: { repository: 'acme/app', number: 7 } },
};

/**
 * What each trigger a node may accept asks for, as the real command boundary (workflows/person-commands/command-parser.ts)
 * reads a person's or a provider's delivery of it at that node. The skip list, service:retry at a review-response
 * gate and the draft edits are handed to `step` as events of their own (`intakeEvent`), and the table checks each apart.
 */
export type TriggerMeaning = { kind: 'command'; command: Command } | { kind: 'ci_skips'; skip: boolean } | { kind: 'review_retry' } | { kind: 'draft_edit' };

let deliveries = 0;

function delivery(source_system: Observation['source_system'], event: Observation['event'], facts: ObservationFacts): Observation {
  deliveries += 1;
  const id = `d${deliveries}`;
  return {
    delivery_identity: id, source: 'webhook', source_system, event, resource: { kind: event, id }, revision: null, fingerprint: id,
    ticket_key: ENV.ticketKey, facts, observed_at: null, received_at: '2026-01-01T00:00:00.000Z',
  };
}

const labelAdded = (label: string) => delivery('tracker', 'issue_updated', { label_change: { added: [label], removed: [] }, actor_ids: ['tracker:ada'] });
const ticketComment = (body: string) => delivery('tracker', 'issue_commented', { comment: { id: `c${deliveries}`, body, author: 'ada' }, actor_ids: ['tracker:ada'] });
const onPullRequest = (headRef = 'service/acme-1'): Pick<ObservationFacts, 'repository' | 'pull_request' | 'sender'> => ({ repository: 'acme/app', pull_request: { number: 7, head_ref: headRef }, sender: 'bob' });
const review = (state: 'approved' | 'changes_requested', headRef?: string) => delivery('scmhost', 'pull_request_review', {
  ...onPullRequest(headRef), action: 'submitted', review: { id: `r${deliveries}`, state, body: state === 'approved' ? 'lgtm' : 'rename it', author: 'bob' },
});
const pullRequestClosed = (merged: boolean, headRef?: string) => delivery('scmhost', 'pull_request', {
  ...onPullRequest(headRef), action: 'closed', pull_request: { ...onPullRequest(headRef).pull_request!, ...(merged ? { merged: true } : {}) },
});

/** The proposal branch of a proposal gate (service/prd/<key>), for the triggers only a proposal pull request sends. */
function proposalBranch(definition: WorkflowDefinition, node: string): string {
  const spec = definition.nodes[node];
  return `service/${(spec?.kind === 'gate' ? gateTraits(node, spec).reviews_proposal : null) ?? 'prd'}/acme-1`;
}

/**
 * How each trigger reaches the service, as the vendors deliver it (one delivery per meaning it has). The trigger by
 * id or by its legacy label; a custom gate's own approval label (INVENTED's service:note-approved) is a label added.
 */
export function deliveriesOf(entry: string, node: string, definition: WorkflowDefinition): Observation[] {
  const trigger = triggerIdOf(entry);
  if (trigger === undefined && /^service:[a-z]+-approved$/.test(entry)) return [labelAdded(entry)];
  switch (trigger) {
    case TRIGGER.prdApproved: case TRIGGER.specApproved: case TRIGGER.planApproved: case TRIGGER.taskApproved: return [labelAdded(TRIGGER_LABEL[trigger])];
    case TRIGGER.approve: return [ticketComment('/service approve')];
    case TRIGGER.question: return [ticketComment('? why is the export synchronous')];
    case TRIGGER.feedback: return [ticketComment('! shorter, please')];
    case TRIGGER.draftItemFeedback: return [ticketComment('! 2: smaller')];
    case TRIGGER.retryAtPausedGate: case TRIGGER.retryAtReviewResponseGate: return [labelAdded('service:retry')];
    case TRIGGER.ticketUpdate: return [labelAdded('needs-design')];
    case TRIGGER.option: return [ticketComment('>option 1')];
    case TRIGGER.remove: return [ticketComment('/service remove 1')];
    case TRIGGER.exclude: return [ticketComment('/service exclude 1')];
    case TRIGGER.update: return [ticketComment('/service update 2 summary="Export as CSV"')];
    case TRIGGER.add: return [ticketComment('/service add summary="Export as PDF" repo=acme/app')];
    case TRIGGER.proposalReview: return [review('changes_requested', proposalBranch(definition, node))];
    case TRIGGER.proposalMerged: return [pullRequestClosed(true, proposalBranch(definition, node))];
    case TRIGGER.pullRequestReview: return [review('approved'), review('changes_requested')];
    case TRIGGER.ciResult: return [delivery('scmhost', 'check_run', { ...onPullRequest(), action: 'completed', check_run: { id: `k${deliveries}`, name: 'test', status: 'completed', conclusion: 'success', head_sha: 'abc' } })];
    case TRIGGER.push: return [delivery('scmhost', 'pull_request', { ...onPullRequest(), action: 'synchronize', pull_request: { ...onPullRequest().pull_request!, head_sha: 'def' } })];
    case TRIGGER.merged: return [pullRequestClosed(true)];
    case TRIGGER.closedUnmerged: return [pullRequestClosed(false)];
    case TRIGGER.skipGate: return [delivery('scmhost', 'issue_comment', { ...onPullRequest(), comment: { id: `p${deliveries}`, body: '/service skip-gate lint', author: 'bob' } })];
    case TRIGGER.unskipGate: return [delivery('scmhost', 'issue_comment', { ...onPullRequest(), comment: { id: `p${deliveries}`, body: '/service unskip-gate lint', author: 'bob' } })];
    default: throw new Error(`no delivery for trigger "${entry}" in the test table: add how a person or provider sends it`);
  }
}

/** Where a person finds the ticket at `node` of `definition`: paused there if it is a gate, a pull request open, a draft to edit. */
export function waitingPosition(definition: WorkflowDefinition, kind: WorkflowKind, node: string, trigger: string, overrides: Partial<CommandPosition> = {}): CommandPosition {
  const id = triggerIdOf(trigger);
  const proposal = id === TRIGGER.proposalReview || id === TRIGGER.proposalMerged;
  return {
    workflow_kind: kind, current_node: node, accepts: acceptTable(definition), gates: gateTable(definition), is_blocked: false, is_paused: definition.nodes[node]?.kind === 'gate', has_pull_request: true,
    draft_item_ids: [1, 2, 3], rca_option_count: 2, kill_switch: true, yolo: false, proposal_review: proposal,
    ...(proposal ? { proposal_open: PR } : {}),
    ...overrides,
  };
}

/** A parse of a delivery at a position: the command, or why the boundary did not make it one. */
export function parsed(observation: Observation, position: CommandPosition): { command: Command } | { refused: string } {
  const decision = parseCommand(observation, position);
  return decision.kind === 'command' ? { command: decision.command } : { refused: `${decision.kind}: ${'reason' in decision ? decision.reason : JSON.stringify(decision)}` };
}

/** What the trigger means at the node where it is accepted, by the real parser; a trigger it refuses there fails. */
export function meaningsOf(definition: WorkflowDefinition, kind: WorkflowKind, node: string, trigger: string): TriggerMeaning[] {
  return deliveriesOf(trigger, node, definition).map((observation) => {
    const result = parsed(observation, waitingPosition(definition, kind, node, trigger));
    if ('refused' in result) throw new Error(`${kind}: ${node} accepts "${trigger}", but the parser refuses its delivery there (${result.refused})`);
    const { command } = result;
    if (command.type === 'skip_gate' || command.type === 'unskip_gate') return { kind: 'ci_skips', skip: command.type === 'skip_gate' };
    if (command.type === 'retry' && command.mode === 'review_response') return { kind: 'review_retry' };
    if (command.type.startsWith('draft_')) return { kind: 'draft_edit' };
    return { kind: 'command', command };
  });
}

/** The definition every node param of the schema is exercised on. */
export const INVENTED: WorkflowDefinition = {
  apiVersion: 'service/v1', name: 'invented', revision: 3, entry: 'write',
  nodes: {
    write: {
      kind: 'station', station: 'write_note', model_key: 'writer', params: { tone: 'dry', words: 200 }, retry_bound: 2, on_exhausted: 'gave_up',
      exhausted_code: 'too_many_drafts', timeout_seconds: 60, accepts: ['a merged pull request'], on: { written: 'note_gate' },
    },
    note_gate: {
      kind: 'gate', gate: 'artifact_approval', artifact: 'note', pending_label: 'service:note-pending', approved_label: 'service:note-approved',
      accepts: ['service:note-approved', 'a question (?)', 'feedback (!)'], auto_approve_in_yolo: true, waiting_for: 'approval of the note',
      on: { approved: 'route', feedback: 'write', question: 'explain' },
    },
    explain: { kind: 'station', station: 'explain_note', on: { answered: '$return' } },
    route: { kind: 'router', router: 'next_repository', on: { next: 'fix', done: 'check' } },
    // A custom CI fixer and checker: their nodes say what the built-in attempt_ci_fix and ci_evaluator do by name.
    fix: { kind: 'station', station: 'patch_build', counts_ci_fix_attempt: true, on: { patched: 'check' } },
    check: { kind: 'station', station: 'judge_build', resets_ci_fix_attempts_on: 'green', on: { green: 'merge_gate', red: 'fix' } },
    tidy: { kind: 'station', station: 'tidy_branch', takes_rebase_target: true, on: { tidied: '$return' } },
    merge_gate: {
      kind: 'gate', gate: 'review_response', accepts: ['service:retry at review_response_gate', 'a merged pull request'], retry_to: 'note_gate',
      on: { merged: 'done' },
    },
    gave_up: { kind: 'end', result: 'blocked', code: 'gave_up', message: 'the note could not be written' },
    done: { kind: 'end', result: 'completed' },
  },
};
