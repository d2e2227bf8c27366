import { patched } from '@temporalio/workflow';
import { ignoredRequestOf, type IgnoredRequest } from '../person-commands/ignored-request';
import { BEFORE_MANAGEMENT, BEFORE_MANAGEMENT_PATCH, beforeManagement, madeAt, managementFor, noteManagement } from './management-moment';
import type { Observation } from '../ledger/observation';
import type { TimelineEntry } from '../read-model/timeline';
import { KILL_SWITCH_PATCH } from './kill-switch';
import { nowIso } from './clock';
import { MANAGED_LABEL, YOLO_LABEL } from '../vocabulary/labels';
import type { IntakeContext } from './intake-context';

/**
 * An event of a provisioned child (an epic or task routed to its feature): recorded; the code-change stations read
 * the children's state from the tracker when they run. A child's comment is never a command of the feature.
 */
export function recordChildEvent({ ticketKey, timeline }: Pick<IntakeContext, 'ticketKey' | 'timeline'>, observation: Observation): void {
  timeline({
    kind: 'command_decision', occurred_at: nowIso(), status: 'ignored',
    summary: `event of child ticket ${observation.ticket_key}: not a command of ${ticketKey}`,
    details: { child: observation.ticket_key, event: observation.event, delivery_identity: observation.delivery_identity },
  });
}

/**
 * Only what people write after the service took the ticket commands it (patched: histories from before took all).
 * A delivery made before is recorded as ignored; returned are its decision's entry and the request it made, whose
 * labels the caller takes off. Undefined: the delivery counts.
 */
export function ignoredAsMadeBefore(
  { state, timeline }: Pick<IntakeContext, 'state' | 'timeline'>,
  observation: Observation,
): { decided: TimelineEntry; early: IgnoredRequest | undefined } | undefined {
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
        return { decided, early };
      }
    }
  }
  return undefined;
}

/**
 * A ticket that starts with service:yolo already on it runs autonomously from the first gate, when the person who
 * started it may switch yolo on (patched: histories from before took the label from anyone).
 */
export function yoloStandsAtStart({ runtime }: Pick<IntakeContext, 'runtime'>, observation: Observation): boolean {
  const starting = observation.event === 'issue_created' || observation.facts.label_change?.added.includes(MANAGED_LABEL);
  return Boolean(starting && !runtime.yolo && observation.facts.labels?.includes(YOLO_LABEL));
}

/**
 * The delivery with service:yolo taken out of the labels it added. Decided once: when this change added the label
 * too, the command boundary does not ask or answer again.
 */
export function withoutYoloAdded(observation: Observation): Observation {
  const change = observation.facts.label_change;
  if (change?.added.includes(YOLO_LABEL)) {
    return { ...observation, facts: { ...observation.facts, label_change: { ...change, added: change.added.filter((label) => label !== YOLO_LABEL) } } };
  }
  return observation;
}
