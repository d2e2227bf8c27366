import {
  allHandlersFinished, condition, continueAsNew, proxyActivities, proxySinks, setHandler,
  workflowInfo } from '@temporalio/workflow';
import type { ProjectConfigActivities } from '../../activities/project-config-activities';
import {
  blockedComment, clearReviewResponseState, enterBlocked, leaveBlocked, setupInstructionsComment,
  type BlockingCode } from './blocking';
import { applyRetention } from './retention';
import { runEffect, type EffectContext } from '../effects/effect-runner';
import type { EffectOperation } from '../effects/effect-types';
import { parseCommand } from '../person-commands/command-parser';
import { observeSignal } from '../messages';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import type { Observation, TicketWorkflowInput, TicketWorkflowSettings } from '../ledger/observation';
import { recordObservation } from '../ledger/record-observation';
import { DEFAULT_SETTINGS, INTAKE_NODE, initialTicketState, type TicketState } from './ticket-state';
import { publishSearchAttributes, rememberPullRequest, searchAttributeSnapshot } from '../read-model/ticket-search-attributes';
import { registerReadAndReplayHandlers } from '../read-model/read-and-replay-handlers';
import { appendTimeline } from '../read-model/timeline';
import { BLOCKED_LABEL, RETRY_LABEL } from '../vocabulary/labels';
import { REVIEW_RETRY_TARGET_BEFORE_FIELDS } from '../built-in-definitions/node-behaviour-before-fields';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();

const { checkProjectRepositories } = proxyActivities<ProjectConfigActivities>({
  // Two reads: a short timeout lets a retry on another worker happen soon when a worker dies mid-call.
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 5, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});


function nowIso(): string {
  // Workflow time: deterministic on replay.
  return new Date().toISOString();
}

function settingsOf(input: TicketWorkflowInput): TicketWorkflowSettings {
  return {
    effect_timeout_seconds: input.settings?.effect_timeout_seconds ?? DEFAULT_SETTINGS.effect_timeout_seconds,
    history_event_limit: input.settings?.history_event_limit ?? DEFAULT_SETTINGS.history_event_limit,
    retention: { ...DEFAULT_SETTINGS.retention, ...input.settings?.retention },
  };
}

/**
 * What the phases of one v0.1 run share. The phases keep the async shape they had as closures of the run (which ones
 * await, which hand back a promise) and the main loop stays in legacyTicketRun: within one activation, the commands of
 * two coroutines (the loop and an operator's effect replay) are ordered by the awaits each passes through, so an extra
 * async layer could reorder them.
 */
interface LegacyRun {
  input: TicketWorkflowInput;
  settings: TicketWorkflowSettings;
  state: TicketState;
  effects: EffectContext;
  /** The search-attribute snapshot last published, so that an unchanged state is not published again. */
  published: string;
}

/**
 * The v0.1 ticket workflow, before the station runtime: it records the ticket at intake and then only listens.
 * Kept unchanged so that tickets started by that build (and their recorded histories, test/fixtures/histories/)
 * replay deterministically: ticketWorkflow runs this when its `station-runtime` patch marker is absent from the
 * history, or when it continues a chain whose state has no pinned definition.
 */
export async function legacyTicketRun(input: TicketWorkflowInput, carried?: TicketState): Promise<void> {
  const info = workflowInfo();
  const settings = settingsOf(input);
  const state = carried ?? initialTicketState(input, info.firstExecutionRunId, nowIso());
  const effects: EffectContext = { journal: state.effects, timeline: state.timeline, ticketKey: input.ticket_key, runId: state.run_id, now: nowIso };
  const run: LegacyRun = { input, settings, state, effects, published: '' };

  recordStart(run, carried, info.runId);
  registerHandlers(run, info.workflowId);

  publish(run);
  if (!carried) await intake(run);
  publish(run);

  for (;;) {
    await condition(() => state.inbox.length > 0 || historyIsLong(settings));
    for (let next = state.inbox.shift(); next !== undefined; next = state.inbox.shift()) {
      if (next.decision === 'accepted') await handleAccepted(run, next.observation);
      else await block(run, 'conflicting_evidence', `conflicting provider evidence: ${next.reason}`);
      publish(run);
    }
    if (historyIsLong(settings)) {
      await condition(allHandlersFinished);
      if (state.inbox.length === 0) {
        trimForContinueAsNew(run);
        await continueAsNew<typeof legacyTicketRun>(input, state);
      }
    }
  }
}

