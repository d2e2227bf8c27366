import { ticketCommentRequest } from './command-comments';
import { isEdit } from './command-parser';
import { serviceVerbOf } from './command-service-verbs';
import type { Observation } from '../ledger/observation';
import { APPROVAL_LABELS, RETRY_LABEL, STOP_LABEL } from '../vocabulary/labels';
import { TRIGGER, TRIGGER_LABEL } from '../vocabulary/command-words';

/**
 * A person's request that the command boundary ignored because it means nothing where the ticket stands
 * ("Promises to a newcomer kept", point 4): `/service approve` at the PRD gate, `service:spec-approved` at the PRD
 * gate, `service:retry` with nothing to retry. The timeline alone explained it; now the person who asked is told,
 * once, where the ticket stands and what moves it.
 *
 * Only a person's requests are answered: conversation, edits of a comment, the service's own labels, provider facts
 * (CI, reviews, pushes) and events of child tickets never are. Workflow code: pure.
 */

export const ONE_REPLY_PATCH = 'one-reply-per-position';

export interface IgnoredRequest {
  /** What was asked, as people write it: `/service approve`, `service:spec-approved`, `a question (?)`. */
  asked: string;
  /** Where to answer: where the comment was written (a label change is answered on the ticket). */
  on: 'ticket' | 'pull_request';
  /**
   * Request labels taken off again: a stray approval label would otherwise stand on the ticket as if it approved
   * something, and `service:retry` or `service:stop` could not be added again when they do mean something (the same
   * as for labels from someone not allowed; workflows/person-commands/trusted-actors.ts).
   */
  remove_labels: string[];
}

/** Comment requests as people know them: the reply quotes them, and the reply's effect name is derived from them. */
const COMMENT_REQUESTS = {
  question: TRIGGER_LABEL[TRIGGER.question],
  feedback: TRIGGER_LABEL[TRIGGER.feedback],
  option: TRIGGER_LABEL[TRIGGER.option],
} as const;

function labelRequest(observation: Observation, killSwitch: boolean): IgnoredRequest | undefined {
  const added = observation.facts.label_change?.added ?? [];
  const requests = added.filter((label) => (APPROVAL_LABELS as readonly string[]).includes(label) || label === RETRY_LABEL || (killSwitch && label === STOP_LABEL));
  if (requests.length === 0) return undefined;
  return { asked: requests.join(', '), on: 'ticket', remove_labels: requests };
}

function commentRequest(observation: Observation): IgnoredRequest | undefined {
  const comment = observation.facts.comment;
  if (!comment || isEdit(observation.facts.action, comment)) return undefined;
  if (observation.event === 'issue_commented') {
    const kind = ticketCommentRequest(comment.body);
    if (!kind) return undefined;
    const asked = kind === 'service_command' ? serviceVerbOf(comment.body) : COMMENT_REQUESTS[kind];
    return asked ? { asked, on: 'ticket', remove_labels: [] } : undefined;
  }
  // On a pull request only `/service <verb>` is a command.
  const asked = serviceVerbOf(comment.body);
  return asked ? { asked, on: observation.source_system === 'scmhost' ? 'pull_request' : 'ticket', remove_labels: [] } : undefined;
}

/** The person's request behind an ignored observation of the ticket, or undefined when nobody asked for anything. */
export function ignoredRequestOf(observation: Observation, options: { kill_switch: boolean }): IgnoredRequest | undefined {
  switch (observation.event) {
    case 'issue_updated':
      return labelRequest(observation, options.kill_switch);
    case 'issue_commented':
    case 'issue_comment':
    case 'note':
      return commentRequest(observation);
    default:
      return undefined;
  }
}

/**
 * The name of the reply's effect. The effect key already carries the node and its visit; the name adds what was
 * asked, where, and the block episode, so the same request at the same position is answered once (the journal finds
 * the earlier reply under the same key), and a different request, another visit of the node, or the same node blocked
 * again after a retry, is answered again.
 */
export function requestReplyName(request: IgnoredRequest, position: { is_blocked: boolean; retry_count: number }): string {
  const asked = request.asked.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60) || 'request';
  const where = request.on === 'pull_request' ? '_on_pr' : '';
  const standing = position.is_blocked ? `blocked_${position.retry_count}` : 'open';
  return `ignored_${asked}${where}_${standing}`;
}
