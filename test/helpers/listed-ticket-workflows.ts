import type { Client } from '@temporalio/client';
import type { ExecutionView } from '../../workflows/read-model/execution-view';
import { readModelSnapshot } from '../../workflows/read-model/read-model-memo';
import type { TimelineEntry } from '../../workflows/read-model/timeline';
import { searchAttributes, TICKET_WORKFLOW_TYPE, ticketWorkflowId } from '../../workflows/messages';
import { initialCheckpoint } from '../../workflows/runtime/ticket-state';

/**
 * Ticket workflows as Temporal visibility lists them, without a worker: each is started on a task queue nobody
 * polls, with the search attributes and the read model in the memo that a real ticket at that point publishes. The
 * console's board reads nothing else (src/console/ticket-listing.ts), so it lists them as it lists real tickets; they
 * never run. Thousands start in a minute where parking real tickets takes a quarter of an hour (bench/parked-tickets).
 */
export type SyntheticPlace = 'gate' | 'running' | 'blocked';

const AT = '2026-12-01T08:00:00.000Z';

function timelineOf(key: string, place: SyntheticPlace): TimelineEntry[] {
  const entry = (event_id: number, kind: TimelineEntry['kind'], status: string, summary: string, details: Record<string, unknown>): TimelineEntry => ({
    event_id, kind, occurred_at: `2026-12-01T08:0${Math.min(9, event_id)}:00.000Z`, status, summary, details,
  });
  const entries: TimelineEntry[] = [
    entry(1, 'observation_received', 'accepted', `tracker issue_created ${key}`, { observation_id: `obs-${key}-1`, source_system: 'tracker', event: 'issue_created' }),
    entry(2, 'observation_decision', 'started', 'started the bug workflow at intake', { observation_id: `obs-${key}-1` }),
    entry(3, 'station_attempt', 'running', 'intake started (visit 1)', { node: 'intake', station: 'intake', visit: 1 }),
    entry(4, 'station_attempt', 'succeeded', 'intake finished: configured', { node: 'intake', outcome: 'configured' }),
    entry(5, 'transition', 'configured', 'intake → triage_check (configured)', { from: 'intake', to: 'triage_check', outcome: 'configured' }),
    entry(6, 'effect', 'succeeded', 'tracker.label add service:analyzing attempt 1', { operation: 'tracker.label', evidence: { url: `https://tracker.example/browse/${key}` } }),
    entry(7, 'effect', 'succeeded', 'tracker.comment attempt 1: the ticket needs the steps to reproduce and the version it was seen in', { operation: 'tracker.comment', evidence: { url: `https://tracker.example/browse/${key}?focusedCommentId=10002` } }),
  ];
  if (place === 'gate') entries.push(entry(8, 'transition', 'incomplete', 'triage_check → triage_gate (incomplete)', { from: 'triage_check', to: 'triage_gate', outcome: 'incomplete' }));
  if (place === 'blocked') entries.push(entry(8, 'station_attempt', 'failed', 'triage_check failed after its retries: the model answered 529', { code: 'station_failed' }));
  return entries;
}

