import type { GateNode } from './definition-types';

/**
 * What the built-in gates did by node name before their nodes could say so. Tickets keep the definition body they
 * pinned, and bodies pinned (or published) before these fields existed leave them out: such a node behaves as the
 * built-in gate of its name always did. Node names belong here, with the built-in definitions, and nowhere in code.
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
