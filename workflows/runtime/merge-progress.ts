import type { Observation } from '../ledger/observation';
import type { TicketState } from './ticket-state';
import { formatPullRequestRef, sourceHostOf } from '../vocabulary/pull-request-ref';

/** Proposal branches (`service/prd/<key>`, `service/spec/<key>`) are reviews of an artifact, not code changes. */
const PROPOSAL_BRANCH = /^service\/(prd|spec)\//;

/**
 * Remembers a pull request of the ticket that was merged or approved by a reviewer, wherever the ticket stands when
 * the news arrives (a merge seen while a station runs must not be lost). Returns what was new, if anything.
 */
export function noteAcceptedPullRequest(state: Pick<TicketState, 'pull_requests' | 'runtime'>, observation: Observation): { ref: string; how: 'merged' | 'approved' } | undefined {
  const pr = observation.facts.pull_request;
  const repository = observation.facts.repository;
  if (!pr || !repository || observation.source_system === 'tracker' || !state.runtime) return undefined;
  if (pr.head_ref && PROPOSAL_BRANCH.test(pr.head_ref)) return undefined;
  const how = pr.merged === true ? 'merged' : observation.facts.review?.state === 'approved' ? 'approved' : undefined;
  if (!how) return undefined;
  const ref = formatPullRequestRef(repository, pr.number, sourceHostOf(observation.source_system));
  const list = how === 'merged' ? (state.runtime.merged_pull_requests ??= []) : (state.runtime.approved_pull_requests ??= []);
  if (list.includes(ref)) return undefined;
  list.push(ref);
  return { ref, how };
}

/**
 * A feature spans repositories, one pull request each: the code change moves to completion once every pull request of
 * the ticket is accepted (approved by a reviewer, SPEC 3.2, or merged).
 */
export function mergeProgress(pullRequests: readonly string[], ...accepted: Array<readonly string[] | undefined>): { all: boolean; waiting: string[] } {
  const done = new Set(accepted.flatMap((list) => list ?? []));
  const waiting = pullRequests.filter((ref) => !done.has(ref));
  return { all: pullRequests.length > 0 && waiting.length === 0, waiting };
}
