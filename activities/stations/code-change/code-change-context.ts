import { serviceBranch } from '../../../src/containers/workspace';
import type { StationInput } from '../../../workflows/runtime/station-types';

/**
 * Where a code-change station works. The task router keeps its decision as `outputs.next_repository`
 * (`{repository, index, count}`, workflows/runtime/routers.ts): the per-repository stations between `task_router` and
 * `teardown_workspace` work on that repository. Stations after the router is done (CI, review, completion) work on
 * every pull request of the ticket (`input.pull_requests`).
 */
export function currentRepository(input: StationInput): string | undefined {
  const routed = (input.outputs.next_repository as { repository?: unknown } | undefined)?.repository;
  if (typeof routed === 'string' && routed) return routed;
  return typeof input.params?.repository === 'string' ? input.params.repository : undefined;
}

/** The ticket branch in every repository: `service/<key-lowercase>` (REFERENCE "Source host conventions"). */
export function ticketBranch(input: Pick<StationInput, 'ticket_key'>): string {
  return serviceBranch(input.ticket_key);
}

