import { patched, proxyActivities } from '@temporalio/workflow';
import type { Command } from '../person-commands/command-parser';
import { BEFORE_MANAGEMENT_PATCH, beforeManagement, madeAt, managementFor } from './management-moment';
import type { Observation } from '../ledger/observation';
import { KILL_SWITCH_PATCH, stopTriggerOf } from './kill-switch';
import { whyNotMeaningful } from '../person-commands/command-meaning';
import type { CommandPosition } from '../person-commands/command-types';
import { actorIdsOf, commandLabelsOf, needsAllowedActor, TRUSTED_ACTORS_PATCH, type AuthorizeActorResult } from '../person-commands/trusted-actors';
import type { ActorActivities } from '../../activities/actor-activities';
import type { DriverContext } from './driver-context';
import type { TicketWrites } from './ticket-writes';
import { nowIso } from './clock';

const { authorizeActor } = proxyActivities<ActorActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

/** Who may command the ticket: allowed actors only, and only with what they wrote after the service took the ticket. */
export function createCommandTrust(
  context: Pick<DriverContext, 'input' | 'state' | 'ticketKey' | 'timeline'>,
  { effect, reply }: Pick<TicketWrites, 'effect' | 'reply'>,
) {
  const { input, state, ticketKey, timeline } = context;

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
  /**
   * Whether a stop that arrived while a station runs cancels it: judged as the intake judges any command (made after
   * the service took the ticket, meaningful where the ticket stands, by someone allowed), on the position now.
   */
  const stopCounts = async (request: Observation, position: () => CommandPosition) => patched(KILL_SWITCH_PATCH) && madeBeforeManagement(request) === undefined
    && whyNotMeaningful(stopTriggerOf(request), position()) === undefined
    && (await actorAllowed({ type: 'stop', via: 'label' }, request)).allowed;

  return { actorAllowed, ignoreUntrusted, stopCounts };
}

export type CommandTrust = ReturnType<typeof createCommandTrust>;
