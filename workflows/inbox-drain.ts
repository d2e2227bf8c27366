import { isStopRequest } from './kill-switch';
import type { TicketState } from './ticket-state';

/**
 * Histories from before this patch handled the whole inbox at once: a command that moved the ticket into a station (a
 * `?` at a gate, an approval) made the commands queued behind it be judged at that station, where a second `?` or
 * the approval itself means nothing and was ignored. With it, they wait until the station has run and the ticket
 * rests again, as the person who wrote them in that order meant.
 */
export const QUEUE_BEHIND_STATION_PATCH = 'queue-behind-station';

/**
 * Whether the inbox loop stops handing out commands after one: the last command left the ticket able to act (a
 * station to run) and more wait. A stop request among them is never held back: the kill switch must act at once.
 */
export function holdInboxBehindStation(ticketCanAct: boolean, remaining: TicketState['inbox']): boolean {
  if (!ticketCanAct || remaining.length === 0) return false;
  return !remaining.some((entry) => entry.decision === 'accepted' && isStopRequest(entry.observation));
}
