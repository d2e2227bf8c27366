import {
  allHandlersFinished, condition, continueAsNew, proxySinks, setHandler, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import { executionQuery, observeSignal, searchAttributes, timelineQuery } from './messages';
import type { Observation, TicketWorkflowInput } from './observation';
import { buildExecutionView } from './execution-view';
import type { ServiceMetricsSinks } from './metrics-sink';
import { recordObservation } from './record-observation';
import { initialTicketState, type TicketState } from './ticket-state';
import { appendTimeline, pageTimeline } from './timeline';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();

function nowIso(): string {
  // Workflow time: deterministic on replay.
  return new Date().toISOString();
}

function searchAttributeSnapshot(state: TicketState): string {
  return JSON.stringify([state.status, state.checkpoint.current_node, state.checkpoint.is_blocked, state.pull_requests]);
}

function publishSearchAttributes(state: TicketState): void {
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
function rememberPullRequest(state: TicketState, observation: Observation): void {
  const pr = observation.facts.pull_request;
  const repository = observation.facts.repository;
  if (!pr || !repository || observation.source_system === 'tracker') return;
  const ref = `${repository}${observation.source_system === 'gitlab' ? '!' : '#'}${pr.number}`;
  if (!state.pull_requests.includes(ref)) state.pull_requests.push(ref);
}

/**
 * One long-lived workflow per managed ticket (workflow id `ticket-<KEY>`). Every delivery arrives as an `observe`
 * signal and is queued; the main loop processes the queue so later stages can await effects between deliveries.
 * `carried` is the state handed over by continue-as-new.
 */
export async function ticketWorkflow(input: TicketWorkflowInput, carried?: TicketState): Promise<void> {
  const info = workflowInfo();
  const state = carried ?? initialTicketState(input, info.firstExecutionRunId, nowIso());

  setHandler(observeSignal, (observation) => {
    state.inbox.push(observation);
  });
  setHandler(executionQuery, () => buildExecutionView(state, info.workflowId));
  setHandler(timelineQuery, ({ cursor, limit }) => pageTimeline(state.timeline, cursor, limit));

  if (carried) {
    appendTimeline(state.timeline, {
      kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
      summary: 'History compacted with continue-as-new; state carried over', details: { run_id: info.runId },
    });
  } else {
    serviceMetrics.workflowStarted(input.workflow_kind);
    appendTimeline(state.timeline, {
      kind: 'workflow_started', occurred_at: state.started_at, status: state.status,
      summary: `Ticket workflow started for ${input.ticket_key} (${input.workflow_kind})`,
      details: { issue_type: input.issue_type, project_key: input.project_key, run_id: state.run_id },
    });
  }
  let published = searchAttributeSnapshot(state);
  publishSearchAttributes(state);

  for (;;) {
    await condition(() => state.inbox.length > 0 || workflowInfo().continueAsNewSuggested);
    for (let next = state.inbox.shift(); next !== undefined; next = state.inbox.shift()) {
      const verdict = recordObservation(state, next, nowIso());
      if (verdict.decision === 'accepted') rememberPullRequest(state, next);
    }
    const snapshot = searchAttributeSnapshot(state);
    if (snapshot !== published) {
      publishSearchAttributes(state);
      published = snapshot;
    }
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      if (state.inbox.length === 0) await continueAsNew<typeof ticketWorkflow>(input, state);
    }
  }
}
