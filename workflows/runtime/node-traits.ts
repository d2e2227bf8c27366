import type { GateNode, ProposalKind, RouterNode, StationNode, WorkflowDefinition } from '../built-in-definitions/definition-types';
import {
  GATE_BEHAVIOUR_BEFORE_FIELDS, REPOSITORY_PLANNERS_BEFORE_FIELDS, REVIEW_RETRY_TARGET_BEFORE_FIELDS, STATION_BEHAVIOUR_BEFORE_FIELDS,
} from '../built-in-definitions/node-behaviour-before-fields';

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

export function stationTraits(spec: StationNode): StationTraits {
  const builtIn = Object.hasOwn(STATION_BEHAVIOUR_BEFORE_FIELDS, spec.station) ? STATION_BEHAVIOUR_BEFORE_FIELDS[spec.station]! : {};
  return {
    counts_ci_fix_attempt: spec.counts_ci_fix_attempt ?? builtIn.counts_ci_fix_attempt ?? NONE.counts_ci_fix_attempt,
    resets_ci_fix_attempts_on: spec.resets_ci_fix_attempts_on ?? builtIn.resets_ci_fix_attempts_on ?? NONE.resets_ci_fix_attempts_on,
    takes_rebase_target: spec.takes_rebase_target ?? builtIn.takes_rebase_target ?? NONE.takes_rebase_target,
  };
}

/** Behaviour of particular gates, as data of the node; what the command boundary asks of a gate instead of its name. */
export interface GateTraits {
  /** The proposal whose pull request is reviewed here, if any. */
  reviews_proposal: ProposalKind | null;
  /** A `!` comment here is the details triage asked for (retriage). */
  feedback_retriages: boolean;
}

/** A gate's traits: the node's fields, else what the built-in gate of its name did (bodies pinned before the fields). */
export function gateTraits(nodeName: string, spec: GateNode): GateTraits {
  const before = Object.hasOwn(GATE_BEHAVIOUR_BEFORE_FIELDS, nodeName) ? GATE_BEHAVIOUR_BEFORE_FIELDS[nodeName]! : {};
  return {
    reviews_proposal: spec.reviews_proposal ?? before.reviews_proposal ?? null,
    feedback_retriages: spec.feedback_retriages ?? before.feedback_retriages ?? false,
  };
}

/** Gate node → its traits, for the command boundary (built beside `acceptTable`, from the same pinned body). */
export function gateTable(definition: WorkflowDefinition): Record<string, GateTraits> {
  const table: Record<string, GateTraits> = {};
  for (const [id, node] of Object.entries(definition.nodes)) if (node.kind === 'gate') table[id] = gateTraits(id, node);
  return table;
}

/** The gate of the definition that reviews `kind` proposals (validation allows at most one). */
export function proposalGateOf(gates: Readonly<Record<string, GateTraits>>, kind: ProposalKind): string | undefined {
  return Object.keys(gates).find((node) => gates[node]!.reviews_proposal === kind);
}

/** Where service:retry at a gate that accepts it for contested review threads goes (SPEC 3.2: the review gate). */
export function reviewRetryTarget(spec: GateNode | undefined): string {
  return spec?.retry_to ?? REVIEW_RETRY_TARGET_BEFORE_FIELDS;
}

/**
 * The stations whose results a router walks the repositories of: the one the node names, else (a body pinned before
 * `repositories_from`) the built-in planning stations, first that left any.
 */
export function repositorySourcesOf(spec: RouterNode): readonly string[] {
  return spec.repositories_from !== undefined ? [spec.repositories_from] : REPOSITORY_PLANNERS_BEFORE_FIELDS;
}

