import { retryMode, whyNotMeaningful, type Trigger } from './command-meaning';
import type { CommandDecision, CommandPosition } from './command-types';
import type { LabelChange } from '../ledger/observation';
import { APPROVAL_LABELS, RETRY_LABEL, SERVICE_LABEL_PREFIX, STOP_LABEL, YOLO_LABEL } from '../vocabulary/labels';
import { TRIGGER, triggerIdOf } from '../vocabulary/command-words';

/**
 * Tracker ticket updates (issue_updated): label commands read from the changelog, and at triage_gate any update a
 * person made (the reporter added the missing details) asks for another triage.
 */


const ignore = (reason: string): CommandDecision => ({ kind: 'ignore', reason });

function decideRetry(position: CommandPosition): CommandDecision {
  const mode = retryMode(position);
  if (mode) return { kind: 'command', command: { type: 'retry', mode } };
  return ignore(`${RETRY_LABEL}: nothing to retry at ${position.current_node} (not blocked, not at review_response_gate, not paused at an approval gate)`);
}

function decideApproval(label: (typeof APPROVAL_LABELS)[number], position: CommandPosition): CommandDecision {
  // Each approval label is its own trigger, the label its legacy spelling: it means something only where a gate accepts it.
  const notMeaningful = whyNotMeaningful(triggerIdOf(label) as Trigger, position);
  if (notMeaningful) return ignore(notMeaningful);
  return { kind: 'command', command: { type: 'approve', gate: position.current_node, via: 'label' } };
}

function decideStop(position: CommandPosition): CommandDecision {
  const notMeaningful = whyNotMeaningful(TRIGGER.stopLabel, position);
  if (notMeaningful) return ignore(notMeaningful);
  return { kind: 'command', command: { type: 'stop', via: 'label' } };
}

function decideYolo(enabled: boolean, position: CommandPosition): CommandDecision {
  if (position.yolo === enabled) return ignore(`${YOLO_LABEL}: autonomous mode is already ${enabled ? 'on' : 'off'}`);
  return { kind: 'command', command: { type: 'yolo', enabled } };
}

/**
 * The service adds and removes its own `service:` labels (stage labels, blocked, removing retry); those changes come
 * back as updates and must not count as the reporter's answer, or triage would loop on its own label.
 */
function isPersonsUpdate(change: LabelChange | undefined): boolean {
  if (!change) return true;
  return [...change.added, ...change.removed].some((label) => !label.toLowerCase().startsWith(SERVICE_LABEL_PREFIX));
}

function describe(change: LabelChange | undefined): string {
  if (!change) return 'ticket update without label changes';
  const labels = [...change.added.map((label) => `+${label}`), ...change.removed.map((label) => `-${label}`)];
  return `label change ${labels.join(' ') || '(none)'}`;
}

/**
 * One decision per update. When several labels are added at once, the first command in this order wins: stop, retry,
 * approval labels, yolo; their ignore reasons are joined when none is a command.
 */
export function decideTicketUpdate(change: LabelChange | undefined, position: CommandPosition): CommandDecision {
  const added = change?.added ?? [];
  const removed = change?.removed ?? [];
  const labelDecisions: CommandDecision[] = [
    ...(added.includes(STOP_LABEL) && position.kill_switch ? [decideStop(position)] : []),
    ...(added.includes(RETRY_LABEL) ? [decideRetry(position)] : []),
    ...APPROVAL_LABELS.filter((label) => added.includes(label)).map((label) => decideApproval(label, position)),
    ...(added.includes(YOLO_LABEL) ? [decideYolo(true, position)] : []),
    ...(removed.includes(YOLO_LABEL) ? [decideYolo(false, position)] : []),
  ];
  const labelCommand = labelDecisions.find((decision) => decision.kind === 'command');
  if (labelCommand) return labelCommand;

  const labelReasons = labelDecisions.map((decision) => (decision.kind === 'ignore' ? decision.reason : '')).join('; ');
  if (!isPersonsUpdate(change)) return ignore(labelReasons || `${describe(change)} is not a command`);
  const notMeaningful = whyNotMeaningful(TRIGGER.ticketUpdate, position);
  if (!notMeaningful) return { kind: 'command', command: { type: 'retriage', trigger: 'ticket_update' } };
  return ignore(labelReasons || `${describe(change)}: ${notMeaningful}`);
}
