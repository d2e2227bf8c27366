import {
  allHandlersFinished, condition, continueAsNew, patched, proxyActivities, proxySinks, setCurrentDetails, setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  BLOCKED_LABEL, blockedComment, blockPersistsComment, blockReport, enterBlocked, leaveBlocked, leaveReviewResponseGate, nextBlockRecord,
  REPEATED_BLOCK_PATCH, RETRY_LABEL, type BlockingCode,
} from './blocking';
import { jsonBytes, jsonBytesExceed, truncateStrings } from './bounded-json';
import { parseCommand, type Command } from './command-parser';
import { YOLO_LABEL } from './command-ticket-updates';
import type { GateNode, PinnedDefinition, StationNode } from './definitions/definition-types';
import { acceptTable } from './definitions/definition-types';
import { effectKey } from './effect-journal';
import { runKeyedEffect, type EffectContext } from './effect-runner';
import type { EffectOperation } from './effect-types';
import { currentDetails, permittedCommands } from './execution-view';
import { ignoredRequestOf, ONE_REPLY_PATCH, requestReplyName, type IgnoredRequest } from './ignored-request';
import { BEFORE_MANAGEMENT, BEFORE_MANAGEMENT_PATCH, beforeManagement, madeAt, managementFor, noteManagement } from './management-moment';
import { initialRuntime, rcaOptionCount } from './interpreter';
import { legacyTicketRun } from './legacy-ticket';
import { observeSignal } from './messages';
import type { ServiceMetricsSinks } from './metrics-sink';
import type { Observation, TicketWorkflowInput, TicketWorkflowSettings } from './observation';
import { recordObservation } from './record-observation';
import { applyRetention } from './retention';
import { callStation } from './station-call';
import { stationTrigger } from './station-trigger';
import { requestReply, statusReply } from './status-reply';
import { draftIdsAtGate } from './draft-gate';
import { pullRequestRefOf, REBASE_MERGED_PATCH, rebaseDecision } from './rebase-decision';
import { noteAcceptedPullRequest } from './merge-progress';
import { noteProposalEvent, noteProposalOpened, proposalPosition } from './proposal-review';
import type { DraftCommand } from './drafts';
import type { DraftEditActivities } from '../activities/draft-edit-activities';
import type { EffectIntent, StationInput, StationResult } from './station-types';
import { DEFAULT_SETTINGS, initialTicketState, type Runtime, type StationAttempt, type TicketState } from './ticket-state';
import { startReadModelPublisher } from './read-model-publisher';
import { publishSearchAttributes, rememberPullRequest, searchAttributeSnapshot } from './ticket-search-attributes';
import { registerReadAndReplayHandlers } from './read-and-replay-handlers';
import { registerMigrationUpdate } from './migration-update';
import { appendTimeline } from './timeline';
import { countSpend, spendOf } from './token-spend';
import { isStopRequest, KILL_SWITCH_PATCH, runStoppable, STOP_LABEL } from './kill-switch';
import { holdInboxBehindQuestion, QUEUE_BEHIND_QUESTION_PATCH } from './inbox-drain';
import { actorIdsOf, commandLabelsOf, needsAllowedActor, TRUSTED_ACTORS_PATCH, type AuthorizeActorResult } from './trusted-actors';
import type { ActorActivities } from '../activities/actor-activities';
import { enter } from './runtime/enter';
import { applyPosition, positionOf, stepStateOf } from './runtime/position';
import { NO_DEFINITION, reviewRetryPosition, SKIP_GATE_REEVALUATES_PATCH, step } from './runtime/step';
import type { Action, StepEvent } from './runtime/step-types';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();
const { editDraft } = proxyActivities<DraftEditActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });
const { authorizeActor } = proxyActivities<ActorActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

/** The marker that tells a ticket run by the station runtime from one started by the v0.1 build (replayed as such). */
export const STATION_RUNTIME_PATCH = 'station-runtime';
export { SKIP_GATE_REEVALUATES_PATCH };
/** Runs that keep the read model in their memo (workflows/read-model-publisher.ts); older runs answer by query. */
export const READ_MODEL_PATCH = 'read-model-memo';
/** service:yolo standing at a ticket's start counts only from an allowed actor (histories from before: from anyone). */
export const TRUSTED_YOLO_AT_START_PATCH = 'trusted-yolo-at-start';

/** The station result a step's `record_attempt` and `keep_result` act on. */
interface Returned {
  spec: StationNode;
  result: StationResult;
  base: StationAttempt;
}

const STATION_ATTEMPTS_KEPT = 50;
const OUTPUT_STRING_LIMIT = 2_000;
const ARTIFACT_CHARACTER_LIMIT = 200_000;
/** Comment text kept for a queued command: commands need their beginning, feedback rarely runs longer. */
const INBOX_TEXT_LIMIT = 16_000;

function nowIso(): string {
  // Workflow time: deterministic on replay.
  return new Date().toISOString();
}

