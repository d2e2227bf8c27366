import type { WorkflowKind } from '../ledger/observation';
import type { GateTraits } from '../runtime/node-traits';

/**
 * The vocabulary of the command boundary (SPEC 2.4, 3.2; REFERENCE "Commands"): where the ticket stands, what a
 * person or provider asked for, and what the boundary decided. Plain data, so decisions can be stored on the
 * timeline and replayed.
 */

/** Where the ticket's pinned workflow stands when an accepted observation arrives. */
export interface CommandPosition {
  workflow_kind: WorkflowKind;
  /** The saved node, e.g. prd_approval_gate, human_review_gate, rca_option_gate, intake. */
  current_node: string;
  /**
   * What each node of the ticket's pinned definition accepts (node → trigger ids): the only source of "meaningful
   * here" besides ticket-wide switches. Built with `acceptTable(definition)`, which reads legacy labels as their ids.
   */
  accepts: Readonly<Record<string, readonly string[]>>;
  /**
   * What each gate of the same definition does beyond what it accepts (node → traits): which proposal it reviews,
   * whether `!` retriages. Built with `gateTable(definition)`, so no node name is compared here.
   */
  gates: Readonly<Record<string, GateTraits>>;
  is_blocked: boolean;
  is_paused: boolean;
  /** A pull request exists for the ticket. */
  has_pull_request: boolean;
  /** Local sequential ids of the current draft at plan_approval_gate / task_approval_gate (feature workflows). */
  draft_item_ids?: readonly number[];
  /** How many fix options the RCA offers at rca_option_gate; `>option N` is meaningful for 1..N only. */
  rca_option_count?: number;
  /** service:stop and `/service stop` are commands (the kill switch; false while replaying histories from before it). */
  kill_switch?: boolean;
  /** Autonomous mode is on (service:yolo). */
  yolo?: boolean;
  /** Proposal review is enabled (service.prd_proposals_repo set): the PRD and spec are reviewed as pull requests. */
  proposal_review?: boolean;
  /**
   * The proposal pull request open for the gate here (`owner/repo#3`): while it is open the review happens there, so
   * the ticket's `!` and `?` at that gate are ignored.
   */
  proposal_open?: string;
}

/** The fields of a draft item a person may set (REFERENCE "Commands"). */
export const DRAFT_FIELD_NAMES = ['summary', 'description', 'repo'] as const;
export type DraftFieldName = (typeof DRAFT_FIELD_NAMES)[number];
export type DraftFields = Partial<Record<DraftFieldName, string>>;

/** The pull request an observation is about, so the workflow can match it against the ones it opened. */
export interface PullRequestTarget {
  repository?: string;
  number: number;
  head_ref?: string;
}

export type RetryMode =
  /** Blocked: resume at the saved failed node (clears last_error and is_blocked, resets ci_fix_attempts). */
  | 'resume'
  /** review_response_gate: clear the contested review state and return to human_review_gate. */
  | 'review_response'
  /** Paused at an approval gate: regenerate the artifact shown there. */
  | 'regenerate';

export type Command =
  | { type: 'approve'; gate: string; via: 'label' | 'comment' | 'merge' }
  | { type: 'retry'; mode: RetryMode }
  | { type: 'yolo'; enabled: boolean }
  /** The kill switch: cancel the running station and block with `stopped`. */
  | { type: 'stop'; via: 'label' | 'comment' }
  /** triage_gate: the reporter updated the ticket, or replied with `!` and the missing details (`text`). */
  | { type: 'retriage'; trigger: 'ticket_update' | 'feedback'; text?: string }
  | { type: 'question'; text: string }
  /**
   * Revise the artifact at the gate. `item_id` narrows it to one draft item (`! <n>: text`); `via: 'review'` is a
   * review on a PRD or spec proposal pull request.
   */
  | { type: 'feedback'; text: string; item_id?: number; via: 'comment' | 'review' }
  | { type: 'draft_remove'; item_id: number }
  | { type: 'draft_exclude'; item_id: number }
  | { type: 'draft_update'; item_id: number; fields: DraftFields }
  | { type: 'draft_add'; fields: DraftFields & { summary: string } }
  | { type: 'select_option'; option: number }
  /** `check` as the person wrote it (for replies); `match` lower-cased, matched as a substring of check names. */
  | { type: 'skip_gate'; check: string; match: string }
  | { type: 'unskip_gate'; check: string; match: string }
  /** Without `pull_request` (asked on the ticket): every pull request of the ticket. */
  | { type: 'rebase'; pull_request?: PullRequestTarget }
  | { type: 'review_approved'; review_id: string; author?: string; pull_request?: PullRequestTarget }
  /** SPEC 3.2: a `commented` review is treated as `changes_requested`; `state` keeps what the reviewer chose. */
  | { type: 'review_changes_requested'; review_id: string; state: 'changes_requested' | 'commented'; body: string; author?: string; pull_request?: PullRequestTarget }
  /**
   * A finished check run (GitHub) or pipeline (GitLab). `conclusion` uses GitHub's words: GitLab's failed and
   * canceled become failure and cancelled.
   */
  | { type: 'ci_completed'; source: 'check_run' | 'pipeline'; check: string; conclusion: string; head_sha: string; pull_request?: PullRequestTarget }
  | { type: 'pr_synchronized'; head_sha: string; pull_request: PullRequestTarget }
  | { type: 'pr_merged'; pull_request: PullRequestTarget }
  /** Closed without merging while the workflow waits for review or CI: it cannot finish, so the workflow should say so. */
  | { type: 'pr_closed'; pull_request: PullRequestTarget };

export type CommandType = Command['type'];

export type CommandDecision =
  | { kind: 'command'; command: Command }
  /** Recorded on the timeline; changes nothing. */
  | { kind: 'ignore'; reason: string }
  /**
   * A command the service recognised as one but cannot carry out. `reply` is the ❌ comment to post where it was
   * written; `blocks` is true for an unrecognized `/service` verb (SPEC 3.2: "unrecognized command" blocks).
   */
  | { kind: 'invalid'; reason: string; reply: string; blocks: boolean };