function recordStart({ input, state }: LegacyRun, carried: TicketState | undefined, runId: string): void {
  if (carried) {
    appendTimeline(state.timeline, {
      kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
      summary: 'History compacted with continue-as-new; state carried over', details: { run_id: runId },
    });
  } else {
    serviceMetrics.workflowStarted(input.workflow_kind);
    appendTimeline(state.timeline, {
      kind: 'workflow_started', occurred_at: state.started_at, status: state.status,
      summary: `Ticket workflow started for ${input.ticket_key} (${input.workflow_kind})`,
      details: { issue_type: input.issue_type, project_key: input.project_key, run_id: state.run_id },
    });
  }
}

function registerHandlers({ settings, state, effects }: LegacyRun, workflowId: string): void {
  // The ledger decides at once, even while the main loop awaits an activity: the timeline and the execution view
  // never lag behind deliveries. Accepted and conflicting facts queue for the main loop, which may await effects.
  setHandler(observeSignal, (observation) => {
    const verdict = recordObservation(state, observation, nowIso());
    if (verdict.decision === 'accepted' || verdict.decision === 'conflict') state.inbox.push({ observation, decision: verdict.decision, reason: verdict.reason });
  });
  registerReadAndReplayHandlers(state, workflowId, effects, settings.effect_timeout_seconds, nowIso);
}

function publish(run: LegacyRun): void {
  const snapshot = searchAttributeSnapshot(run.state);
  if (snapshot !== run.published) {
    publishSearchAttributes(run.state);
    run.published = snapshot;
  }
}

function historyIsLong(settings: TicketWorkflowSettings): boolean {
  // Temporal suggests continue-as-new for large histories; a deployment may ask for it sooner.
  return workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= settings.history_event_limit;
}

function trimForContinueAsNew({ settings, state }: LegacyRun): void {
  const trimmed = applyRetention(state, settings.retention);
  appendTimeline(state.timeline, {
    kind: 'workflow_continued', occurred_at: nowIso(), status: state.status,
    summary: `Continuing as new after ${workflowInfo().historyLength} history events; retention trimmed ${trimmed.timeline} timeline entries and ${trimmed.effects} finished effects`,
    details: { ...trimmed, history_length: workflowInfo().historyLength },
  });
}

async function effect(run: LegacyRun, operation: EffectOperation, required = false) {
  const { settings, state, effects } = run;
  const record = await runEffect(effects, { node: state.checkpoint.current_node, operation, required, timeoutSeconds: settings.effect_timeout_seconds });
  // Fail closed: a required write that did not happen stops the ticket instead of letting it run on without it.
  if (required && record.status !== 'succeeded') {
    await block(run, 'effect_unresolved', `required effect ${record.operation.kind} (${record.idempotency_key}) ended ${record.status}: ${record.attempts.at(-1)?.error ?? 'no detail'}`);
  }
  return record;
}

async function block(run: LegacyRun, code: BlockingCode, message: string, comment?: string) {
  const { input, state } = run;
  if (!enterBlocked(state, code, message, nowIso())) return;
  serviceMetrics.ticketBlocked(code);
  appendTimeline(state.timeline, {
    kind: 'transition', occurred_at: nowIso(), status: 'blocked',
    summary: `Blocked at ${state.checkpoint.current_node}: ${message}`, details: { code, node: state.checkpoint.current_node },
  });
  publish(run);
  // These effects report the block; they are not required, or a failure to report would block a blocked ticket.
  await effect(run, { kind: 'tracker.labels', issue_key: input.ticket_key, add: [BLOCKED_LABEL], remove: [] });
  await effect(run, {
    kind: 'tracker.comment', issue_key: input.ticket_key,
    body: comment ?? blockedComment({ node: state.checkpoint.current_node, code, message, ticketKey: input.ticket_key }),
  });
}

async function intake(run: LegacyRun) {
  const { input, state } = run;
  let check;
  try {
    check = await checkProjectRepositories({ project_key: input.project_key });
  } catch (error) {
    return block(run, 'missing_project_config', `the project configuration of ${input.project_key} could not be read: ${(error as Error).message}`);
  }
  if (check.status === 'missing') {
    const what = [...check.missing, ...check.problems].join('; ');
    return block(run, 'missing_project_config', `project ${input.project_key} has no usable repository configuration (${what})`,
      setupInstructionsComment({ projectKey: input.project_key, missing: check.missing.length ? check.missing : check.problems, requireProjectConfig: check.require_project_config }));
  }
  appendTimeline(state.timeline, {
    kind: 'station_attempt', occurred_at: nowIso(), status: check.status,
    summary: check.status === 'configured'
      ? `Project configuration found (${check.source}): ${check.repositories.join(', ')}`
      : `Project configuration not checked: ${check.reason}`,
    details: { station: 'project_configuration', ...check },
  });
}

function removeRetryLabel(run: LegacyRun) {
  return effect(run, { kind: 'tracker.labels', issue_key: run.input.ticket_key, add: [], remove: [RETRY_LABEL] });
}

