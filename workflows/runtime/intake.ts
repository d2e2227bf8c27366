import { patched, proxyActivities, proxySinks } from '@temporalio/workflow';
import { clearReviewResponseState, leaveBlocked, UNKNOWN_COMMAND_ONE_ANSWER_PATCH, unknownCommandBlockNote } from './blocking';
import { parseCommand, type Command } from '../person-commands/command-parser';
import { ticketCommentRequest } from '../person-commands/command-comments';
import { permittedCommands } from '../read-model/execution-view';
import { ignoredRequestOf, ONE_REPLY_PATCH, requestReplyName, type IgnoredRequest } from '../person-commands/ignored-request';
import { BEFORE_MANAGEMENT, BEFORE_MANAGEMENT_PATCH, beforeManagement, madeAt, managementFor, noteManagement } from './management-moment';
import { rcaOptionCount } from './routers';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import type { Observation, TicketWorkflowInput } from '../ledger/observation';
import { requestReply, statusReply } from '../person-commands/status-reply';
import { draftIdsAtGate } from '../person-commands/draft-gate';
import { pullRequestRefOf, REBASE_MERGED_PATCH, rebaseDecision } from './rebase-decision';
import { noteAcceptedPullRequest } from './merge-progress';
import { noteProposalEvent, proposalPosition } from '../person-commands/proposal-review';
import type { DraftCommand } from '../person-commands/drafts';
import type { DraftEditActivities } from '../../activities/draft-edit-activities';
import type { TicketState } from './ticket-state';
import { rememberPullRequest } from '../read-model/ticket-search-attributes';
import { isStopRequest, KILL_SWITCH_PATCH } from './kill-switch';
import { actorIdsOf } from '../person-commands/trusted-actors';
import { applyPosition, positionOf } from './position';
import { NO_DEFINITION, reviewRetryPosition } from './step';
import { nowIso } from './clock';
import type { TicketDriver } from './ticket-driver';
import { BLOCKED_LABEL, MANAGED_LABEL, RETRY_LABEL, YOLO_LABEL } from '../vocabulary/labels';
import { TRIGGER } from '../vocabulary/command-words';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();
const { editDraft } = proxyActivities<DraftEditActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });

/** service:yolo standing at a ticket's start counts only from an allowed actor (histories from before: from anyone). */
export const TRUSTED_YOLO_AT_START_PATCH = 'trusted-yolo-at-start';

/** service:retry at a review-response gate names its label write apart from the resume's (histories from before shared one). */
export const REVIEW_RETRY_OWN_LABELS_PATCH = 'review-retry-own-labels';

/** A ticket comment asking a question (`?` or `@service ask`, REFERENCE "Commands"). */
function isQuestion(observation: Observation): boolean {
  return observation.event === 'issue_commented' && ticketCommentRequest(observation.facts.comment?.body ?? '') === 'question';
}

/**
 * The command intake of the station runtime (SPEC 2.4, 3.2): an accepted delivery is judged (made before the service
 * took the ticket? by an allowed actor?), parsed at the ticket's position, answered where it means nothing, and
 * handed to the step function as an event where it does.
 */
