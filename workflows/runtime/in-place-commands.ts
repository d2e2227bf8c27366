import { patched, proxyActivities } from '@temporalio/workflow';
import type { DraftEditActivities } from '../../activities/draft-edit-activities';
import type { Observation } from '../ledger/observation';
import { ONE_REPLY_PATCH, requestReplyName, type IgnoredRequest } from '../person-commands/ignored-request';
import { requestReply } from '../person-commands/status-reply';
import { permittedCommands } from '../read-model/execution-view';
import { TRIGGER_LABEL } from '../vocabulary/command-words';
import { nowIso } from './clock';
import type { DriverContext } from './driver-context';
import type { Action } from './step-types';
import type { TicketWrites } from './ticket-writes';

const { editDraft } = proxyActivities<DraftEditActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });

/** The delivery a command came in on: replies answer it there, and a draft edit reads what it wrote. */
export interface AnsweredDelivery {
  observation: Observation;
  /** The name of the writes that answer this delivery (`reply_<n>`). */
  replyName: string;
}

/**
 * What the step decides that the ticket does where it stands, without moving: a refusal answered once, and a draft
 * edited in place. Both need the delivery the command came in on.
 */
export function createInPlaceCommands(
  context: Pick<DriverContext, 'state' | 'runtime' | 'artifacts' | 'outputs' | 'ticketKey' | 'visit' | 'timeline'>,
  { reply, runIntents }: Pick<TicketWrites, 'reply' | 'runIntents'>,
) {
  const { state, runtime, artifacts, outputs, ticketKey, visit, timeline } = context;

  /** Carries out `refuse`: answered once per position (patched), quoting the command as people write it. */
  const refuse = async (action: Extract<Action, { type: 'refuse' }>, delivery: AnsweredDelivery): Promise<void> => {
    const { observation, replyName } = delivery;
    const asked = TRIGGER_LABEL[action.trigger];
    const request: IgnoredRequest = { asked, on: observation.source_system === 'scmhost' ? 'pull_request' : 'ticket', remove_labels: [] };
    const name = patched(ONE_REPLY_PATCH) ? requestReplyName(request, { is_blocked: state.checkpoint.is_blocked, retry_count: state.retry_count }) : `${replyName}_${action.trigger}`;
    const body = action.reply === 'with_position'
      ? requestReply({ ticketKey, asked, reason: action.reason, state, permitted: permittedCommands(state), removedLabels: [] })
      : `❌ ${action.reason}`;
    await reply(name, observation, body);
  };

  /** Carries out `edit_draft`: the activity edits the gate's draft (one edition per command), the timeline says how it went, and its writes answer. */
  const editDraftInPlace = async (action: Extract<Action, { type: 'edit_draft' }>, delivery: AnsweredDelivery): Promise<void> => {
    const { node, artifact: name, command } = action;
    const slot = `${node}:${visit()}`;
    const edits = (runtime.draft_edits ??= {});
    const edition = (edits[slot] ?? 0) + 1;
    edits[slot] = edition;
    const result = await editDraft({ ticketKey, artifact: name, outputs, command, written: delivery.observation.facts.comment?.body, edition });
    if (result.ok) {
      outputs[result.station] = result.output;
      const previous = artifacts[name];
      artifacts[name] = { text: result.text, digest: result.digest ?? '', version: (previous?.version ?? 0) + 1, updated_at: nowIso() };
    }
    timeline({
      kind: 'command_decision', occurred_at: nowIso(), status: result.ok ? 'applied' : 'rejected',
      summary: result.ok ? `draft edited at ${node} (${command.type})` : `draft edit refused at ${node}: ${result.reason}`,
      details: { node, command: command.type, edition },
    });
    await runIntents(result.intents);
  };

  return { refuse, editDraft: editDraftInPlace };
}

export type InPlaceCommands = ReturnType<typeof createInPlaceCommands>;