/** The execution view of a synthetic bug ticket standing at a gate, at a station or blocked. */
export function syntheticView(key: string, place: SyntheticPlace): ExecutionView {
  const node = place === 'gate' ? 'triage_gate' : 'triage_check';
  const since = '2026-12-01T08:07:00.000Z';
  return {
    schema_version: '1.0', run_id: `synthetic-${key}`, workflow_id: ticketWorkflowId(key), ticket_key: key, workflow_type: 'bug',
    status: place === 'gate' ? 'waiting' : place === 'blocked' ? 'blocked' : 'running', current_position: node,
    definition: { name: 'bug', revision: 3, digest: 'f5bc172e575d'.padEnd(64, '0') },
    permitted_commands: place === 'gate' ? ['ticket_update', '?', '!'] : place === 'blocked' ? ['service:retry'] : [],
    next_transitions: place === 'gate' ? [{ outcome: 'retriage', target: 'triage_check' }, { outcome: 'feedback', target: 'triage_check' }, { outcome: 'question', target: 'answer_question' }] : [],
    waiting: place === 'gate'
      ? { code: 'gate', message: 'the missing details: update the ticket or reply with `!` and the details', since, recovery: null }
      : place === 'blocked' ? { code: 'station_failed', message: 'triage_check failed after its retries: the model answered 529', since, recovery: 'fix the cause, then add the label service:retry to resume at triage_check' } : null,
    blocking: place === 'blocked' ? { code: 'station_failed', message: 'triage_check failed after its retries: the model answered 529' } : null,
    last_observation: { observation_id: `tracker:issue_created:${key}:10001`, source_system: 'tracker', event: 'issue_created', observed_at: AT, received_at: AT, conflicting: false },
    observations_received: 1, observation_decisions: { accepted: 1 }, recent_events: [],
    station_attempts: [
      { node: 'intake', station: 'intake', visit: 1, started_at: '2026-12-01T08:03:00.000Z', finished_at: '2026-12-01T08:04:00.000Z', status: 'succeeded', outcome: 'configured', summary: 'configured', error: null, effects: 1, usage: null },
      { node: 'triage_check', station: 'triage_check', visit: 1, started_at: since, finished_at: place === 'running' ? null : '2026-12-01T08:08:00.000Z', status: place === 'running' ? 'running' : place === 'blocked' ? 'failed' : 'succeeded', outcome: place === 'gate' ? 'incomplete' : null, summary: null, error: place === 'blocked' ? 'the model answered 529' : null, effects: 0, usage: { input_tokens: 3_200, output_tokens: 410 } },
    ],
    tokens_spent: 3_610, tokens_by_stage: { triage_check: 3_610 }, artifacts: {},
    effects: [
      { idempotency_key: `${ticketWorkflowId(key)}:intake:1:tracker.label:service:analyzing`, operation: 'tracker.label', status: 'succeeded', attempts: 1, required: true },
      { idempotency_key: `${ticketWorkflowId(key)}:triage_check:1:tracker.comment:triage`, operation: 'tracker.comment', status: 'succeeded', attempts: 1, required: true },
      { idempotency_key: `${ticketWorkflowId(key)}:triage_check:1:tracker.label:service:triage-pending`, operation: 'tracker.label', status: 'succeeded', attempts: 1, required: true },
    ], migration: null, retry_count: 0,
    checkpoint: { ...initialCheckpoint(), current_node: node, is_blocked: place === 'blocked' }, started_at: AT,
  };
}

/** The memo a ticket publishes for this view (its read model), as `workflow.start` takes it. */
export function syntheticMemo(key: string, place: SyntheticPlace): Record<string, unknown> {
  const timeline = timelineOf(key, place);
  const snapshot = readModelSnapshot(syntheticView(key, place), { entries: timeline, next_event_id: timeline.length + 1, trimmed: 0 });
  return Object.fromEntries([...snapshot.texts].map(([k, text]) => [k, JSON.parse(text) as unknown]));
}

/**
 * Starts one synthetic ticket workflow on `taskQueue` (which no worker may poll). `extraMemo` adds memo keys (e.g. a
 * large timeline chunk, which the board's listing carries but does not decode).
 */
export async function startSyntheticTicket(client: Client, taskQueue: string, key: string, place: SyntheticPlace, extraMemo: Record<string, unknown> = {}): Promise<void> {
  const view = syntheticView(key, place);
  await client.workflow.start(TICKET_WORKFLOW_TYPE, {
    taskQueue, workflowId: ticketWorkflowId(key), args: [],
    memo: { ...syntheticMemo(key, place), ...extraMemo },
    typedSearchAttributes: [
      { key: searchAttributes.ticketKey, value: key },
      { key: searchAttributes.status, value: view.status },
      { key: searchAttributes.node, value: view.current_position },
      { key: searchAttributes.blocked, value: place === 'blocked' },
      { key: searchAttributes.workflowType, value: 'bug' },
      { key: searchAttributes.pullRequests, value: [] },
    ],
  });
}
