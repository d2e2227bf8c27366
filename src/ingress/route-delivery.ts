import type { Observation } from '../../workflows/ledger/observation';
import type { RoutingHints, UnroutedObservation } from './normalised-delivery';
import { ticketKeyFromBranch, ticketKeyFromTitle } from './ticket-routing';
import type { TicketWorkflowsPort } from '../temporal/ticket-workflows';

export type RouteResult =
  | { routed: true; observation: Observation; via: 'title' | 'branch' | 'index' }
  | { routed: false; reason: string };

/**
 * Finds the ticket a source-host delivery belongs to: `[KEY]` in the title, then the `service/<key>` head branch,
 * then the PR-to-ticket index the workflows keep (a search attribute). Only the index needs Temporal.
 */
export async function routeDelivery(workflows: TicketWorkflowsPort, observation: UnroutedObservation, hints: RoutingHints): Promise<RouteResult> {
  const byTitle = ticketKeyFromTitle(hints.title);
  if (byTitle) return { routed: true, observation: { ...observation, ticket_key: byTitle }, via: 'title' };
  const byBranch = ticketKeyFromBranch(hints.branch);
  if (byBranch) return { routed: true, observation: { ...observation, ticket_key: byBranch }, via: 'branch' };
  if (hints.pull_request_ref) {
    const byIndex = await workflows.findTicketByPullRequest(hints.pull_request_ref);
    if (byIndex) return { routed: true, observation: { ...observation, ticket_key: byIndex }, via: 'index' };
  }
  const tried = [hints.title !== undefined ? 'title' : '', hints.branch ? `branch ${hints.branch}` : '', hints.pull_request_ref ? `index ${hints.pull_request_ref}` : ''].filter(Boolean);
  return { routed: false, reason: `no ticket found for this delivery (tried ${tried.join(', ') || 'nothing to route by'})` };
}
