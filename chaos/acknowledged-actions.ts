/**
 * "Every person's action that was acknowledged is reflected" (issue 31), from the simulators' answers and Temporal's
 * histories, never from the service's logs. An action is acknowledged when the simulator accepted it (the comment,
 * label, check run, review or merge exists there); it is reflected when the ticket's workflow received it as an
 * observation (by webhook or by the poller) and then left the place where the person acted: every action the person
 * takes at a gate moves the ticket on (approvals and answers to the next station, `?` to answer_question, `!` to the
 * revision, a CI result to ci_evaluator, a review to implement_review or to completion, `/service rebase` (asked for
 * when the source host refused a merge) into the rebase detour, service:retry out of the
 * block), except a draft edit, which stays at its gate and is checked in the artefact instead (invariants.ts).
 * Pure: run-seed.ts records the actions and reads the histories, this decides.
 */
import type { PersonAction } from './ticket-scripts';
import type { Violation } from './invariants';

export interface AcknowledgedAction {
  ticket: string;
  action: PersonAction;
  /** Where the ticket rested when the person acted (a gate, or the node it was blocked at). */
  position: string;
  /** The person acted on a blocked ticket (service:retry): leaving means the block is lifted. */
  blocked?: boolean;
  /** The merge a person presses after the ticket finished: nothing in the workflow is left to move. */
  afterCompletion?: boolean;
  /** What the simulator answered, to find the observation: the comment's id, the check's head commit. */
  commentId?: string;
  headSha?: string;
  /** Milliseconds from the seed's start, for the report. */
  atMs: number;
}

/** An observation as the ticket workflow received it, reduced to what identifies a person's action. */
export interface ObservedFact {
  event: string;
  commentId?: string;
  labelsAdded?: string[];
  labels?: string[];
  check?: { sha: string; conclusion: string | null };
  reviewState?: string;
  merged?: boolean;
}

/** One step of a ticket's histories (all its runs, oldest first) that matters here. */
export type HistoryMoment =
  | { kind: 'observed'; fact: ObservedFact }
  | { kind: 'node'; node: string }
  | { kind: 'blocked'; blocked: boolean }
  | { kind: 'closed'; how: string };

// Temporal's history events as the client returns them (protobuf objects); only the fields read here.
interface RawPayload { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }
export interface RawHistoryEvent {
  workflowExecutionSignaledEventAttributes?: { signalName?: string | null; input?: { payloads?: RawPayload[] | null } | null } | null;
  upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: { indexedFields?: Record<string, RawPayload> | null } | null } | null;
  workflowExecutionStartedEventAttributes?: { searchAttributes?: { indexedFields?: Record<string, RawPayload> | null } | null } | null;
  workflowExecutionCompletedEventAttributes?: unknown;
  workflowExecutionFailedEventAttributes?: unknown;
  workflowExecutionContinuedAsNewEventAttributes?: unknown;
  workflowExecutionTerminatedEventAttributes?: unknown;
}

function decode(payload: RawPayload | undefined): unknown {
  if (!payload?.data) return undefined;
  try {
    return JSON.parse(Buffer.from(payload.data).toString('utf8'));
  } catch {
    return undefined;
  }
}

// The observation's shape as the gateway and the poller send it (workflows/ledger/observation.ts); read defensively.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** GitLab's final pipeline states in GitHub's conclusion words (as the ticket reads them). */
const PIPELINE_CONCLUSION: Readonly<Record<string, string>> = { success: 'success', failed: 'failure', canceled: 'cancelled', skipped: 'skipped' };

function factOf(observation: Json): ObservedFact {
  const facts = (observation.facts ?? {}) as Json;
  const pipeline = facts.pipeline as Json | undefined;
  return {
    event: String(observation.event ?? ''),
    ...(facts.comment?.id !== undefined ? { commentId: String(facts.comment.id) } : {}),
    ...(Array.isArray(facts.label_change?.added) ? { labelsAdded: facts.label_change.added as string[] } : {}),
    ...(Array.isArray(facts.labels) ? { labels: facts.labels as string[] } : {}),
    ...(facts.check_run ? { check: { sha: String(facts.check_run.head_sha), conclusion: facts.check_run.conclusion ?? null } } : {}),
    ...(pipeline ? { check: { sha: String(pipeline.sha), conclusion: PIPELINE_CONCLUSION[String(pipeline.status)] ?? null } } : {}),
    ...(facts.review?.state ? { reviewState: String(facts.review.state) } : {}),
    ...(facts.pull_request?.merged === true ? { merged: true } : {}),
  };
}

function searchAttributeMoments(fields: Record<string, RawPayload> | null | undefined): HistoryMoment[] {
  const moments: HistoryMoment[] = [];
  const node = decode(fields?.ServiceNode ?? undefined);
  if (typeof node === 'string') moments.push({ kind: 'node', node });
  const blocked = decode(fields?.ServiceBlocked ?? undefined);
  if (typeof blocked === 'boolean') moments.push({ kind: 'blocked', blocked });
  return moments;
}

