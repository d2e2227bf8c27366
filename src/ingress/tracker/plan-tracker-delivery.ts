import type { Observation, WorkflowKind } from '../../../workflows/ledger/observation';
import { ownCommentReason, ownLabelChangeReason, type LoopGuardOptions } from '../loop-guard';
import { parentOf } from '../../planning-context/provisioning-labels';
import { MANAGED_LABEL } from '../../../workflows/vocabulary/labels';
import { workflowKindFor } from '../../definition-rules/select-definition';


export type DeliveryPlan =
  | { action: 'start'; workflow_kind: WorkflowKind }
  | { action: 'signal' }
  /** An epic or task the service provisioned for a feature: its events belong to the feature's workflow. */
  | { action: 'signal_parent'; parent_key: string }
  /** `code` says why as data (the gateway's `reason_code`); `reason` says it to a person. */
  | { action: 'ignore'; code: 'own_comment' | 'own_change' | 'not_managed'; reason: string };


/**
 * Decides what the gateway does with a tracker observation: start the ticket workflow (signal-with-start), signal
 * an existing one, or ignore. Starting happens on a managed issue_created, and when an update adds service:managed
 * (the changelog says so); everything else only reaches a workflow that already exists.
 */
export function planTrackerDelivery(
  observation: Observation,
  guard: LoopGuardOptions = {},
): DeliveryPlan {
  const comment = observation.facts.comment;
  const own = comment && ownCommentReason(comment, guard, observation.facts.actor_ids);
  if (own) return { action: 'ignore', code: 'own_comment', reason: own };
  if (observation.event === 'issue_updated') {
    const ownLabels = ownLabelChangeReason(observation.facts, guard);
    if (ownLabels) return { action: 'ignore', code: 'own_change', reason: ownLabels };
  }
  // A provisioned child (label service:parent:<F>) never starts a workflow of its own, even though it is managed.
  const parent = parentOf(observation.facts.labels ?? []);
  if (parent && parent !== observation.ticket_key) return { action: 'signal_parent', parent_key: parent };
  const managed = (observation.facts.labels ?? []).includes(MANAGED_LABEL);
  const kind = workflowKindFor(observation.facts.issue_type);
  if (observation.event === 'issue_created') {
    return managed ? { action: 'start', workflow_kind: kind } : { action: 'ignore', code: 'not_managed', reason: `ticket is not labelled ${MANAGED_LABEL}` };
  }
  if (observation.event === 'issue_updated' && observation.facts.label_change?.added.includes(MANAGED_LABEL)) {
    return { action: 'start', workflow_kind: kind };
  }
  return { action: 'signal' };
}
