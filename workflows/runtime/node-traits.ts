import type { GateNode, StationNode } from '../built-in-definitions/definition-types';

/**
 * Behaviour of particular stations that the runtime used to hard-code by station name, as data of the node. A
 * definition (a published custom one too) states it on the node; a node that does not, as in every definition pinned
 * before these fields existed, gets what its built-in station always did, so running tickets behave as they did.
 */
export interface StationTraits {
  /** Entering the node's station counts one CI fix attempt once it succeeds (SPEC 3.2). */
  counts_ci_fix_attempt: boolean;
  /** The outcome of this station that starts the CI fix count again (a pass). */
  resets_ci_fix_attempts_on: string | null;
  /** The station works on the pull request `/service rebase` named (param `pull_request`), which it then forgets. */
  takes_rebase_target: boolean;
}

const NONE: StationTraits = { counts_ci_fix_attempt: false, resets_ci_fix_attempts_on: null, takes_rebase_target: false };

/** What the built-in stations did before their nodes could say so. */
export const BUILT_IN_STATION_TRAITS: Readonly<Record<string, Partial<StationTraits>>> = {
  attempt_ci_fix: { counts_ci_fix_attempt: true },
  ci_evaluator: { resets_ci_fix_attempts_on: 'pass' },
  rebase: { takes_rebase_target: true },
};

export function stationTraits(spec: StationNode): StationTraits {
  const builtIn = BUILT_IN_STATION_TRAITS[spec.station] ?? {};
  return {
    counts_ci_fix_attempt: spec.counts_ci_fix_attempt ?? builtIn.counts_ci_fix_attempt ?? NONE.counts_ci_fix_attempt,
    resets_ci_fix_attempts_on: spec.resets_ci_fix_attempts_on ?? builtIn.resets_ci_fix_attempts_on ?? NONE.resets_ci_fix_attempts_on,
    takes_rebase_target: spec.takes_rebase_target ?? builtIn.takes_rebase_target ?? NONE.takes_rebase_target,
  };
}

/** Where service:retry at a gate that accepts it for contested review threads goes (SPEC 3.2: the review gate). */
export const DEFAULT_REVIEW_RETRY_TARGET = 'human_review_gate';

export function reviewRetryTarget(spec: GateNode | undefined): string {
  return spec?.retry_to ?? DEFAULT_REVIEW_RETRY_TARGET;
}
