import type { PullRequestTarget } from '../person-commands/command-types';
import type { WorkflowDefinition } from '../built-in-definitions/definition-types';
import type { Observation } from '../ledger/observation';
import type { StepState } from './step-types';

/** What the judgement of `/service rebase` reads: where the ticket stands, and its pull requests. */
export type RebaseSituation = Pick<StepState, 'blocked' | 'ended' | 'pull_requests' | 'merged_pull_requests'> & { node: string };
import { formatPullRequestRef, sourceHostOf } from '../vocabulary/pull-request-ref';
import { stationTraits } from './node-traits';

/**
 * The node `/service rebase` detours to: the station that works on the pull request the command named
 * (`takes_rebase_target`, node-traits.ts; the built-in `rebase` station does without saying so). Found by what the
 * node does, not by its name; the first in the definition's order if a definition had two.
 */
export function rebaseNodeOf(definition: WorkflowDefinition): string | undefined {
  return Object.entries(definition.nodes).find(([, spec]) => spec.kind === 'station' && stationTraits(spec).takes_rebase_target)?.[0];
}

/**
 * Histories from before this patch ran the rebase station on a pull request already merged (and answered refusals
 * with the bare reason); with it, a merged pull request is refused and the reply says where the ticket stands.
 */
export const REBASE_MERGED_PATCH = 'rebase-refuses-merged';

export type RebaseDecision =
  | { type: 'run'; node: string; target: string | null }
  | { type: 'refuse'; reason: string };

/** `owner/repo#12` (GitLab `group/project!12`) of the pull request a command was written on. */
export function pullRequestRefOf(target: PullRequestTarget, observation: Observation): string | null {
  const repository = target.repository ?? observation.facts.repository;
  if (!repository) return null;
  return formatPullRequestRef(repository, target.number, sourceHostOf(observation.source_system));
}

/**
 * Whether `/service rebase` runs where the ticket stands, and on which pull request. Pure: the step function
 * (./step.ts, event `rebase`) asks it and plans the detour or the refusal. The rebase station returns to the node the ticket left, so it must not start from a node it cannot come back
 * to (a blocked node needs service:retry; an end node has nothing to return to). A merged pull request has nothing
 * left to rebase: its branch is part of the base already, and pushing onto it would change nothing a reviewer sees.
 * `mergedAware: false` is the judgement of histories from before REBASE_MERGED_PATCH.
 */
export function rebaseDecision(
  definition: WorkflowDefinition | null,
  state: RebaseSituation,
  target: string | null,
  options: { mergedAware: boolean } = { mergedAware: true },
): RebaseDecision {
  const { node } = state;
  const rebaseNode = definition ? rebaseNodeOf(definition) : undefined;
  if (!definition || rebaseNode === undefined) {
    return { type: 'refuse', reason: 'this ticket\'s workflow definition has no rebase step; rebase the branch by hand' };
  }
  if (state.pull_requests.length === 0) return { type: 'refuse', reason: 'the ticket has no pull request to rebase yet' };
  if (options.mergedAware) {
    const merged = new Set(state.merged_pull_requests);
    if (target && merged.has(target)) return { type: 'refuse', reason: `${target} is merged already; there is nothing left to rebase on it` };
    if (state.pull_requests.every((ref) => merged.has(ref))) {
      const which = state.pull_requests.length === 1 ? `the ticket's pull request ${state.pull_requests[0]} is` : `every pull request of the ticket (${state.pull_requests.join(', ')}) is`;
      return { type: 'refuse', reason: `${which} merged already; there is nothing left to rebase` };
    }
  }
  if (state.blocked) {
    return { type: 'refuse', reason: `the ticket is blocked at ${node}; add service:retry first, then ask for the rebase again` };
  }
  if (definition.nodes[node]?.kind === 'end' || state.ended) return { type: 'refuse', reason: 'the ticket\'s workflow has ended' };
  if (node === rebaseNode) return { type: 'refuse', reason: 'a rebase is running already' };
  if (target && !state.pull_requests.includes(target)) {
    return { type: 'refuse', reason: `${target} is not a pull request of this ticket (its pull requests: ${state.pull_requests.join(', ')})` };
  }
  return { type: 'run', node: rebaseNode, target };
}
