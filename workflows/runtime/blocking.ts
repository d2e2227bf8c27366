import type { TicketState } from './ticket-state';
import { RETRY_LABEL } from '../vocabulary/labels';

/** Blocking codes (SPEC 3.2): why a ticket cannot continue safely. */
export type BlockingCode =
  | 'missing_project_config'
  | 'invalid_repo_assignment'
  | 'unrecognized_command'
  | 'conflicting_evidence'
  | 'effect_unresolved'
  | 'invalid_station_result'
  | 'missing_workflow_route'
  | 'ci_fix_limit'
  | 'invalid_repo_assignment'
  | 'invalid_model_policy'
  | 'station_not_available'
  | 'station_failed'
  | 'retry_bound_exhausted'
  | 'pull_request_closed'
  | 'escalated'
  /** A token budget (ticket or stage) would be exceeded by the next model call. */
  | 'budget_exhausted'
  /** service:stop or `/service stop`: an operator stopped the ticket. */
  | 'stopped';


/** Marks the checkpoint blocked at its current node; returns false when it already was (one block, one comment). */
export function enterBlocked(state: TicketState, code: BlockingCode, message: string, now: string): boolean {
  if (state.checkpoint.is_blocked) return false;
  state.checkpoint.is_blocked = true;
  state.checkpoint.last_error = message;
  state.status = 'blocked';
  state.waiting = {
    code,
    message,
    since: now,
    recovery: `fix the cause, then add the label ${RETRY_LABEL} to resume at ${state.checkpoint.current_node}`,
  };
  return true;
}

/**
 * SPEC 3.2: service:retry resumes at the saved node and clears last_error and is_blocked (the step resets
 * ci_fix_attempts with the position; a corrected command after an unknown one keeps them: nothing about CI was
 * retried). Both count as a retry, so the next block is a new episode.
 */
export function leaveBlocked(state: TicketState, now: string, by: 'retry' | 'corrected_command' = 'retry'): { resumedAt: string; code: string | null } {
  const code = state.waiting?.code ?? null;
  state.checkpoint.is_blocked = false;
  state.checkpoint.last_error = null;
  state.retry_count += 1;
  state.status = 'waiting';
  const after = by === 'retry' ? RETRY_LABEL : 'a corrected command';
  state.waiting = { code: 'resumed', message: `resumed at ${state.checkpoint.current_node} after ${after}`, since: now, recovery: null };
  return { resumedAt: state.checkpoint.current_node, code };
}

/** Unknown `/service` verbs are answered with one comment that says the block too (issue 43); histories from before got a reply and a block comment. */
export const UNKNOWN_COMMAND_ONE_ANSWER_PATCH = 'unknown-command-one-answer';

/** What the one answer to an unknown verb adds to the ❌ reply: that it blocks, where, and the two ways on. */
export function unknownCommandBlockNote(node: string): string {
  return `🚫 An unknown command blocks the ticket (\`unrecognized_command\`) at \`${node}\`. Write what you meant as a command that means something at \`${node}\` (a gate's approval label or command, as its comment says): it clears the block by itself. Or add the label \`${RETRY_LABEL}\` to go on from \`${node}\`.`;
}

/**
 * SPEC 3.2: service:retry at a review-response gate clears the contested review state. Where the ticket goes (and
 * that it no longer waits) is the gate's `retry_to` (`reviewRetryPosition` in step.ts), written by the caller.
 */
export function clearReviewResponseState(state: TicketState): void {
  state.checkpoint.contested_comments = [];
  state.checkpoint.feedback_comment = null;
  state.checkpoint.revision_requested = null;
  state.checkpoint.review_comments = [];
  state.checkpoint.is_blocked = false;
  state.checkpoint.force_fresh_invoke = true;
}

export function blockedComment(input: { node: string; code: BlockingCode; message: string; ticketKey: string }): string {
  return [
    `🚫 **Blocked** at \`${input.node}\`: ${input.message}`,
    '',
    `Blocking code: \`${input.code}\`. The timeline explains what happened (\`GET /api/v1/workflows/${input.ticketKey}/execution/timeline\`).`,
    `Fix the cause, then add the label \`${RETRY_LABEL}\` to resume from \`${input.node}\`.`,
  ].join('\n');
}

