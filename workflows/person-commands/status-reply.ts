import type { TicketState } from '../runtime/ticket-state';

/** The answer to a request that means nothing where the ticket stands: where it is and what would move it. */
export function statusReply(state: TicketState, what: string, reason: string): string {
  const node = state.checkpoint.current_node;
  const lines = [`ℹ️ ${what} changed nothing: ${reason}.`, '', `The ticket is at \`${node}\` (${state.status})${state.waiting ? `: ${state.waiting.message}` : ''}.`];
  if (state.waiting?.recovery) lines.push(`What moves it: ${state.waiting.recovery}.`);
  return lines.join('\n');
}

export interface RequestReplyInput {
  ticketKey: string;
  /** What the person asked, as they wrote it (`/service approve`, `service:spec-approved`). */
  asked: string;
  /** Why it changed nothing (the command boundary's reason, also on the timeline). */
  reason: string;
  state: Pick<TicketState, 'checkpoint' | 'status' | 'waiting'>;
  /** What means something here now (workflows/read-model/execution-view.ts `permittedCommands`). */
  permitted: readonly string[];
  /** Request labels the service took off again. */
  removedLabels: readonly string[];
}

function trimPeriod(text: string): string {
  return text.replace(/[.\s]+$/, '');
}

/**
 * The one reply to an ignored request (workflows/person-commands/ignored-request.ts): what was asked and why it changed nothing, then
 * where the ticket stands in words a person acts on, e.g. "SBX-1 waits at `prd_approval_gate`: approval of the PRD:
 * add the label service:prd-approved (or comment `!` to revise, `?` to ask)."
 */
export function requestReply(input: RequestReplyInput): string {
  const { checkpoint, waiting } = input.state;
  const node = `\`${input.state.checkpoint.current_node}\``;
  // One paragraph each: the tracker renders lines joined by a single newline as one line.
  const paragraphs = [`ℹ️ \`${input.asked}\` changed nothing: ${trimPeriod(input.reason)}.`];
  if (checkpoint.is_blocked) {
    paragraphs.push(`${input.ticketKey} is blocked at ${node}${waiting ? ` (\`${waiting.code}\`): ${trimPeriod(waiting.message)}` : ''}.`);
    paragraphs.push(`What moves it: ${trimPeriod(waiting?.recovery ?? 'fix the cause, then add the label service:retry')}.`);
  } else if (checkpoint.is_paused && waiting) {
    paragraphs.push(`${input.ticketKey} waits at ${node}: ${trimPeriod(waiting.message)}.`);
  } else {
    paragraphs.push(`${input.ticketKey} is at ${node}, where the service is at work; it says on the ticket when it needs you.`);
  }
  if (!checkpoint.is_blocked && input.permitted.length > 0) paragraphs.push(`Meaningful here now: ${input.permitted.join(', ')}.`);
  const removed = input.removedLabels.map((label) => `\`${label}\``).join(', ');
  if (input.removedLabels.length > 0) paragraphs.push(input.removedLabels.length === 1 ? `The label ${removed} was taken off again.` : `The labels ${removed} were taken off again.`);
  return paragraphs.join('\n\n');
}
