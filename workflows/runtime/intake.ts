import { patched } from '@temporalio/workflow';
import { UNKNOWN_COMMAND_ONE_ANSWER_PATCH, unknownCommandBlockNote } from './blocking';
import { parseCommand, type Command, type CommandDecision } from '../person-commands/command-parser';
import { ONE_REPLY_PATCH } from '../person-commands/ignored-request';
import type { Observation, TicketWorkflowInput } from '../ledger/observation';
import { statusReply } from '../person-commands/status-reply';
import { noteAcceptedPullRequest } from './merge-progress';
import { noteProposalEvent } from '../person-commands/proposal-review';
import { commandPositionOf } from './command-position';
import type { TicketState } from './ticket-state';
import { rememberPullRequest } from '../read-model/ticket-search-attributes';
import { isStopRequest, KILL_SWITCH_PATCH } from './kill-switch';
import { nowIso } from './clock';
import type { TicketDriver } from './ticket-driver';
import { RETRY_LABEL, YOLO_LABEL } from '../vocabulary/labels';
import { intakeContext, type IntakeContext } from './intake-context';
import { ignoredAsMadeBefore, recordChildEvent, withoutYoloAdded, yoloStandsAtStart } from './intake-judgement';
import { answerIgnored, isQuestion } from './intake-answers';
import { actorIdsOf } from '../person-commands/trusted-actors';
import { pullRequestRefOf } from './rebase-decision';

/** service:yolo standing at a ticket's start counts only from an allowed actor (histories from before: from anyone). */
export const TRUSTED_YOLO_AT_START_PATCH = 'trusted-yolo-at-start';


/**
 * The command intake of the station runtime (SPEC 2.4, 3.2): an accepted delivery is judged (made before the service
 * took the ticket? by an allowed actor?), parsed at the ticket's position, answered where it means nothing, and
 * handed to the step function as an event where it does.
 */
export function createCommandHandler(input: TicketWorkflowInput, state: TicketState, driver: TicketDriver): (observation: Observation) => Promise<void> {
  const intake = intakeContext(input, state, driver);
  return (observation) => handleAccepted(intake, observation);
}

/**
 * One accepted delivery, from its judgement to the command carried out. Every `await` and every promise returned
 * stays in this one function, where it was before the intake was split into steps: the read-model publisher
 * (workflows/read-model/read-model-publisher.ts) wakes in the same activation as the main loop and writes its memo at
 * the main loop's first pause, so one pause more (an `await` more, or an async step awaited in between) moves that
 * write among this delivery's commands, and recorded histories no longer replay. The steps are synchronous, or are
 * the async commands that were functions of their own before.
 */