/** Runs that tell a retry which failed the same way from a new block; histories from before replay unchanged. */
export const REPEATED_BLOCK_PATCH = 'repeated-block-once';

/**
 * Blocks that a person's command or a delivery caused, not a node run again: each is a new act (a second service:stop,
 * another unknown command) and is always reported in full.
 */
const ACTED_BLOCKS: ReadonlySet<string> = new Set(['stopped', 'unrecognized_command', 'conflicting_evidence']);

/** A block as it is remembered: where (node and visit), why (code and message), and how many times in a row. */
export interface BlockRecord {
  node: string;
  visit: number;
  code: string;
  message: string;
  /** 0 for a new block; n for the n-th retry in a row that ran into the same block again. */
  repeats: number;
}

/**
 * The record of a block that just happened. It repeats the last one when the ticket blocks at the same node and visit
 * with the same code and message: only service:retry leaves a block and a resumed visit keeps its number, so this is
 * a retry whose cause did not change (a station still not available, a budget still too small). A different message
 * is a new block, reported in full.
 */
export function nextBlockRecord(last: BlockRecord | undefined, block: Omit<BlockRecord, 'repeats'>): BlockRecord {
  if (ACTED_BLOCKS.has(block.code)) return { ...block, repeats: 0 };
  const same = last !== undefined && last.node === block.node && last.visit === block.visit && last.code === block.code && last.message === block.message;
  return { ...block, repeats: same ? last.repeats + 1 : 0 };
}

/**
 * What the ticket is told about a block ("Promises to a newcomer kept", point 4): a new block gets the full block
 * comment; the first retry that fails the same way gets one short comment saying the cause persists; further such
 * retries only set service:blocked again and are on the timeline (the comments above already say all there is).
 */
export function blockReport(record: BlockRecord): 'full' | 'persists' | 'silent' {
  return record.repeats === 0 ? 'full' : record.repeats === 1 ? 'persists' : 'silent';
}

export function blockPersistsComment(input: { node: string; code: string; message: string }): string {
  return [
    `🚫 **Still blocked** at \`${input.node}\`: ${RETRY_LABEL} ran it again and it stopped for the same reason (\`${input.code}\`): ${input.message}`,
    '',
    `Nothing changed since the block reported above. Fix that cause first, then add \`${RETRY_LABEL}\` again; further retries that stop the same way are recorded on the timeline without a new comment.`,
  ].join('\n');
}

/** SPEC 2.8: the comment posted when the project has no repository configuration. */
export function setupInstructionsComment(input: { projectKey: string; missing: string[]; requireProjectConfig: boolean }): string {
  if (!input.requireProjectConfig) {
    return [
      `🚫 **Setup needed**: no repositories are configured for project \`${input.projectKey}\`.`,
      '',
      'Project configuration is not required on this deployment (SERVICE_REQUIRE_PROJECT_CONFIG=false), and the fallback',
      'variables SCMHOST_KNOWN_REPOS / SCMHOST_DEFAULT_REPO are empty. Set them (comma-separated `owner/repo`), restart the',
      `service, then add the label \`${RETRY_LABEL}\` to resume.`,
    ].join('\n');
  }
  return [
    `🚫 **Setup needed**: project \`${input.projectKey}\` has no repository configuration (missing: ${input.missing.map((m) => `\`${m}\``).join(', ')}).`,
    '',
    `Set the project property \`service.repos\` to a JSON array of \`owner/repo\` strings, for example \`["acme/api", "acme/web"]\``,
    '(an item may also be `{"name": "owner/repo", "draft": true}` to open draft pull requests).',
    'Optionally set `service.default_repo` to the `owner/repo` used when a ticket has no `repo:<owner>/<repo>` label.',
    '',
    `Then add the label \`${RETRY_LABEL}\` to this ticket to resume.`,
  ].join('\n');
}
