import type { IgnoredRequest } from '../../workflows/person-commands/ignored-request';
import type { EffectOperation } from '../../workflows/effects/effect-types';
import type { EndedRun, EndedTicketReplyPlan } from '../../workflows/ended-ticket-reply';

export type { EndedRun, EndedTicketReplyPlan };
import type { Observation } from '../../workflows/ledger/observation';
import { MANAGED_LABEL } from '../../workflows/vocabulary/labels';
import { VERBS } from '../../workflows/person-commands/command-service-verbs';

/**
 * A person's request on a ticket whose workflow has ended gets one answer saying so (issue 43, "Every command gets an
 * answer"), instead of the silence of "no running workflow". Which request, where it is answered and what the answer
 * says are decided here, purely; src/temporal/ticket-workflows.ts starts the workflow that writes it.
 */
const ENDED_AS: Record<string, string> = {
  COMPLETED: 'it completed',
  TERMINATED: 'an operator terminated it',
  FAILED: 'it failed',
  CANCELLED: 'it was cancelled',
  TIMED_OUT: 'it timed out',
};

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'request';
}

/**
 * The request as the reply's name gives it: a known verb, label or trigger as written, any other `/service` word as
 * one name. Anyone can comment on a closed ticket, and each name is answered once: without this, every made-up word
 * would be answered again (a comment each).
 */
function requestName(asked: string): string {
  const verb = /^\/service (\S+)$/.exec(asked)?.[1];
  return verb !== undefined && !Object.hasOwn(VERBS, verb) ? 'unknown-service-command' : slug(asked);
}

/** What was asked, as the reply quotes it: a made-up verb can be as long as a comment. */
function quoted(asked: string): string {
  const shown = asked.length > 80 ? `${asked.slice(0, 80)}…` : asked;
  return `\`${shown.replace(/`/g, "'")}\``;
}

export function endedTicketReplyText(ticketKey: string, request: IgnoredRequest, ended: EndedRun): string {
  const when = ended.closed_at ? ` on ${ended.closed_at.slice(0, 16).replace('T', ' ')} UTC` : '';
  const lines = [
    `ℹ️ ${quoted(request.asked)} changed nothing: the service's workflow for ${ticketKey} has ended (${ENDED_AS[ended.status] ?? ended.status.toLowerCase()}${when}), so it no longer acts on requests on this ticket or its pull requests.`,
  ];
  if (/rebase/i.test(request.asked)) lines.push('An open pull request of the ticket can still be rebased and merged by hand.');
  lines.push(`To have the service work on this again, create a new ticket with the label \`${MANAGED_LABEL}\`.`);
  if (request.remove_labels.length > 0) lines.push(`The label${request.remove_labels.length > 1 ? 's' : ''} ${request.remove_labels.map((label) => `\`${label}\``).join(', ')} ${request.remove_labels.length > 1 ? 'were' : 'was'} taken off again.`);
  return lines.join('\n\n');
}

/** What to write, and under which workflow id, for a request delivered to a ticket whose workflow has ended. */
export function endedTicketReplyPlan(ticketKey: string, observation: Observation, request: IgnoredRequest, ended: EndedRun): EndedTicketReplyPlan {
  const body = endedTicketReplyText(ticketKey, request, ended);
  const pr = observation.facts.pull_request;
  const onPullRequest = request.on === 'pull_request' && observation.source_system === 'scmhost' && pr && observation.facts.repository;
  const place = onPullRequest ? `${slug(observation.facts.repository!)}-${pr!.number}` : 'ticket';
  const operations: EffectOperation[] = [];
  if (request.remove_labels.length > 0) operations.push({ kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: request.remove_labels });
  operations.push(onPullRequest
    ? { kind: 'scmhost.pr_comment', repository: observation.facts.repository!, number: pr!.number, body }
    : { kind: 'tracker.comment', issue_key: ticketKey, body });
  const name = `${requestName(request.asked)}-on-${place}`;
  return {
    workflow_id: `ended-ticket-reply-${ticketKey.toUpperCase()}-${name}`,
    input: { ticket_key: ticketKey, idempotency_key: `${ticketKey.toUpperCase()}:ended:${name}`, operations },
  };
}