async function handleAccepted(intake: IntakeContext, observation: Observation): Promise<void> {
  const { state, runtime, ticketKey, effect, reply, block, decide, decideNow, actorAllowed, ignoreUntrusted, stopTicket } = intake;
  if (!noteProposalEvent(runtime, observation)) rememberPullRequest(state, observation);
  noteAcceptedPullRequest(state, observation);
  if (observation.ticket_key !== ticketKey) {
    recordChildEvent(intake, observation);
    return;
  }
  const madeBefore = ignoredAsMadeBefore(intake, observation);
  if (madeBefore) {
    const { decided, early } = madeBefore;
    if (early && early.remove_labels.length > 0) {
      // Named by the decision's entry: unique per fact, also for two facts handled from one batch of the inbox.
      await effect(`early_labels_${decided.event_id}`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: early.remove_labels });
    }
    return;
  }
  let judged = observation;
  if (yoloStandsAtStart(intake, observation)) {
    const yoloOn: Command = { type: 'yolo', enabled: true };
    const trusted = patched(TRUSTED_YOLO_AT_START_PATCH) ? await actorAllowed(yoloOn, observation) : undefined;
    if (!trusted || trusted.allowed) {
      decideNow({ type: 'yolo_at_start', delivery_identity: observation.delivery_identity, ...(trusted ? { reason: trusted.reason } : {}) });
    } else {
      // The label stands on the ticket, so it is taken off whether or not this change added it.
      await ignoreUntrusted(yoloOn, observation, trusted.reason, `start_yolo_${state.observations_received}`, [YOLO_LABEL]);
      judged = withoutYoloAdded(observation);
    }
  }
  const { decision, correcting } = readCommand(intake, observation, judged);
  const decided = recordDecision(intake, observation, decision);
  const replyName = `reply_${state.observations_received}`;
  if (decision.kind === 'ignore') {
    if (patched(ONE_REPLY_PATCH)) return answerIgnored(intake, observation, decision.reason, decided.event_id);
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
  // The delivery is answered where it came in; a corrected command lifts the block before it is carried out.
  const delivery = { observation, replyName };
  const asked = { by: actorIdsOf(observation)[0] ?? observation.source_system, delivery_identity: observation.delivery_identity };
  if (correcting && command.type !== 'retry') await decide({ type: 'corrected', delivery_identity: asked.delivery_identity });
  runtime.trigger = { source_system: observation.source_system, event: observation.event };
  switch (command.type) {
    case 'retry':
      return decide({ type: 'retry', command, ...asked, request_name: replyName }, { delivery });
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
    case 'rebase': {
      const target = command.pull_request ? pullRequestRefOf(command.pull_request, observation) : null;
      return decide({ type: 'rebase', target, delivery_identity: asked.delivery_identity }, { delivery });
    }
    case 'stop':
      return stopTicket(observation, null);
    case 'draft_remove':
    case 'draft_exclude':
    case 'draft_update':
    case 'draft_add':
      return decide({ type: 'draft_edit', command }, { delivery });
    default:
      return decide({ type: 'command', command, ...asked });
  }
}

/**
 * The judged delivery parsed at the ticket's position. `correcting`: the ticket is blocked at a gate by an unknown
 * command and reads this one as if unblocked.
 */
function readCommand(
  intake: Pick<IntakeContext, 'state' | 'definition' | 'accepts' | 'gates'>,
  observation: Observation, judged: Observation,
): { decision: CommandDecision; correcting: boolean } {
  const { state, definition } = intake;
  const here = definition()?.nodes[state.checkpoint.current_node];
  // A ticket blocked at a gate by an unknown command reads the next command as if unblocked: the corrected command
  // clears the block by itself (issue 43; patched: histories from before waited for service:retry). Elsewhere a
  // station would have to run again, which only service:retry asks for. service:retry itself is read as a blocked
  // ticket reads it (resume at the gate), not as an unblocked gate does (regenerate).
  const retryLabelled = judged.facts.label_change?.added.includes(RETRY_LABEL) ?? false;
  const correcting = state.checkpoint.is_blocked && state.checkpoint.is_paused && state.waiting?.code === 'unrecognized_command'
    && here?.kind === 'gate' && !retryLabelled && patched(UNKNOWN_COMMAND_ONE_ANSWER_PATCH);
  const decision = parseCommand(judged, commandPositionOf(state, { definition: definition(), accepts: intake.accepts(), gates: intake.gates() }, {
    is_blocked: state.checkpoint.is_blocked && !correcting,
    kill_switch: isStopRequest(observation) && patched(KILL_SWITCH_PATCH),
  }));
  return { decision, correcting };
}

/** The command boundary's decision on the timeline: accepted, ignored or invalid, and why. */
function recordDecision({ state, timeline }: Pick<IntakeContext, 'state' | 'timeline'>, observation: Observation, decision: CommandDecision) {
  return timeline({
    kind: 'command_decision',
    occurred_at: nowIso(),
    status: decision.kind === 'command' ? 'accepted' : decision.kind === 'ignore' ? 'ignored' : 'invalid',
    summary: decision.kind === 'command' ? `command ${decision.command.type} at ${state.checkpoint.current_node}` : decision.reason,
    details: { delivery_identity: observation.delivery_identity, node: state.checkpoint.current_node, ...(decision.kind === 'command' ? { command: decision.command } : { reason: decision.reason }) },
  });
}