function settingsOf(input: TicketWorkflowInput): Required<TicketWorkflowSettings> {
  const given = input.settings ?? {};
  return {
    effect_timeout_seconds: given.effect_timeout_seconds ?? DEFAULT_SETTINGS.effect_timeout_seconds,
    history_event_limit: given.history_event_limit ?? DEFAULT_SETTINGS.history_event_limit,
    retention: { ...DEFAULT_SETTINGS.retention, ...given.retention },
    station_timeout_seconds: given.station_timeout_seconds ?? 900,
    station_heartbeat_seconds: given.station_heartbeat_seconds ?? 30,
    state_byte_limit: given.state_byte_limit ?? 1_500_000,
  };
}

/** A queued observation keeps the beginning of long comment text, so that the inbox (state) stays small. */
function forInbox(observation: Observation): Observation {
  const comment = observation.facts.comment;
  const review = observation.facts.review;
  if ((!comment || comment.body.length <= INBOX_TEXT_LIMIT) && (!review || review.body.length <= INBOX_TEXT_LIMIT)) return observation;
  return {
    ...observation,
    facts: {
      ...observation.facts,
      ...(comment ? { comment: { ...comment, body: comment.body.slice(0, INBOX_TEXT_LIMIT) } } : {}),
      ...(review ? { review: { ...review, body: review.body.slice(0, INBOX_TEXT_LIMIT) } } : {}),
    },
  };
}

/** A ticket comment asking a question (`?` or `@service ask`, REFERENCE "Commands"). */
function isQuestion(observation: Observation): boolean {
  return observation.event === 'issue_commented' && /^\s*(\?|@service\s+ask\b)/i.test(observation.facts.comment?.body ?? '');
}

/**
 * One long-lived workflow per managed ticket (workflow id `ticket-<KEY>`). Tickets started by the v0.1 build (no
 * `station-runtime` marker in their history, or carried state without a pinned definition) keep running the v0.1
 * code, so their histories replay unchanged; every other ticket walks its pinned definition.
 */
export async function ticketWorkflow(input: TicketWorkflowInput, carried?: TicketState): Promise<void> {
  if (!patched(STATION_RUNTIME_PATCH) || (carried !== undefined && carried.definition === undefined)) return legacyTicketRun(input, carried);
  return stationRuntimeRun(input, carried);
}

/**
 * The station interpreter (DESIGN 5, 6): every delivery arrives as an `observe` signal and is decided by the ledger
 * at once; accepted ones become commands only where the pinned definition's node accepts them; stations are
 * activities that return an outcome and the writes they want, which run here as journaled, idempotent effects.
 */
