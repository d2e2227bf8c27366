import { patched, proxyActivities, proxySinks, setCurrentDetails } from '@temporalio/workflow';
import {
  blockedComment, blockPersistsComment, blockReport, enterBlocked, nextBlockRecord, REPEATED_BLOCK_PATCH, type BlockingCode } from './blocking';
import { jsonBytes, truncateStrings } from './bounded-json';
import type { Command } from '../person-commands/command-parser';
import { acceptTable, type GateNode, type StationNode, type WorkflowDefinition } from '../built-in-definitions/definition-types';
import { effectKey } from '../effects/effect-journal';
import { runKeyedEffect, type EffectContext } from '../effects/effect-runner';
import type { EffectOperation } from '../effects/effect-types';
import { currentDetails } from '../read-model/execution-view';
import { BEFORE_MANAGEMENT_PATCH, beforeManagement, madeAt, managementFor } from './management-moment';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import type { Observation, TicketWorkflowInput, TicketWorkflowSettings } from '../ledger/observation';
import { callStation } from './station-call';
import { stationTrigger } from './station-trigger';
import { noteProposalOpened } from '../person-commands/proposal-review';
import type { EffectIntent, StationInput, StationResult } from './station-types';
import { initialRuntime, type Runtime, type StationAttempt, type TicketState } from './ticket-state';
import { publishSearchAttributes, searchAttributeSnapshot } from '../read-model/ticket-search-attributes';
import { appendTimeline } from '../read-model/timeline';
import { countSpend, spendOf } from './token-spend';
import { KILL_SWITCH_PATCH, runStoppable, STOP_LABEL } from './kill-switch';
import { actorIdsOf, commandLabelsOf, needsAllowedActor, TRUSTED_ACTORS_PATCH, type AuthorizeActorResult } from '../person-commands/trusted-actors';
import type { ActorActivities } from '../../activities/actor-activities';
import { applyPosition, positionOf, stepStateOf } from './position';
import { NO_DEFINITION, step } from './step';
import type { Action, StepEvent } from './step-types';
import { nowIso } from './clock';
import { enter } from './enter';
import { BLOCKED_LABEL } from '../vocabulary/labels';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();
const { authorizeActor } = proxyActivities<ActorActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

/** The station result a step's `record_attempt` and `keep_result` act on. */
interface Returned {
  spec: StationNode;
  result: StationResult;
  base: StationAttempt;
}

const STATION_ATTEMPTS_KEPT = 50;
const OUTPUT_STRING_LIMIT = 2_000;
const ARTIFACT_CHARACTER_LIMIT = 200_000;

export type TicketSettings = Required<TicketWorkflowSettings>;
export type TicketDriver = ReturnType<typeof createTicketDriver>;

/**
 * The driver of the station runtime (DESIGN 5, 6): it carries out what the step function (./step.ts) decides. Writes
 * go through the effect journal under the names, nodes and visits the step gives them; stations run as activities
 * the kill switch can cancel; blocks are reported on the ticket; search attributes follow the state. It decides
 * nothing the step could: what is left here is I/O and the bookkeeping of what it returned.
 */
export function createTicketDriver(input: TicketWorkflowInput, state: TicketState, settings: TicketSettings, effects: EffectContext) {
  const runtime: Runtime = (state.runtime ??= initialRuntime(nowIso()));
  const artifacts = (state.artifacts ??= {});
  const outputs = (state.outputs ??= {});
  const attempts = (state.station_attempts ??= []);
  // `let`: an operator's migration (workflows/registry/migration-update.ts) swaps the pinned definition while the run is idle.
  let definition: WorkflowDefinition | null = state.definition?.body ?? null;
  let accepts = definition ? acceptTable(definition) : {};
  const ticketKey = input.ticket_key;

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
    // A retry that ran into the very same block again is told apart from a new block (workflows/runtime/blocking.ts).
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

  /** The run's first entries: started (and the ticket enters its definition's entry node) or continued as new. */
  const begin = (carried: boolean, runId: string) => {
    if (carried) {
      timeline({
        kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
        summary: 'History compacted with continue-as-new; state carried over', details: { run_id: runId },
      });
    } else {
      serviceMetrics.workflowStarted(input.workflow_kind);
      timeline({
        kind: 'workflow_started', occurred_at: state.started_at, status: state.status,
        summary: `Ticket workflow started for ${ticketKey} (${input.workflow_kind})${state.definition ? ` on ${state.definition.name} r${state.definition.revision}` : ''}`,
        details: {
          issue_type: input.issue_type, project_key: input.project_key, run_id: state.run_id,
          definition: state.definition ? { name: state.definition.name, revision: state.definition.revision, digest: state.definition.digest } : null,
        },
      });
      if (definition) {
        applyPosition(state.checkpoint, runtime, enter(definition, positionOf(state.checkpoint, runtime), definition.entry).position);
        runtime.entered_at = nowIso();
        state.status = 'running';
        state.waiting = null;
      }
    }
  };

  return {
    begin, runtime, artifacts, outputs, ticketKey, publish, timeline, visit, effect, runIntents, block, reply, decide, act, stopTicket,
    actorAllowed, ignoreUntrusted, gateWaiting, stopRequests,
    definition: () => definition,
    accepts: () => accepts,
    /** An operator's migration swapped the pinned definition (workflows/registry/migration-update.ts). */
    setDefinition: (body: WorkflowDefinition) => {
      definition = body;
      accepts = acceptTable(body);
    },
    isStationRunning: () => stationRunning,
  };
}