async function retry(run: LegacyRun, mode: 'resume' | 'review_response' | 'regenerate', observation: Observation) {
  const { input, state } = run;
  const now = nowIso();
  if (mode === 'resume') {
    const since = state.waiting?.since;
    if (since) serviceMetrics.waitEnded(Math.max(0, (Date.parse(now) - Date.parse(since)) / 1000));
    const { resumedAt, code } = leaveBlocked(state, now);
    state.checkpoint.ci_fix_attempts = 0;
    appendTimeline(state.timeline, {
      kind: 'transition', occurred_at: now, status: 'resumed', summary: `${RETRY_LABEL}: resumed at ${resumedAt}`,
      details: { from_code: code, delivery_identity: observation.delivery_identity, retry_count: state.retry_count },
    });
    publish(run);
    await effect(run, { kind: 'tracker.labels', issue_key: input.ticket_key, add: [], remove: [RETRY_LABEL, BLOCKED_LABEL] });
    if (resumedAt === INTAKE_NODE) await intake(run);
    return;
  }
  if (mode === 'review_response') {
    clearReviewResponseState(state);
    // v0.1 tickets run the feature graph of that build, whose review-response gate had no `retry_to`.
    state.checkpoint.current_node = REVIEW_RETRY_TARGET_BEFORE_FIELDS;
    state.checkpoint.is_paused = false;
    appendTimeline(state.timeline, {
      kind: 'transition', occurred_at: now, status: 'resumed', summary: `${RETRY_LABEL}: review state cleared, back to human_review_gate`,
      details: { delivery_identity: observation.delivery_identity, force_fresh_invoke: true },
    });
  }
  await removeRetryLabel(run);
}

/** Where a reply to a command goes: the pull request it was written on (GitHub), else the ticket. */
function reply(run: LegacyRun, observation: Observation, body: string) {
  const pr = observation.facts.pull_request;
  if (observation.source_system === 'scmhost' && pr && observation.facts.repository) {
    return effect(run, { kind: 'scmhost.pr_comment', repository: observation.facts.repository, number: pr.number, body });
  }
  return effect(run, { kind: 'tracker.comment', issue_key: run.input.ticket_key, body });
}

async function handleAccepted(run: LegacyRun, observation: Observation) {
  const { input, state } = run;
  rememberPullRequest(state, observation);
  const decision = parseCommand(observation, {
    workflow_kind: input.workflow_kind,
    current_node: state.checkpoint.current_node,
    is_blocked: state.checkpoint.is_blocked,
    is_paused: state.checkpoint.is_paused,
    has_pull_request: state.pull_requests.length > 0,
    accepts: {},
    gates: {},
  });
  appendTimeline(state.timeline, {
    kind: 'command_decision',
    occurred_at: nowIso(),
    status: decision.kind === 'command' ? 'accepted' : decision.kind === 'ignore' ? 'ignored' : 'invalid',
    summary: decision.kind === 'command' ? `command ${decision.command.type} at ${state.checkpoint.current_node}` : decision.reason,
    details: { delivery_identity: observation.delivery_identity, node: state.checkpoint.current_node, ...(decision.kind === 'command' ? { command: decision.command } : { reason: decision.reason }) },
  });
  if (decision.kind === 'ignore') {
    // The label is a request; once answered (even with "nothing to retry") it should not linger on the ticket.
    if (observation.facts.label_change?.added.includes(RETRY_LABEL)) await removeRetryLabel(run);
    return;
  }
  if (decision.kind === 'invalid') {
    await reply(run, observation, decision.reply);
    if (decision.blocks) await block(run, 'unrecognized_command', decision.reason);
    return;
  }
  const command = decision.command;
  switch (command.type) {
    case 'retry':
      return retry(run, command.mode, observation);
    case 'skip_gate':
    case 'unskip_gate': {
      const skipped = new Set(state.checkpoint.ci_skipped_checks);
      if (command.type === 'skip_gate') skipped.add(command.match);
      else skipped.delete(command.match);
      state.checkpoint.ci_skipped_checks = [...skipped].sort();
      const verb = command.type === 'skip_gate' ? 'Skipping' : 'No longer skipping';
      await reply(run, observation, `✅ ${verb} CI checks whose name contains \`${command.check}\` (skipped now: ${state.checkpoint.ci_skipped_checks.map((c) => `\`${c}\``).join(', ') || 'none'}).`);
      if (observation.source_system !== 'tracker') {
        await effect(run, { kind: 'tracker.comment', issue_key: input.ticket_key, body: `ℹ️ ${verb} CI checks matching \`${command.match}\`, as asked on the pull request.` });
      }
      return;
    }
    default:
      // Accepted at a position where it is meaningful; the stations that act on it are not part of this version.
      return;
  }
}
