import type { TicketWorkflowsPort } from '../temporal/ticket-workflows';
import { MAX_TIMELINE_PAGE, type TimelineEntry } from '../../workflows/read-model/timeline';

/** Entries the ticket page shows: the newest, enough for the path of most tickets; the API pages through the rest. */
export const TICKET_PAGE_ENTRIES = MAX_TIMELINE_PAGE;

/**
 * The newest entries of a ticket's timeline. The first page (from the memo when it can) says how many there are;
 * a longer timeline is read again from where its newest entries start.
 */
export async function readTimeline(workflows: Pick<TicketWorkflowsPort, 'timeline'>, ticketKey: string): Promise<{ entries: TimelineEntry[]; total: number }> {
  const first = await workflows.timeline(ticketKey, 0, TICKET_PAGE_ENTRIES);
  if (!first) return { entries: [], total: 0 };
  if (first.next_cursor === null) return { entries: first.entries, total: first.total };
  const newest = await workflows.timeline(ticketKey, Math.max(0, first.total - TICKET_PAGE_ENTRIES), TICKET_PAGE_ENTRIES);
  return { entries: newest?.entries ?? first.entries, total: first.total };
}