export function createCommandHandler(input: TicketWorkflowInput, state: TicketState, driver: TicketDriver): (observation: Observation) => Promise<void> {
  const { runtime, artifacts, outputs, ticketKey, publish, timeline, visit, effect, runIntents, block, reply, decide, actorAllowed, ignoreUntrusted, gateWaiting, stopTicket } = driver;

  const retry = async (mode: 'resume' | 'review_response' | 'regenerate', observation: Observation, command: Command) => {
    const now = nowIso();
    if (mode === 'regenerate') {
      await effect(`reply_${state.observations_received}_retry_label`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [RETRY_LABEL] });
      return gateCommand(command, observation);
    }
    const removeLabels = (episode: number) => effect(`retry_${episode}_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: mode === 'resume' ? [RETRY_LABEL, BLOCKED_LABEL] : [RETRY_LABEL] });
    if (mode === 'review_response') {
      const back = reviewRetryPosition(driver.definition() ?? NO_DEFINITION, positionOf(state.checkpoint, runtime));
      clearReviewResponseState(state);
      applyPosition(state.checkpoint, runtime, back);
      timeline({
        kind: 'transition', occurred_at: now, status: 'resumed', summary: `${RETRY_LABEL}: review state cleared, back to ${back.node}`,
        details: { delivery_identity: observation.delivery_identity, force_fresh_invoke: true },
      });
      // A write of its own: under the resume's name, a block at the review gate's new visit resumed by service:retry
      // would plan this key again, the journal would adopt this write, and service:blocked would stay on the ticket.
      if (patched(REVIEW_RETRY_OWN_LABELS_PATCH)) await effect(`review_retry_${state.retry_count}_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [RETRY_LABEL] });
      else await removeLabels(state.retry_count);
      return;
    }
    const since = state.waiting?.since;
    if (since) serviceMetrics.waitEnded(Math.max(0, (Date.parse(now) - Date.parse(since)) / 1000));
    const episode = state.retry_count;
    const { resumedAt, code } = leaveBlocked(state, now);
    const here = driver.definition()?.nodes[resumedAt];
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

  /** An allowed person's valid command after an unknown one: the block goes, then the command is carried out. */
  const clearCommandBlock = async (observation: Observation) => {
    const episode = state.retry_count;
    const { resumedAt, code } = leaveBlocked(state, nowIso(), 'corrected_command');
    const here = driver.definition()?.nodes[resumedAt];
    if (here?.kind === 'gate') gateWaiting(resumedAt, here);
    timeline({
      kind: 'transition', occurred_at: nowIso(), status: 'resumed', summary: `a corrected command cleared the block at ${resumedAt}`,
      details: { from_code: code, delivery_identity: observation.delivery_identity, retry_count: state.retry_count },
    });
    publish();
    await effect(`corrected_${episode}_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [BLOCKED_LABEL] });
  };

  /** `/service remove|exclude|update|add` at a draft gate: edit the draft in place, answer, re-post it. */
  const draftEdit = async (command: DraftCommand, observation: Observation) => {
    const node = state.checkpoint.current_node;
    const spec = driver.definition()?.nodes[node];
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
    const decision = rebaseDecision(driver.definition(), state, command.pull_request ? pullRequestRefOf(command.pull_request, observation) : null, { mergedAware });
    if (decision.type === 'refuse') {
      timeline({ kind: 'command_decision', occurred_at: nowIso(), status: 'rejected', summary: `/service rebase at ${from}: ${decision.reason}`, details: { node: from, delivery_identity: observation.delivery_identity } });
      // Refused where the ticket stands: answered once per position, like an ignored request (patched).
      const request: IgnoredRequest = { asked: TRIGGER.rebase, on: observation.source_system === 'scmhost' ? 'pull_request' : 'ticket', remove_labels: [] };
      const name = patched(ONE_REPLY_PATCH) ? requestReplyName(request, { is_blocked: state.checkpoint.is_blocked, retry_count: state.retry_count }) : `${replyName}_rebase`;
      const body = mergedAware
        ? requestReply({ ticketKey, asked: TRIGGER.rebase, reason: decision.reason, state, permitted: permittedCommands(state), removedLabels: [] })
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
   * A person's request ignored where the ticket stands (workflows/person-commands/ignored-request.ts): its request labels are taken off
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
      // An event of a provisioned child (an epic or task routed to its feature): recorded; the code-change stations read
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
    const starting = observation.event === 'issue_created' || observation.facts.label_change?.added.includes(MANAGED_LABEL);
    let judged = observation;
    if (starting && !runtime.yolo && observation.facts.labels?.includes(YOLO_LABEL)) {
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
    const here = driver.definition()?.nodes[state.checkpoint.current_node];
    // A ticket blocked at a gate by an unknown command reads the next command as if unblocked: the corrected command
    // clears the block by itself (issue 43; patched: histories from before waited for service:retry). Elsewhere a
    // station would have to run again, which only service:retry asks for. service:retry itself is read as a blocked
    // ticket reads it (resume at the gate), not as an unblocked gate does (regenerate).
    const retryLabelled = judged.facts.label_change?.added.includes(RETRY_LABEL) ?? false;
    const correcting = state.checkpoint.is_blocked && state.checkpoint.is_paused && state.waiting?.code === 'unrecognized_command'
      && here?.kind === 'gate' && !retryLabelled && patched(UNKNOWN_COMMAND_ONE_ANSWER_PATCH);
    const decision = parseCommand(judged, {
      workflow_kind: input.workflow_kind,
      current_node: state.checkpoint.current_node,
      accepts: driver.accepts(),
      is_blocked: state.checkpoint.is_blocked && !correcting,
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
      // One answer: the ❌ reply says that it blocks and how to go on; the block adds its label only.
      // A ticket already blocked for another reason keeps that block: the reply says only what was wrong.
      if (decision.blocks && (correcting || (!state.checkpoint.is_blocked && patched(UNKNOWN_COMMAND_ONE_ANSWER_PATCH)))) {
        await reply(replyName, observation, `${decision.reply}\n\n${unknownCommandBlockNote(state.checkpoint.current_node)}`);
        return block('unrecognized_command', decision.reason, null);
      }
      await reply(replyName, observation, decision.reply);
      if (decision.blocks) await block('unrecognized_command', decision.reason);
      return;
    }
    const command = decision.command;
    const trusted = await actorAllowed(command, observation);
    if (!trusted.allowed) return ignoreUntrusted(command, observation, trusted.reason, replyName);
    if (correcting && command.type !== 'retry') await clearCommandBlock(observation);
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

  return handleAccepted;
}
