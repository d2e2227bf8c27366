import { upsertSearchAttributes } from '@temporalio/workflow';
import { searchAttributes } from '../messages';
import type { Observation } from '../ledger/observation';
import type { TicketState } from '../runtime/ticket-state';
import { formatPullRequestRef, sourceHostOf } from '../vocabulary/pull-request-ref';

/** What the search attributes show; publishing only when it changed keeps history small. */
export function searchAttributeSnapshot(state: TicketState): string {
  return JSON.stringify([state.status, state.checkpoint.current_node, state.checkpoint.is_blocked, state.pull_requests]);
}

/** The attributes operators filter on in the Temporal UI and the gateway uses to find a ticket's PRs. */
export function publishSearchAttributes(state: TicketState): void {
  upsertSearchAttributes([
    { key: searchAttributes.status, value: state.status },
    { key: searchAttributes.node, value: state.checkpoint.current_node },
    { key: searchAttributes.blocked, value: state.checkpoint.is_blocked },
    { key: searchAttributes.runId, value: state.run_id },
    { key: searchAttributes.ticketKey, value: state.input.ticket_key },
    { key: searchAttributes.workflowType, value: state.input.workflow_kind },
    { key: searchAttributes.pullRequests, value: state.pull_requests },
  ]);
}

/** Keeps the PR-to-ticket index: a delivery routed here by title or branch teaches the workflow its PR. */
export function rememberPullRequest(state: TicketState, observation: Observation): void {
  const pr = observation.facts.pull_request;
  const repository = observation.facts.repository;
  if (!pr || !repository || observation.source_system === 'tracker') return;
  const ref = formatPullRequestRef(repository, pr.number, sourceHostOf(observation.source_system));
  if (!state.pull_requests.includes(ref)) state.pull_requests.push(ref);
}
