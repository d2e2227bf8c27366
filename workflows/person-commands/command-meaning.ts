import type { WorkflowKind } from '../ledger/observation';
import type { CommandPosition, RetryMode } from './command-types';
import { TRIGGER, TRIGGER_LABEL, type TriggerId } from '../vocabulary/command-words';

/**
 * Where each trigger means something (REFERENCE "Workflow graphs" and "Commands", SPEC 3.2). Data rather than
 * branches: the parser asks `whyNotMeaningful` and records the answer as the ignore reason, so a command outside its
 * positions is recorded and changes nothing (SPEC 2.4).
 */

/** Where a trigger must be written, for comment commands. */
export type WrittenOn = 'ticket' | 'pull_request';

export interface Meaning {
  /**
   * Ticket-wide switches mean something at every node. Every other trigger means something only where the ticket's
   * pinned definition says the current node accepts it (`accepts` of the node), never by a table of node names here.
   */
  anywhere?: true;
  /** Workflow kinds it applies to; every kind when absent. */
  kinds?: readonly WorkflowKind[];
  /**
   * Still meaningful while the workflow is blocked. Only service:retry moves a blocked workflow (SPEC 3.2), so this
   * is true only for switches that do not move the position (yolo, CI skips needed before a retry, rebase) and for
   * final provider facts that will not come again (merge, close).
   */
  while_blocked: boolean;
  /** A condition of the ticket rather than of the node. */
  needs?: 'pull_request' | 'proposal_review';
  written_on?: WrittenOn;
  /** A ticket comment that the open proposal pull request replaces at a proposal gate (REFERENCE "Source host conventions"). */
  replaced_by_proposal?: true;
}

/** The table, by trigger id; ignore reasons name a trigger by its label (TRIGGER_LABEL). */
export const MEANING = {
  // Tracker labels (approval labels approve the gate named after them).
  [TRIGGER.prdApproved]: { while_blocked: false },
  [TRIGGER.specApproved]: { while_blocked: false },
  [TRIGGER.planApproved]: { while_blocked: false },
  [TRIGGER.taskApproved]: { while_blocked: false },
  [TRIGGER.yolo]: { anywhere: true, while_blocked: true },
  // The kill switch (issue 17): stops the ticket wherever it stands; a blocked ticket is already stopped.
  [TRIGGER.stopLabel]: { anywhere: true, while_blocked: false },
  [TRIGGER.retryAtPausedGate]: { while_blocked: false },
  [TRIGGER.retryAtReviewResponseGate]: { while_blocked: false },
  [TRIGGER.ticketUpdate]: { while_blocked: false },
  // Tracker comments.
  [TRIGGER.question]: { while_blocked: false, replaced_by_proposal: true },
  [TRIGGER.feedback]: { while_blocked: false, replaced_by_proposal: true },
  [TRIGGER.draftItemFeedback]: { kinds: ['feature'], while_blocked: false },
  [TRIGGER.option]: { kinds: ['bug'], while_blocked: false },
  [TRIGGER.approve]: { while_blocked: false, written_on: 'ticket' },
  [TRIGGER.remove]: { kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  [TRIGGER.exclude]: { kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  [TRIGGER.update]: { kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  [TRIGGER.add]: { kinds: ['feature'], while_blocked: false, written_on: 'ticket' },
  // Pull-request comments (rebase is accepted on the ticket too: it names no check and no line).
  [TRIGGER.skipGate]: { while_blocked: true, written_on: 'pull_request' },
  [TRIGGER.unskipGate]: { while_blocked: true, written_on: 'pull_request' },
  [TRIGGER.rebase]: { anywhere: true, while_blocked: true, needs: 'pull_request' },
  [TRIGGER.stopCommand]: { anywhere: true, while_blocked: false },
  // Source-host facts.
  [TRIGGER.pullRequestReview]: { while_blocked: false },
  [TRIGGER.proposalReview]: { kinds: ['feature'], while_blocked: false, needs: 'proposal_review' },
  [TRIGGER.ciResult]: { while_blocked: false },
  [TRIGGER.push]: { while_blocked: false },
  [TRIGGER.merged]: { while_blocked: true },
  [TRIGGER.proposalMerged]: { kinds: ['feature'], while_blocked: false, needs: 'proposal_review' },
  [TRIGGER.closedUnmerged]: { while_blocked: true },
} as const satisfies Record<TriggerId, Meaning>;

export type Trigger = keyof typeof MEANING;

function acceptedAt(position: CommandPosition, node: string): readonly string[] {
  return position.accepts[node] ?? [];
}

/** `position.accepts` holds ids (`acceptTable` reads legacy labels as their ids), so a trigger is looked up by id. */
function whereAccepted(trigger: Trigger, position: CommandPosition): string {
  const nodes = Object.keys(position.accepts).filter((node) => acceptedAt(position, node).includes(trigger));
  return nodes.length > 0 ? `only at ${nodes.join(', ')}` : `nowhere in the ${position.workflow_kind} workflow`;
}

/**
 * Why the trigger means nothing at this position, or undefined when it does. `writtenOn` is where a comment command
 * was written; leave it out for labels and provider facts.
 */
export function whyNotMeaningful(trigger: Trigger, position: CommandPosition, writtenOn?: WrittenOn): string | undefined {
  const meaning: Meaning = MEANING[trigger];
  const said = TRIGGER_LABEL[trigger];
  const node = position.current_node;
  if (writtenOn && meaning.written_on && meaning.written_on !== writtenOn) {
    return meaning.written_on === 'ticket'
      ? `${said} is a ticket comment command; it means nothing on a pull request`
      : `${said} is a pull-request comment command; it means nothing on the ticket`;
  }
  if (!meaning.anywhere && !acceptedAt(position, node).includes(trigger)) {
    return `${said} is not meaningful at ${node} (${whereAccepted(trigger, position)})`;
  }
  if (meaning.kinds && !meaning.kinds.includes(position.workflow_kind)) {
    return `${said} is not meaningful at ${node} in a ${position.workflow_kind} workflow`;
  }
  if (position.is_blocked && !meaning.while_blocked) {
    return `${said} is not meaningful while the workflow is blocked at ${node}; add service:retry to resume first`;
  }
  if (meaning.needs === 'pull_request' && !position.has_pull_request) return `${said} needs a pull request; the ticket has none yet`;
  if (meaning.needs === 'proposal_review' && !position.proposal_review) return `${said} is not meaningful: proposal review is off`;
  if (meaning.replaced_by_proposal && position.proposal_open && position.gates[node]?.reviews_proposal) {
    return `${said} on the ticket is ignored at ${node} while the proposal pull request ${position.proposal_open} is open: review it there (review comments revise it, merging approves it)`;
  }
  return undefined;
}

/**
 * What service:retry means, first match wins. Blocked comes first: a gate that failed (say, posting its artifact)
 * resumes rather than regenerates. The other two come from what the pinned definition's node accepts.
 */
export function retryMode(position: CommandPosition): RetryMode | undefined {
  if (position.is_blocked) return 'resume';
  const accepted = acceptedAt(position, position.current_node);
  if (accepted.includes(TRIGGER.retryAtReviewResponseGate)) return 'review_response';
  if (position.is_paused && accepted.includes(TRIGGER.retryAtPausedGate)) return 'regenerate';
  return undefined;
}
