import type { GateNode, StationNode } from './definition-types';

/**
 * What the built-in nodes did by their names before their nodes could say so. Tickets keep the definition body they
 * pinned, and bodies pinned (or published) before these fields existed leave them out: such a node behaves as the
 * built-in node of its name always did. The built-in revisions that declare the fields (feature r2, bug r3,
 * task_takeover r3) no longer need this table; it stays for what was pinned before them. Node and station names
 * belong here, with the built-in definitions, and nowhere in code.
 */
export const GATE_BEHAVIOUR_BEFORE_FIELDS: Readonly<Record<string, Pick<GateNode, 'reviews_proposal' | 'feedback_retriages'>>> = {
  prd_approval_gate: { reviews_proposal: 'prd' },
  spec_approval_gate: { reviews_proposal: 'spec' },
  triage_gate: { feedback_retriages: true },
};

/**
 * Where service:retry at a review-response gate without `retry_to` goes (SPEC 3.2: back to the review gate); also
 * where the v0.1 runtime, which has no definition, sends it.
 */
export const REVIEW_RETRY_TARGET_BEFORE_FIELDS = 'human_review_gate';

/** What the built-in stations did, by station name, before their nodes could say so. */
export const STATION_BEHAVIOUR_BEFORE_FIELDS: Readonly<Record<string, Pick<StationNode, 'counts_ci_fix_attempt' | 'resets_ci_fix_attempts_on' | 'takes_rebase_target'>>> = {
  attempt_ci_fix: { counts_ci_fix_attempt: true },
  ci_evaluator: { resets_ci_fix_attempts_on: 'pass' },
  rebase: { takes_rebase_target: true },
};

/**
 * The stations whose results a `next_repository` router without `repositories_from` walks, first that left any
 * wins: the planning stations of the feature, bug and takeover graphs, in that order.
 */
export const REPOSITORY_PLANNERS_BEFORE_FIELDS: readonly string[] = ['provision_tasks', 'decompose_plan', 'generate_plan'];