async function stationRuntimeRun(input: TicketWorkflowInput, carried?: TicketState): Promise<void> {
  const info = workflowInfo();
  const settings = settingsOf(input);
  const state: TicketState = carried ?? {
    ...initialTicketState(input, info.firstExecutionRunId, nowIso()),
    definition: input.definition ?? null,
    runtime: initialRuntime(nowIso()),
    artifacts: {},
    outputs: {},
    station_attempts: [],
  };
  const runtime: Runtime = (state.runtime ??= initialRuntime(nowIso()));
  const artifacts = (state.artifacts ??= {});
  const outputs = (state.outputs ??= {});
  const attempts = (state.station_attempts ??= []);
  const pinned: PinnedDefinition | null = state.definition ?? null;
  // `let`: an operator's migration (workflows/migration-update.ts) swaps the pinned definition while the run is idle.
  let definition = pinned?.body ?? null;
  let accepts = definition ? acceptTable(definition) : {};
  const ticketKey = input.ticket_key;
  const effects: EffectContext = { journal: state.effects, timeline: state.timeline, ticketKey, runId: state.run_id, now: nowIso };
  // True only while the main loop waits for a delivery or a command: no station, effect or timer of its own runs.
  let idle = false;
  const readModel = patched(READ_MODEL_PATCH) ? startReadModelPublisher(state, info.workflowId, () => idle) : undefined;

  let published = '';
  const publish = () => {
    const snapshot = searchAttributeSnapshot(state);
    if (snapshot !== published) {
      publishSearchAttributes(state);
      published = snapshot;
    }
    setCurrentDetails(currentDetails(state));
  };
  const timeline = (entry: Parameters<typeof appendTimeline>[1]) => appendTimeline(state.timeline, entry);
  const visit = () => runtime.visits[state.checkpoint.current_node] ?? 1;

  /** Runs one named write of a node's visit (the current one unless named) through the journal; whether it succeeded. */
  const effect = async (name: string, operation: EffectOperation, required = false, at?: { node: string; visit: number }): Promise<boolean> => {
    const node = at?.node ?? state.checkpoint.current_node;
    const key = effectKey({ ticket_key: ticketKey, run_id: state.run_id, node, visit: at?.visit ?? visit(), name });
    const record = await runKeyedEffect(effects, {
      key, node, operation, required, timeoutSeconds: settings.effect_timeout_seconds, summary: `${name} (${operation.kind}) for ${ticketKey} at ${node}`,
    });
    // A write that opened or adopted a pull request names it: the PR joins the ticket's index at once, before any
    // webhook about it arrives.
    const opened = record.status === 'succeeded' ? record.attempts.at(-1)?.evidence?.ids?.pull_request : undefined;
    // A proposal pull request (the PRD or spec under review) is remembered apart: it is not part of the change.
    if (opened && !noteProposalOpened(runtime, operation, opened) && !state.pull_requests.includes(opened)) {
      state.pull_requests.push(opened);
      publish();
    }
    if (required && record.status !== 'succeeded') {
      await block('effect_unresolved', `required effect ${name} (${record.idempotency_key}) ended ${record.status}: ${record.attempts.at(-1)?.error ?? 'no detail'}`);
    }
    return record.status === 'succeeded';
  };
  const runIntents = async (intents: EffectIntent[]): Promise<boolean> => {
    for (const intent of intents) {
      const ok = await effect(intent.name, intent.operation, intent.required ?? false);
      if (!ok && intent.required) return false;
    }
    return true;
  };

  const block = async (code: BlockingCode | string, message: string, comment?: string | null) => {
    if (!enterBlocked(state, code as BlockingCode, message, nowIso())) return;
    serviceMetrics.ticketBlocked(code);
    const node = state.checkpoint.current_node;
    // A retry that ran into the very same block again is told apart from a new block (workflows/blocking.ts).
    const record = nextBlockRecord(runtime.last_block, { node, visit: visit(), code, message });
    runtime.last_block = record;
    timeline({
      kind: 'transition', occurred_at: nowIso(), status: 'blocked',
      summary: `Blocked at ${node}: ${message}${record.repeats > 0 ? ` (the same block again, ${record.repeats} retr${record.repeats === 1 ? 'y' : 'ies'} in a row)` : ''}`,
      details: { code, node, ...(record.repeats > 0 ? { repeats: record.repeats } : {}) },
    });
    publish();
    // These writes report the block; they are not required, or a failure to report would block a blocked ticket.
    // The block count keeps them apart from an earlier block of the same visit (same node, resumed, blocked again).
    const episode = `blocked_${state.retry_count}`;
    await effect(`${episode}_label`, { kind: 'tracker.labels', issue_key: ticketKey, add: [BLOCKED_LABEL], remove: [] });
    if (comment === null) return;
    // Patched: histories from before posted the full comment for every block.
    const report = record.repeats > 0 && patched(REPEATED_BLOCK_PATCH) ? blockReport(record) : 'full';
    if (report === 'full') {
      await effect(`${episode}_comment`, {
        kind: 'tracker.comment', issue_key: ticketKey,
        body: comment ?? blockedComment({ node, code: code as BlockingCode, message, ticketKey }),
      });
    } else if (report === 'persists') {
      await effect(`${episode}_persists`, { kind: 'tracker.comment', issue_key: ticketKey, body: blockPersistsComment({ node, code, message }) });
    }
  };

  /** Carries out `enter`: the phase metric, the position, the ticket runs again, the timeline says why. */
  const enterAt = (action: Extract<Action, { type: 'enter' }>) => {
    const { from, to, outcome, visit: entered, reason, exhausted } = action.transition;
    const now = nowIso();
    serviceMetrics.phaseEnded(from, Math.max(0, (Date.parse(now) - Date.parse(runtime.entered_at)) / 1000));
    applyPosition(state.checkpoint, runtime, action.position);
    runtime.entered_at = now;
    state.status = 'running';
    state.waiting = null;
    timeline({
      kind: 'transition', occurred_at: now, status: outcome,
      summary: `${from} → ${to} (${outcome})${exhausted ? `: ${exhausted.node} reached its retry bound of ${exhausted.bound}` : ''}`,
      details: { from, to, outcome, visit: entered, reason, ...(exhausted ? { exhausted } : {}) },
    });
    publish();
  };

  const recordAttempt = (attempt: StationAttempt) => {
    attempts.push(attempt);
    if (attempts.length > STATION_ATTEMPTS_KEPT) attempts.splice(0, attempts.length - STATION_ATTEMPTS_KEPT);
    timeline({
      kind: 'station_attempt', occurred_at: attempt.finished_at ?? attempt.started_at, status: attempt.status,
      summary: `${attempt.station} at ${attempt.node} (visit ${attempt.visit}): ${attempt.status}${attempt.outcome ? ` → ${attempt.outcome}` : ''}${attempt.summary ? `: ${attempt.summary}` : ''}${attempt.error ? `: ${attempt.error}` : ''}`,
      details: { ...attempt },
    });
  };

  const keepResult = (spec: StationNode, result: StationResult) => {
    if (result.data !== undefined) {
      const data = truncateStrings(result.data, OUTPUT_STRING_LIMIT);
      outputs[spec.station] = jsonBytes(data) <= 64_000 ? data : { truncated: true, bytes: jsonBytes(result.data) };
    }
    for (const [name, artifact] of Object.entries(result.artifacts ?? {})) {
      const previous = artifacts[name];
      artifacts[name] = {
        text: artifact.text.slice(0, ARTIFACT_CHARACTER_LIMIT), digest: artifact.digest, version: (previous?.version ?? 0) + 1, updated_at: nowIso(),
      };
    }
    countSpend(runtime, spec.station, result.usage);
  };

  /** The kill switch: stop requests that arrived while a station runs, for the station's watcher. */
  const stopRequests: Observation[] = [];
  let stationRunning = false;
  /** Trusted input: may the person behind a command give it? (Patched: histories from before asked nobody.) */
  const actorAllowed = async (command: Command, observation: Observation): Promise<AuthorizeActorResult> => {
    if (!needsAllowedActor(command) || !patched(TRUSTED_ACTORS_PATCH)) return { allowed: true, reason: 'no check' };
    return authorizeActor({ project_key: input.project_key, actor_ids: actorIdsOf(observation), action: command.type });
  };
  /** A command from someone not allowed: recorded as ignored with the reason, its label taken off, the person told. */
  const ignoreUntrusted = async (command: Command, observation: Observation, reason: string, replyName: string, labels = commandLabelsOf(observation)) => {
    const who = actorIdsOf(observation)[0] ?? 'an unknown actor';
    timeline({
      kind: 'command_decision', occurred_at: nowIso(), status: 'ignored', summary: `${command.type} by ${who} ignored: ${reason}`,
      details: { node: state.checkpoint.current_node, command: command.type, actor_ids: actorIdsOf(observation), reason, delivery_identity: observation.delivery_identity },
    });
    if (labels.length > 0) await effect(`${replyName}_untrusted_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: labels });
    await reply(`${replyName}_untrusted`, observation, `⚠️ ${labels.length > 0 ? labels.map((l) => `\`${l}\``).join(', ') : `\`${command.type}\``} by ${who} was ignored: ${reason}. Only allowed actors approve and command this ticket.`);
  };
  /** Why a comment or label change of the ticket cannot command it: made before the service took it (patched). */
  const madeBeforeManagement = (observation: Observation): string | undefined => {
    if (observation.ticket_key !== ticketKey || madeAt(observation) === undefined || !patched(BEFORE_MANAGEMENT_PATCH)) return undefined;
    return beforeManagement(observation, managementFor(state.management, state.started_at));
  };
  const stopCounts = async (request: Observation) => patched(KILL_SWITCH_PATCH) && madeBeforeManagement(request) === undefined
    && (await actorAllowed({ type: 'stop', via: 'label' }, request)).allowed;
  /** service:stop or `/service stop`: an operator action; the ticket blocks with `stopped` until service:retry. */
  const stopTicket = async (observation: Observation, cancelled: string | null) => {
    const viaLabel = observation.facts.label_change?.added.includes(STOP_LABEL) ?? false;
    const by = observation.facts.comment?.author ?? observation.facts.actor_ids?.[0] ?? observation.facts.sender ?? 'someone';
    await decide({ type: 'stop', by, via_label: viaLabel, cancelled, delivery_identity: observation.delivery_identity });
  };

  const runStation = async (node: string, visitNo: number, spec: StationNode, params: StationNode['params']) => {
    const started = nowIso();
    const stationInput: StationInput = {
      ticket_key: ticketKey, project_key: input.project_key, issue_type: input.issue_type, workflow_kind: input.workflow_kind,
      run_id: state.run_id, node, station: spec.station, visit: visitNo, model_key: spec.model_key, params,
      artifacts, outputs, request: runtime.request ?? undefined, token_budget: null, spend: spendOf(runtime), pull_requests: [...state.pull_requests],
      ci: { skipped_checks: [...state.checkpoint.ci_skipped_checks], fix_attempts: state.checkpoint.ci_fix_attempts },
      trigger: stationTrigger(runtime, state.last_observation), retry_count: state.retry_count,
    };
    stationRunning = true;
    const run = await runStoppable(() => callStation(spec, stationInput, {
      timeoutSeconds: settings.station_timeout_seconds, heartbeatSeconds: settings.station_heartbeat_seconds,
      summary: `${spec.station} for ${ticketKey} (${node}, visit ${visitNo})`,
    }), stopRequests, stopCounts).finally(() => {
      stationRunning = false;
    });
    const base: StationAttempt = {
      node, station: spec.station, visit: visitNo, started_at: started, finished_at: nowIso(), status: 'succeeded',
      outcome: null, summary: null, error: null, effects: 0, usage: null,
    };
    if (run.stoppedBy && (!run.value || run.value.type === 'error')) {
      recordAttempt({ ...base, status: 'stopped', error: 'cancelled by the kill switch' });
      return stopTicket(run.stoppedBy, spec.station);
    }
    const outcome = run.value!;
    if (outcome.type === 'failure') {
      const { failure } = outcome;
      countSpend(runtime, spec.station, failure.usage);
      recordAttempt({ ...base, status: failure.code === 'station_not_available' ? 'not_available' : 'failed', error: `${failure.code}: ${failure.message}`, effects: failure.effects?.length ?? 0 });
      return decide({ type: 'station_failed', node, code: failure.code, message: failure.message, intents: failure.effects ?? [] });
    }
    if (outcome.type === 'invalid') {
      recordAttempt({ ...base, status: 'invalid', error: outcome.message });
      return decide({ type: 'station_failed', node, code: 'invalid_station_result', message: `${spec.station} returned an invalid result: ${outcome.message}`, intents: [] });
    }
    if (outcome.type === 'error') {
      recordAttempt({ ...base, status: 'failed', error: outcome.message });
      return decide({ type: 'station_failed', node, code: 'station_failed', message: `${spec.station} failed after its retries: ${outcome.message}`, intents: [] });
    }
    const { result } = outcome;
    return decide({ type: 'station_returned', node, station: spec.station, outcome: result.outcome, intents: result.effects ?? [] }, { spec, result, base });
  };

  const gateWaiting = (node: string, spec: GateNode) => {
    state.status = 'waiting';
    state.waiting = {
      code: 'gate', message: spec.waiting_for ?? `waiting at ${node}`, since: nowIso(),
      recovery: `commands accepted here: ${spec.accepts.join(', ')}`,
    };
  };

  const complete = (node: string) => {
    runtime.ended = 'completed';
    state.status = 'completed';
    state.waiting = null;
    serviceMetrics.workflowCompleted(input.workflow_kind);
    timeline({ kind: 'transition', occurred_at: nowIso(), status: 'completed', summary: `Completed at ${node}`, details: { node } });
    publish();
  };

  /** Carries out one action of a step; false when a required write failed (the ticket is blocked, the step ends). */
  const perform = async (action: Action, returned?: Returned): Promise<boolean> => {
    switch (action.type) {
      case 'run_station':
        await runStation(action.node, action.visit, action.spec, action.params);
        break;
      case 'effect':
        if (!(await effect(action.name, action.operation, action.required, action)) && action.required) return false;
        break;
      case 'record_attempt': {
        const { base, result } = returned!;
        recordAttempt({
          ...base, status: action.status, outcome: result.outcome, summary: result.summary ?? null, error: action.error, effects: result.effects?.length ?? 0,
          usage: result.usage ? { input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens } : null,
        });
        break;
      }
      case 'keep_result':
        keepResult(returned!.spec, returned!.result);
        break;
      case 'set_output':
        outputs[action.key] = action.data;
        break;
      case 'approve_artifact': {
        // Trusted input: later stations build on this snapshot, whatever the artifact or the ticket says afterwards.
        const artifact = artifacts[action.artifact];
        if (artifact) artifact.approved = { digest: artifact.digest, at: nowIso(), by: action.by, text: artifact.text };
        break;
      }
      case 'wait_ended':
        if (state.waiting?.since) serviceMetrics.waitEnded(Math.max(0, (Date.parse(nowIso()) - Date.parse(state.waiting.since)) / 1000));
        break;
      case 'set_position':
        applyPosition(state.checkpoint, runtime, action.position);
        break;
      case 'enter':
        enterAt(action);
        break;
      case 'wait':
        applyPosition(state.checkpoint, runtime, action.position);
        gateWaiting(action.node, action.spec);
        publish();
        break;
      case 'record':
        timeline({ kind: action.kind, occurred_at: nowIso(), status: action.status, summary: action.summary, details: action.details });
        break;
      case 'block':
        await block(action.code, action.message, action.comment);
        break;
      case 'complete':
        complete(action.node);
        break;
    }
    return true;
  };

  /** Decides with the step function (workflows/runtime/step.ts) and carries out its actions in order. */
  async function decide(event: StepEvent, returned?: Returned): Promise<void> {
    const { actions } = step(definition ?? NO_DEFINITION, stepStateOf(state), event, { ticketKey, patched });
    for (const action of actions) if (!(await perform(action, returned))) return;
  }

  /** One step at the current node. */
  const act = async () => {
    if (!definition) return block('missing_workflow_route', input.route_error ?? `no workflow definition is pinned for issue type "${input.issue_type ?? ''}"`);
    return decide({ type: 'act' });
  };

  const reply = (name: string, observation: Observation, body: string) => {
    const pr = observation.facts.pull_request;
    if (observation.source_system === 'scmhost' && pr && observation.facts.repository) {
      return effect(name, { kind: 'scmhost.pr_comment', repository: observation.facts.repository, number: pr.number, body });
    }
    return effect(name, { kind: 'tracker.comment', issue_key: ticketKey, body });
  };

  const retry = async (mode: 'resume' | 'review_response' | 'regenerate', observation: Observation, command: Command) => {
    const now = nowIso();
    if (mode === 'regenerate') {
      await effect(`reply_${state.observations_received}_retry_label`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [RETRY_LABEL] });
      return gateCommand(command, observation);
    }
    const removeLabels = (episode: number) => effect(`retry_${episode}_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: mode === 'resume' ? [RETRY_LABEL, BLOCKED_LABEL] : [RETRY_LABEL] });
    if (mode === 'review_response') {
      const back = reviewRetryPosition(definition ?? NO_DEFINITION, positionOf(state.checkpoint, runtime));
      leaveReviewResponseGate(state);
      applyPosition(state.checkpoint, runtime, back);
      timeline({
        kind: 'transition', occurred_at: now, status: 'resumed', summary: `${RETRY_LABEL}: review state cleared, back to ${back.node}`,
        details: { delivery_identity: observation.delivery_identity, force_fresh_invoke: true },
      });
      await removeLabels(state.retry_count);
      return;
    }
    const since = state.waiting?.since;
    if (since) serviceMetrics.waitEnded(Math.max(0, (Date.parse(now) - Date.parse(since)) / 1000));
    const episode = state.retry_count;
    const { resumedAt, code } = leaveBlocked(state, now);
    const here = definition?.nodes[resumedAt];
    if (state.checkpoint.is_paused && here?.kind === 'gate') gateWaiting(resumedAt, here);
    else state.status = 'running';
    timeline({
      kind: 'transition', occurred_at: now, status: 'resumed', summary: `${RETRY_LABEL}: resumed at ${resumedAt}`,
      details: { from_code: code, delivery_identity: observation.delivery_identity, retry_count: state.retry_count },
    });
    publish();
    await removeLabels(episode);
    await decide({ type: 'resumed' });
  };

  /** `/service remove|exclude|update|add` at a draft gate: edit the draft in place, answer, re-post it. */
  const draftEdit = async (command: DraftCommand, observation: Observation) => {
    const node = state.checkpoint.current_node;
    const spec = definition?.nodes[node];
    if (spec?.kind !== 'gate' || !spec.artifact) return;
    const slot = `${node}:${visit()}`;
    const edits = (runtime.draft_edits ??= {});
    const edition = (edits[slot] ?? 0) + 1;
    edits[slot] = edition;
    const result = await editDraft({ ticketKey, artifact: spec.artifact, outputs, command, written: observation.facts.comment?.body, edition });
    if (result.ok) {
      outputs[result.station] = result.output;
      const previous = artifacts[spec.artifact];
      artifacts[spec.artifact] = { text: result.text, digest: result.digest ?? '', version: (previous?.version ?? 0) + 1, updated_at: nowIso() };
    }
    timeline({
      kind: 'command_decision', occurred_at: nowIso(), status: result.ok ? 'applied' : 'rejected',
      summary: result.ok ? `draft edited at ${node} (${command.type})` : `draft edit refused at ${node}: ${result.reason}`,
      details: { node, command: command.type, edition },
    });
    await runIntents(result.intents);
  };

  /**
   * `/service rebase` (REFERENCE "Commands"): the rebase station runs now and returns to where the ticket stood (a
   * gate pauses again). A blocked ticket is answered instead: its saved node must be resumed with service:retry first.
   */
  const rebase = async (command: Extract<Command, { type: 'rebase' }>, observation: Observation, replyName: string) => {
    const from = state.checkpoint.current_node;
    // Patched: histories from before ran the station on a merged pull request and replied with the bare reason.
    const mergedAware = patched(REBASE_MERGED_PATCH);
    const decision = rebaseDecision(definition, state, command.pull_request ? pullRequestRefOf(command.pull_request, observation) : null, { mergedAware });
    if (decision.type === 'refuse') {
      timeline({ kind: 'command_decision', occurred_at: nowIso(), status: 'rejected', summary: `/service rebase at ${from}: ${decision.reason}`, details: { node: from, delivery_identity: observation.delivery_identity } });
      // Refused where the ticket stands: answered once per position, like an ignored request (patched).
      const request: IgnoredRequest = { asked: '/service rebase', on: observation.source_system === 'scmhost' ? 'pull_request' : 'ticket', remove_labels: [] };
      const name = patched(ONE_REPLY_PATCH) ? requestReplyName(request, { is_blocked: state.checkpoint.is_blocked, retry_count: state.retry_count }) : `${replyName}_rebase`;
      const body = mergedAware
        ? requestReply({ ticketKey, asked: '/service rebase', reason: decision.reason, state, permitted: permittedCommands(state), removedLabels: [] })
        : `❌ ${decision.reason}`;
      await reply(name, observation, body);
      return;
    }
    await decide({ type: 'rebase', node: decision.node, target: decision.target });
  };

  /** A command at a gate: move by the outcome the gate maps, or act in place. */
  const gateCommand = (command: Command, observation: Observation) =>
    decide({ type: 'command', command, by: actorIdsOf(observation)[0] ?? observation.source_system, delivery_identity: observation.delivery_identity });

  /**
   * A person's request ignored where the ticket stands (workflows/ignored-request.ts): its request labels are taken off
   * at once, and one reply per request and position says where the ticket stands and what moves it.
   */
  const answerIgnored = async (observation: Observation, reason: string, decisionId: number) => {
    const request = ignoredRequestOf(observation, { kill_switch: patched(KILL_SWITCH_PATCH) });
    if (!request) return;
    if (request.remove_labels.length > 0) {
      // Named by the decision's timeline entry: unique per fact (`reply_<observations received>` is shared by facts
      // handled from one batch of the inbox, and a second removal under the same key would not run).
      await effect(`request_labels_${decisionId}`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: request.remove_labels });
    }
    const body = requestReply({ ticketKey, asked: request.asked, reason, state, permitted: permittedCommands(state), removedLabels: request.remove_labels });
    await reply(requestReplyName(request, { is_blocked: state.checkpoint.is_blocked, retry_count: state.retry_count }), observation, body);
  };

  const handleAccepted = async (observation: Observation) => {
    if (!noteProposalEvent(runtime, observation)) rememberPullRequest(state, observation);
    noteAcceptedPullRequest(state, observation);
    if (observation.ticket_key !== ticketKey) {
      // An event of a provisioned child (an epic or task routed to its feature): recorded; the delivery stations read
      // the children's state from the tracker when they run. A child's comment is never a command of the feature.
      timeline({
        kind: 'command_decision', occurred_at: nowIso(), status: 'ignored',
        summary: `event of child ticket ${observation.ticket_key}: not a command of ${ticketKey}`,
        details: { child: observation.ticket_key, event: observation.event, delivery_identity: observation.delivery_identity },
      });
      return;
    }
    // Only what people write after the service took the ticket commands it (patched: histories from before took all).
    if (patched(BEFORE_MANAGEMENT_PATCH)) {
      state.management = noteManagement(state.management, observation);
      const made = madeAt(observation);
      if (made !== undefined) {
        // Without a starting fact yet, the workflow's start is the moment, and stays it once a fact was judged by it.
        const management = (state.management = managementFor(state.management, state.started_at));
        const before = beforeManagement(observation, management);
        if (before) {
          const decided = timeline({
            kind: 'command_decision', occurred_at: nowIso(), status: 'ignored', summary: before,
            details: {
              delivery_identity: observation.delivery_identity, node: state.checkpoint.current_node, reason: before, code: BEFORE_MANAGEMENT,
              made_at: made, managed_since: management.since, management_source: management.source,
            },
          });
          // No reply, but a request label standing since then is taken off: it did nothing, and while it stands the
          // label cannot be added again when it does mean something.
          const early = ignoredRequestOf(observation, { kill_switch: patched(KILL_SWITCH_PATCH) });
          if (early && early.remove_labels.length > 0) {
            // Named by the decision's entry: unique per fact, also for two facts handled from one batch of the inbox.
            await effect(`early_labels_${decided.event_id}`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: early.remove_labels });
          }
          return;
        }
      }
    }
    // A ticket that starts with service:yolo already on it runs autonomously from the first gate, when the person who
    // started it may switch yolo on (patched: histories from before took the label from anyone).
    const starting = observation.event === 'issue_created' || observation.facts.label_change?.added.includes('service:managed');
    let judged = observation;
    if (starting && !runtime.yolo && observation.facts.labels?.includes('service:yolo')) {
      const yoloOn: Command = { type: 'yolo', enabled: true };
      const trusted = patched(TRUSTED_YOLO_AT_START_PATCH) ? await actorAllowed(yoloOn, observation) : undefined;
      if (!trusted || trusted.allowed) {
        runtime.yolo = true;
        timeline({
          kind: 'command_decision', occurred_at: nowIso(), status: 'accepted', summary: 'service:yolo was on the ticket when it started: planning gates approve themselves',
          details: { delivery_identity: observation.delivery_identity, ...(trusted ? { reason: trusted.reason } : {}) },
        });
      } else {
        // The label stands on the ticket, so it is taken off whether or not this change added it.
        await ignoreUntrusted(yoloOn, observation, trusted.reason, `start_yolo_${state.observations_received}`, [YOLO_LABEL]);
        // Decided once: when this change added the label too, the command boundary does not ask or answer again.
        const change = observation.facts.label_change;
        if (change?.added.includes(YOLO_LABEL)) {
          judged = { ...observation, facts: { ...observation.facts, label_change: { ...change, added: change.added.filter((label) => label !== YOLO_LABEL) } } };
        }
      }
    }
    const here = definition?.nodes[state.checkpoint.current_node];
    const decision = parseCommand(judged, {
      workflow_kind: input.workflow_kind,
      current_node: state.checkpoint.current_node,
      accepts,
      is_blocked: state.checkpoint.is_blocked,
      is_paused: state.checkpoint.is_paused,
      has_pull_request: state.pull_requests.length > 0,
      yolo: runtime.yolo,
      kill_switch: isStopRequest(observation) && patched(KILL_SWITCH_PATCH),
      draft_item_ids: here?.kind === 'gate' && here.artifact ? draftIdsAtGate(here.artifact, outputs) : undefined,
      rca_option_count: here?.kind === 'gate' && here.gate === 'rca_option' ? rcaOptionCount(outputs) : undefined,
      ...proposalPosition(state.checkpoint.current_node, outputs, runtime),
    });
    const decided = timeline({
      kind: 'command_decision',
      occurred_at: nowIso(),
      status: decision.kind === 'command' ? 'accepted' : decision.kind === 'ignore' ? 'ignored' : 'invalid',
      summary: decision.kind === 'command' ? `command ${decision.command.type} at ${state.checkpoint.current_node}` : decision.reason,
      details: { delivery_identity: observation.delivery_identity, node: state.checkpoint.current_node, ...(decision.kind === 'command' ? { command: decision.command } : { reason: decision.reason }) },
    });
    const replyName = `reply_${state.observations_received}`;
    if (decision.kind === 'ignore') {
      if (patched(ONE_REPLY_PATCH)) return answerIgnored(observation, decision.reason, decided.event_id);
      const retryAsked = observation.facts.label_change?.added.includes(RETRY_LABEL) ?? false;
      // A person who asked something where it means nothing gets told where the ticket stands, once per request.
      if (retryAsked || isQuestion(observation)) {
        await effect(`${replyName}_status`, { kind: 'tracker.comment', issue_key: ticketKey, body: statusReply(state, retryAsked ? RETRY_LABEL : 'Your question', decision.reason) });
      }
      // The label is a request; once answered (even with "nothing to retry") it should not linger on the ticket.
      if (retryAsked) await effect(`${replyName}_retry_label`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [RETRY_LABEL] });
      return;
    }
    if (decision.kind === 'invalid') {
      await reply(replyName, observation, decision.reply);
      if (decision.blocks) await block('unrecognized_command', decision.reason);
      return;
    }
    const command = decision.command;
    const trusted = await actorAllowed(command, observation);
    if (!trusted.allowed) return ignoreUntrusted(command, observation, trusted.reason, replyName);
    runtime.trigger = { source_system: observation.source_system, event: observation.event };
    switch (command.type) {
      case 'retry':
        return retry(command.mode, observation, command);
      case 'yolo':
        return decide({ type: 'yolo', enabled: command.enabled });
      case 'skip_gate':
      case 'unskip_gate': {
        await decide({ type: 'ci_skips', skip: command.type === 'skip_gate', match: command.match });
        const verb = command.type === 'skip_gate' ? 'Skipping' : 'No longer skipping';
        await reply(replyName, observation, `✅ ${verb} CI checks whose name contains \`${command.check}\` (skipped now: ${state.checkpoint.ci_skipped_checks.map((c) => `\`${c}\``).join(', ') || 'none'}).`);
        if (observation.source_system !== 'tracker') {
          await effect(`${replyName}_note`, { kind: 'tracker.comment', issue_key: ticketKey, body: `ℹ️ ${verb} CI checks matching \`${command.match}\`, as asked on the pull request.` });
        }
        // Patched inside the step: histories from before did not judge the checks again.
        return decide({ type: 'ci_recheck', via: `/service ${command.type === 'skip_gate' ? 'skip-gate' : 'unskip-gate'}` });
      }
      case 'rebase':
        return rebase(command, observation, replyName);
      case 'stop':
        return stopTicket(observation, null);
      case 'draft_remove':
      case 'draft_exclude':
      case 'draft_update':
      case 'draft_add':
        return draftEdit(command, observation);
      default:
        return gateCommand(command, observation);
    }
  };

  if (carried) {
    timeline({
      kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
      summary: 'History compacted with continue-as-new; state carried over', details: { run_id: info.runId },
    });
  } else {
    serviceMetrics.workflowStarted(input.workflow_kind);
    timeline({
      kind: 'workflow_started', occurred_at: state.started_at, status: state.status,
      summary: `Ticket workflow started for ${ticketKey} (${input.workflow_kind})${pinned ? ` on ${pinned.name} r${pinned.revision}` : ''}`,
      details: {
        issue_type: input.issue_type, project_key: input.project_key, run_id: state.run_id,
        definition: pinned ? { name: pinned.name, revision: pinned.revision, digest: pinned.digest } : null,
      },
    });
    if (definition) {
      applyPosition(state.checkpoint, runtime, enter(definition, positionOf(state.checkpoint, runtime), definition.entry).position);
      runtime.entered_at = nowIso();
      state.status = 'running';
      state.waiting = null;
    }
  }

  setHandler(observeSignal, (observation) => {
    const verdict = recordObservation(state, observation, nowIso());
    if (verdict.decision === 'accepted' || verdict.decision === 'conflict') state.inbox.push({ observation: forInbox(observation), decision: verdict.decision, reason: verdict.reason });
    if (verdict.decision === 'accepted' && stationRunning && observation.ticket_key === ticketKey && isStopRequest(observation)) stopRequests.push(observation);
  });
  registerReadAndReplayHandlers(state, info.workflowId, effects, settings.effect_timeout_seconds, nowIso);
  registerMigrationUpdate(state, {
    isIdle: () => idle, now: nowIso,
    onApplied: () => {
      definition = state.definition!.body;
      accepts = acceptTable(definition);
      publish();
    },
  });

  // Temporal suggests continue-as-new for large histories; a deployment may ask sooner; the state must stay a payload.
  const historyIsLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= settings.history_event_limit;
  const canAct = () => !state.checkpoint.is_blocked && !state.checkpoint.is_paused && runtime.ended === null;

  publish();
  for (;;) {
    for (let next = state.inbox.shift(); next !== undefined; next = state.inbox.shift()) {
      if (next.decision === 'accepted') await handleAccepted(next.observation);
      else await block('conflicting_evidence', `conflicting provider evidence: ${next.reason}`);
      publish();
      // After a `?` the rest waits until the answer is posted (patched: histories from before judged it at the station).
      if (holdInboxBehindQuestion(canAct() && runtime.request?.kind === 'question', state.inbox) && patched(QUEUE_BEHIND_QUESTION_PATCH)) break;
    }
    if (runtime.ended === 'completed' && state.inbox.length === 0) {
      await condition(allHandlersFinished);
      readModel?.flush();
      return;
    }
    if (historyIsLong() || jsonBytesExceed(state, settings.state_byte_limit)) {
      await condition(allHandlersFinished);
      const trimmed = applyRetention(state, settings.retention, settings.state_byte_limit);
      timeline({
        kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
        summary: `Continuing as new after ${workflowInfo().historyLength} history events; retention trimmed ${trimmed.timeline} timeline entries and ${trimmed.effects} finished effects`,
        details: { ...trimmed, history_length: workflowInfo().historyLength, queued_commands: state.inbox.length },
      });
      // The inbox is state: commands that arrived meanwhile travel along and are handled by the next run.
      await continueAsNew<typeof ticketWorkflow>(input, state);
    }
    if (canAct()) {
      await act();
      publish();
      continue;
    }
    idle = true;
    await condition(() => state.inbox.length > 0 || canAct() || historyIsLong());
    idle = false;
  }
}
