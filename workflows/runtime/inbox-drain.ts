import { isStopRequest } from './kill-switch';
import type { TicketState } from './ticket-state';

/**
 * Histories from before this patch handled the whole inbox at once: a `?` at a gate sent the ticket to the station
 * that answers it, and the commands queued behind the question (another `?`, the gate's approval) were judged at that
 * station, where they mean nothing, and ignored. With it, they wait until the answer is posted and the ticket is back
 * at the gate they were written at.
 */
export const QUEUE_BEHIND_QUESTION_PATCH = 'queue-behind-question';

/**
 * Whether the inbox loop stops handing out commands after one: the last one sent the ticket on a question's detour
 * (a station that returns to the gate) and more wait. Only that detour holds them: other moves (an approval, review
 * notes that the review station reads together) keep today's order. A stop request is never held back: the kill switch
 * must act at once.
 */
export function holdInboxBehindQuestion(onQuestionDetour: boolean, remaining: TicketState['inbox']): boolean {
  if (!onQuestionDetour || remaining.length === 0) return false;
  return !remaining.some((entry) => entry.decision === 'accepted' && isStopRequest(entry.observation));
}
