import type { Observation } from '../../workflows/ledger/observation';
import { planTrackerDelivery } from './tracker/plan-tracker-delivery';
import type { TicketWorkflowsPort } from '../temporal/ticket-workflows';
import { routeDelivery } from './route-delivery';
import { redactValue } from '../redaction/redact-secrets';
import { boundFacts } from './bound-facts';
import { ownCommentReason, type LoopGuardOptions } from './loop-guard';
import { sourceHostActorId } from '../../workflows/person-commands/actor-identity';
import type { RoutingHints, UnroutedObservation } from './normalised-delivery';
import { ignoredRequestOf } from '../../workflows/person-commands/ignored-request';
import { endedTicketReplyPlan } from './ended-ticket-reply';

export type DeliveryOutcome =
  | { outcome: 'started'; ticket_key: string; workflow_id: string }
  | { outcome: 'signalled'; ticket_key: string; routed_by?: 'title' | 'branch' | 'index'; child_key?: string }
  | { outcome: 'ignored'; reason_code: 'not_managed' | 'own_comment' | 'own_change' | 'no_workflow' | 'unroutable' | 'completed'; reason: string; ticket_key?: string }
  /** A person's request on a ticket whose workflow has ended: answered once, saying so. */
  | { outcome: 'answered'; reason_code: 'ended'; reason: string; ticket_key: string };

/**
 * No running workflow took the observation. When it is a person's request and the ticket's workflow has ended, the
 * person is told so once (issue 43); otherwise it is ignored as before.
 */
async function notRunning(workflows: TicketWorkflowsPort, ticketKey: string, observation: Observation): Promise<DeliveryOutcome> {
  const request = ignoredRequestOf(observation, { kill_switch: true });
  const answered = request && workflows.replyToEndedTicket
    ? await workflows.replyToEndedTicket(ticketKey, (ended) => endedTicketReplyPlan(ticketKey, observation, request, ended))
    : 'not_ended';
  if (answered === 'not_ended') return { outcome: 'ignored', reason_code: 'no_workflow', reason: `no running workflow for ${ticketKey}`, ticket_key: ticketKey };
  return {
    outcome: 'answered', reason_code: 'ended', ticket_key: ticketKey,
    reason: `the workflow of ${ticketKey} has ended; ${request!.asked} ${answered === 'answered' ? 'is answered once, saying so' : 'was answered before'}`,
  };
}

/**
 * Facts end up in workflow state, the timeline and the Temporal UI: a token someone pasted into a comment must not.
 * Identities and fingerprints were computed from the provider's text before, so webhook and poller still converge.
 */
function withoutSecrets<T extends { facts: Observation['facts'] }>(observation: T): T {
  return boundFacts({ ...observation, facts: redactValue(observation.facts) });
}

/**
 * Hands a tracker observation to its ticket workflow: signal-with-start when it starts a managed ticket, a signal
 * otherwise. Shared by the gateway and the poller so both make the same decision about the same fact.
 */
export async function deliverTrackerObservation(workflows: TicketWorkflowsPort, received: Observation, guard: LoopGuardOptions): Promise<DeliveryOutcome> {
  const observation = withoutSecrets(received);
  const plan = planTrackerDelivery(observation, guard);
  if (plan.action === 'ignore') return { outcome: 'ignored', reason_code: plan.code, reason: plan.reason, ticket_key: observation.ticket_key };
  if (plan.action === 'start') {
    const { workflowId, completed } = await workflows.startOrSignal({
      ticket_key: observation.ticket_key,
      project_key: observation.ticket_key.split('-')[0]!,
      issue_type: observation.facts.issue_type ?? null,
      workflow_kind: plan.workflow_kind,
    }, observation);
    if (completed) {
      return { outcome: 'ignored', reason_code: 'completed', reason: `the workflow of ${observation.ticket_key} has completed; a completed ticket is not started again`, ticket_key: observation.ticket_key };
    }
    return { outcome: 'started', ticket_key: observation.ticket_key, workflow_id: workflowId };
  }
  // A provisioned child's event goes to its feature's workflow, keeping the child's key: the workflow tells them
  // apart by `observation.ticket_key`.
  const target = plan.action === 'signal_parent' ? plan.parent_key : observation.ticket_key;
  const result = await workflows.signal(target, observation);
  // A provisioned child's request is not its feature's: only the ticket's own requests are answered.
  if (result === 'not_found') return plan.action === 'signal' ? notRunning(workflows, target, observation) : { outcome: 'ignored', reason_code: 'no_workflow', reason: `no running workflow for ${target}`, ticket_key: target };
  return { outcome: 'signalled', ticket_key: target, ...(plan.action === 'signal_parent' ? { child_key: observation.ticket_key } : {}) };
}

/** Routes a source-host observation (GitHub or GitLab) to its ticket and signals it; never starts a workflow. */
export async function deliverSourceHostObservation(workflows: TicketWorkflowsPort, received: UnroutedObservation, routing: RoutingHints, guard: LoopGuardOptions): Promise<DeliveryOutcome> {
  const observation = withoutSecrets(received);
  // Logins are identities on the host that sent them only (a GitHub login is not a GitLab user of the same name).
  const idsOf = (login: string | undefined) => (login ? [sourceHostActorId(observation.source_system === 'gitlab' ? 'gitlab' : 'scmhost', login)] : []);
  const comment = observation.facts.comment;
  const own = comment && ownCommentReason(comment, guard, idsOf(comment.author));
  if (own) return { outcome: 'ignored', reason_code: 'own_comment', reason: own };
  // A review the service's own account left (a reply to review threads) must not come back as a person's request.
  const review = observation.facts.review;
  const ownReview = review && ownCommentReason({ body: review.body }, guard, idsOf(review.author));
  if (ownReview) return { outcome: 'ignored', reason_code: 'own_comment', reason: ownReview.replace('comment', 'review') };
  const route = await routeDelivery(workflows, observation, routing);
  if (!route.routed) return { outcome: 'ignored', reason_code: 'unroutable', reason: route.reason };
  const result = await workflows.signal(route.observation.ticket_key, route.observation);
  if (result === 'not_found') return notRunning(workflows, route.observation.ticket_key, route.observation);
  return { outcome: 'signalled', ticket_key: route.observation.ticket_key, routed_by: route.via };
}
