import type { Command } from '../../../../workflows/commands/command-types';
import type { WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import type { Position, StepEnv, StepState } from '../../../../workflows/runtime/step-types';

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

/** A command whose meaning at a gate is `outcome` (workflows/runtime/interpreter.ts gateCommandEffect). */
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
 * What each trigger a node may accept asks for, as the command boundary (workflows/commands/command-parser.ts) produces it.
 * `ci_skips` and `review_retry` are the two triggers the driver hands to `step` as events of their own; `draft_edit`
 * edits the draft in place (no step). A ticket comment `!` at the triage gate is a retriage (command-comments.ts).
 */
export type TriggerMeaning = { kind: 'command'; command: Command } | { kind: 'ci_skips'; skip: boolean } | { kind: 'review_retry' } | { kind: 'draft_edit' };

export function meaningsOf(trigger: string, gateKind: string | undefined): TriggerMeaning[] {
  const command = (c: Command): TriggerMeaning => ({ kind: 'command', command: c });
  if (/^service:[a-z]+-approved$/.test(trigger) || trigger === '/service approve') return [command({ type: 'approve', gate: 'any', via: trigger.startsWith('/') ? 'comment' : 'label' })];
  switch (trigger) {
    case 'a question (?)': return [command(COMMAND_FOR_OUTCOME.question!)];
    case 'feedback (!)': return [command(gateKind === 'triage' ? { type: 'retriage', trigger: 'feedback', text: 'details' } : COMMAND_FOR_OUTCOME.feedback!)];
    case 'feedback on a draft item (! <n>:)': return [command({ type: 'feedback', text: 'smaller', item_id: 2, via: 'comment' })];
    case 'service:retry at a paused gate': return [command(COMMAND_FOR_OUTCOME.regenerate!)];
    case 'service:retry at review_response_gate': return [{ kind: 'review_retry' }];
    case 'a ticket update': return [command(COMMAND_FOR_OUTCOME.retriage!)];
    case '>option': return [command(COMMAND_FOR_OUTCOME.option_selected!)];
    case '/service remove': case '/service exclude': case '/service update': case '/service add': return [{ kind: 'draft_edit' }];
    case 'a review of the proposal': return [command({ type: 'feedback', text: 'see comments', via: 'review' })];
    case 'a merged proposal': return [command({ type: 'approve', gate: 'any', via: 'merge' })];
    case 'a pull request review': return [command(COMMAND_FOR_OUTCOME.review_approved!), command(COMMAND_FOR_OUTCOME.changes_requested!)];
    case 'a CI result': return [command(COMMAND_FOR_OUTCOME.ci_event!)];
    case 'a push to the pull request': return [command({ type: 'pr_synchronized', head_sha: 'def', pull_request: { repository: 'acme/app', number: 7 } })];
    case 'a merged pull request': return [command(COMMAND_FOR_OUTCOME.merged!)];
    case 'a pull request closed without merging': return [command(COMMAND_FOR_OUTCOME.closed!)];
    case '/service skip-gate': return [{ kind: 'ci_skips', skip: true }];
    case '/service unskip-gate': return [{ kind: 'ci_skips', skip: false }];
    default: throw new Error(`no meaning for trigger "${trigger}" in the test table: add it`);
  }
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
