import { patched } from '@temporalio/workflow';
import { ticketCommentRequest } from '../person-commands/command-comments';
import { permittedCommands } from '../read-model/execution-view';
import { ignoredRequestOf, requestReplyName } from '../person-commands/ignored-request';
import type { Observation } from '../ledger/observation';
import { requestReply } from '../person-commands/status-reply';
import { KILL_SWITCH_PATCH } from './kill-switch';
import type { IntakeContext } from './intake-context';

/** A ticket comment asking a question (`?` or `@service ask`, REFERENCE "Commands"). */
export function isQuestion(observation: Observation): boolean {
  return observation.event === 'issue_commented' && ticketCommentRequest(observation.facts.comment?.body ?? '') === 'question';
}

/**
 * A person's request ignored where the ticket stands (workflows/person-commands/ignored-request.ts): its request labels are taken off
 * at once, and one reply per request and position says where the ticket stands and what moves it.
 */
export async function answerIgnored(
  { state, ticketKey, effect, reply }: Pick<IntakeContext, 'state' | 'ticketKey' | 'effect' | 'reply'>,
  observation: Observation, reason: string, decisionId: number,
) {
  const request = ignoredRequestOf(observation, { kill_switch: patched(KILL_SWITCH_PATCH) });
  if (!request) return;
  if (request.remove_labels.length > 0) {
    // Named by the decision's timeline entry: unique per fact (`reply_<observations received>` is shared by facts
    // handled from one batch of the inbox, and a second removal under the same key would not run).
    await effect(`request_labels_${decisionId}`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: request.remove_labels });
  }
  const body = requestReply({ ticketKey, asked: request.asked, reason, state, permitted: permittedCommands(state), removedLabels: request.remove_labels });
  await reply(requestReplyName(request, { is_blocked: state.checkpoint.is_blocked, retry_count: state.retry_count }), observation, body);
}