/** The moments of one run's history, in order: observations received, the node and the block as published, the end. */
export function historyMoments(events: RawHistoryEvent[]): HistoryMoment[] {
  const moments: HistoryMoment[] = [];
  for (const event of events) {
    if (event.workflowExecutionStartedEventAttributes) moments.push(...searchAttributeMoments(event.workflowExecutionStartedEventAttributes.searchAttributes?.indexedFields));
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === 'observe') {
      const observation = decode(signal.input?.payloads?.[0] ?? undefined);
      if (observation && typeof observation === 'object') moments.push({ kind: 'observed', fact: factOf(observation as Json) });
    }
    const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
    if (upsert) moments.push(...searchAttributeMoments(upsert.searchAttributes?.indexedFields));
    if (event.workflowExecutionCompletedEventAttributes) moments.push({ kind: 'closed', how: 'completed' });
    if (event.workflowExecutionFailedEventAttributes) moments.push({ kind: 'closed', how: 'failed' });
    if (event.workflowExecutionTerminatedEventAttributes) moments.push({ kind: 'closed', how: 'terminated' });
    if (event.workflowExecutionContinuedAsNewEventAttributes) moments.push({ kind: 'closed', how: 'continued-as-new' });
  }
  return moments;
}

const DRAFT_EDIT = /^\/service (update|remove|exclude|add)\b/;

function describe(action: PersonAction): string {
  switch (action.kind) {
    case 'comment': return `comment "${action.text.slice(0, 80)}"`;
    case 'label': return `label ${action.label}`;
    case 'check': return `CI ${action.conclusion}`;
    case 'review': return 'review asking for changes';
    case 'approve-pr': return 'approval of the pull request';
    case 'merge': return 'merge';
  }
}

/** Does this observation carry this action? */
function carries(fact: ObservedFact, acted: AcknowledgedAction): boolean {
  const { action } = acted;
  switch (action.kind) {
    case 'comment': return fact.commentId !== undefined && fact.commentId === acted.commentId;
    // A label change arrives as a change (webhook, changelog) or, from a poll, as the ticket's labels with it.
    case 'label': return Boolean(fact.labelsAdded?.includes(action.label) || (fact.event === 'issue_updated' && !fact.labelsAdded && fact.labels?.includes(action.label)));
    case 'check': return fact.check !== undefined && fact.check.conclusion === action.conclusion && (acted.headSha === undefined || fact.check.sha === acted.headSha);
    // GitLab has no review that asks for changes: a person's note (or diff thread) on the merge request is one.
    case 'review': return fact.reviewState === 'changes_requested' || (fact.event === 'note' && fact.commentId !== undefined);
    case 'approve-pr': return fact.reviewState === 'approved';
    case 'merge': return fact.merged === true;
  }
}

/** True when, after moment `from`, the ticket left `position` (or lifted its block), or its workflow ended. */
function leftAfter(moments: HistoryMoment[], from: number, acted: AcknowledgedAction): boolean {
  for (const moment of moments.slice(from + 1)) {
    if (moment.kind === 'closed' && moment.how === 'completed') return true;
    if (moment.kind === 'node' && moment.node !== acted.position) return true;
    if (acted.blocked && moment.kind === 'blocked' && !moment.blocked) return true;
  }
  return false;
}

export function checkActionsReflected(actions: AcknowledgedAction[], momentsOf: (ticket: string) => HistoryMoment[] | undefined): { checked: number; violations: Violation[] } {
  const violations: Violation[] = [];
  const claimed = new Map<string, Set<number>>();
  let checked = 0;
  for (const acted of actions) {
    if (acted.afterCompletion) continue;
    const moments = momentsOf(acted.ticket);
    if (!moments) continue;
    checked += 1;
    const taken = claimed.get(acted.ticket) ?? new Set<number>();
    claimed.set(acted.ticket, taken);
    // The first delivery that carries it and no earlier action claimed (a duplicate delivery stays unclaimed).
    const at = moments.findIndex((moment, index) => moment.kind === 'observed' && !taken.has(index) && carries(moment.fact, acted));
    const what = `${describe(acted.action)} at ${acted.position} (+${(acted.atMs / 1000).toFixed(1)} s)`;
    if (at < 0) {
      violations.push({ invariant: 'each acknowledged action reaches the workflow', ticket: acted.ticket, write: what, detail: `the simulator accepted it, but no observation carrying it is in the ticket's history (${moments.filter((m) => m.kind === 'observed').length} observations received)` });
      continue;
    }
    taken.add(at);
    const isDraftEdit = acted.action.kind === 'comment' && DRAFT_EDIT.test(acted.action.text);
    if (!isDraftEdit && !leftAfter(moments, at, acted)) {
      const later = moments.slice(at + 1).filter((m) => m.kind === 'node').map((m) => (m as { node: string }).node);
      violations.push({ invariant: 'each acknowledged action is reflected', ticket: acted.ticket, write: what, detail: `the workflow received it but never left ${acted.position}${acted.blocked ? ' (blocked)' : ''} afterwards (nodes published after it: ${later.join(', ') || 'none'})` });
    }
  }
  return { checked, violations };
}
