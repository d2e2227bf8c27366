import type { TicketState } from './ticket-state';

/** The answer to a request that means nothing where the ticket stands: where it is and what would move it. */
export function statusReply(state: TicketState, what: string, reason: string): string {
  const node = state.checkpoint.current_node;
  const lines = [`ℹ️ ${what} changed nothing: ${reason}.`, '', `The ticket is at \`${node}\` (${state.status})${state.waiting ? `: ${state.waiting.message}` : ''}.`];
  if (state.waiting?.recovery) lines.push(`What moves it: ${state.waiting.recovery}.`);
  return lines.join('\n');
}
