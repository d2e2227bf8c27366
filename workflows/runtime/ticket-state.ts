import type { BlockRecord } from './blocking';
import type { PinnedDefinition } from '../built-in-definitions/definition-types';
import type { Management } from './management-moment';
import type { MigrationDecision } from '../registry/migration-messages';
import type { Observation, TicketWorkflowInput, TicketWorkflowSettings } from '../ledger/observation';
import type { ArtifactRecord, StationRequest, StationTrigger } from './station-types';
import { emptyJournal, type EffectJournal } from '../effects/effect-journal';
import { emptyLedger, type LedgerDecision, type LedgerState } from '../ledger/observation-ledger';
import { emptyTimeline, type TimelineState } from '../read-model/timeline';

/** The checkpoint fields of SPEC 2.6, with the spec's names. */
export interface Checkpoint {
  current_node: string;
  is_paused: boolean;
  is_blocked: boolean;
  last_error: string | null;
  ci_fix_attempts: number;
  ci_skipped_checks: string[];
  review_comments: unknown[];
  contested_comments: unknown[];
  feedback_comment: unknown | null;
  revision_requested: unknown | null;
  force_fresh_invoke: boolean;
}

export type ExecutionStatus = 'running' | 'waiting' | 'blocked' | 'failed' | 'completed';

export interface Waiting {
  code: string;
  message: string;
  since: string;
  recovery: string | null;
}

export interface LastObservation {
  observation_id: string;
  source_system: Observation['source_system'];
  event: Observation['event'];
  observed_at: string | null;
  received_at: string;
  conflicting: boolean;
}

/** A queued webhook or poller event (SPEC 2.7): UTC creation and completion times and how it ended. */
export interface QueuedEvent {
  delivery_identity: string;
  source: Observation['source'];
  source_system: Observation['source_system'];
  event: Observation['event'];
  created_at: string;
  completed_at: string;
  status: 'completed' | 'failed' | 'duplicate';
  decision: LedgerDecision;
}

/** One run of a station activity, for the execution view and the timeline (REFERENCE "Read models"). */
export interface StationAttempt {
  node: string;
  station: string;
  visit: number;
  started_at: string;
  finished_at: string | null;
  status: 'running' | 'succeeded' | 'failed' | 'invalid' | 'not_available' | 'stopped';
  outcome: string | null;
  summary: string | null;
  error: string | null;
  effects: number;
  usage: { input_tokens: number; output_tokens: number } | null;
}

/** Where the interpreter stands in the pinned definition beyond the SPEC 2.6 checkpoint. */
export interface Runtime {
  /** Entries into each node so far (never reset): the `<visit>` of effect keys. */
  visits: Record<string, number>;
  /** Entries counted against a node's retry bound; service:retry after escalation resets the node's count. */
  bound_counts: Record<string, number>;
  /** Where `$return` leads (answer_question goes back to the gate that asked). */
  return_to: string | null;
  /** The node an escalation came from: service:retry at escalate_blocked resumes there. */
  resume_at: string | null;
  /** What a person asked at the gate, handed to the station the gate leads to (feedback, question, regenerate). */
  request: StationRequest | null;
  /** When the current node was entered (service_phase_duration_seconds). */
  entered_at: string;
  /** The run reached an end node. */
  ended: 'completed' | null;
  /** service:yolo: planning gates that allow it approve themselves. */
  yolo: boolean;
  tokens_spent: number;
  /** tokens_spent split by stage (station name); absent in state from before budgets. */
  tokens_by_stage?: Record<string, number>;
  /** Draft edits per gate visit (`<node>:<visit>` → count): each edit's comments get names of their own. */
  draft_edits?: Record<string, number>;
  /** `/service rebase` on one pull request (`owner/repo#12`); absent or null: every pull request of the ticket. */
  rebase_target?: string | null;
  /** Pull requests of the ticket seen merged; the ticket moves on to completion when every one is merged or approved. */
  merged_pull_requests?: string[];
  /** Pull requests of the ticket a reviewer approved. */
  approved_pull_requests?: string[];
  /** Proposal pull requests by head branch (`service/prd/<key>`): never part of the ticket's pull requests. */
  proposals?: Record<string, { pull_request: string; state: 'open' | 'merged' | 'closed' }>;
  /** The delivery of the last command the ticket acted on (trace attributes of later stations); absent before one. */
  trigger?: StationTrigger;
  /**
   * The last block, to tell a retry that failed the same way (same node, visit, code and message) from a new block;
   * `repeats` counts those in a row. Absent before the first block, and in state from before it was kept.
   */
  last_block?: BlockRecord;
}

export const DEFAULT_SETTINGS: TicketWorkflowSettings = {
  effect_timeout_seconds: 60,
  retention: { timeline_entries: 2_000, terminal_effects: 500 },
  history_event_limit: 10_000,
};

/** Everything the ticket workflow carries across continue-as-new. Plain JSON. */
export interface TicketState {
  input: TicketWorkflowInput;
  /** firstExecutionRunId of the chain: stable across continue-as-new, used in effect idempotency keys. */
  run_id: string;
  started_at: string;
  status: ExecutionStatus;
  checkpoint: Checkpoint;
  waiting: Waiting | null;
  retry_count: number;
  last_observation: LastObservation | null;
  observations_received: number;
  /** Decided deliveries the main loop has yet to act on (it may await effects between them). */
  inbox: Array<{ observation: Observation; decision: 'accepted' | 'conflict'; reason: string }>;
  ledger: LedgerState;
  effects: EffectJournal;
  /** Pull requests known to belong to this ticket (`owner/repo#12`, `group/project!12`): the PR-to-ticket index. */
  pull_requests: string[];
  /** The most recent queued events, newest last (bounded). */
  recent_events: QueuedEvent[];
  timeline: TimelineState;
  /** The definition this run walks, pinned at start; absent in state carried from the v0.1 build. */
  definition?: PinnedDefinition | null;
  runtime?: Runtime;
  /** The latest text of each artifact, by name, with what a gate approved. */
  artifacts?: Record<string, ArtifactRecord>;
  /** The latest `data` of each station, by station name (bounded in size). */
  outputs?: Record<string, unknown>;
  /** The most recent station attempts, newest last (bounded). */
  station_attempts?: StationAttempt[];
  /** The last migration decision an operator asked for (workflows/registry/migration-update.ts); absent until one exists. */
  migration?: MigrationDecision | null;
  /**
   * When the service took the ticket (workflows/runtime/management-moment.ts): comments and label changes made before it never
   * command. Absent until the starting fact was handled, and in runs from before it was kept.
   */
  management?: Management;
}

/** Where a ticket sits until the stage runtime (definitions and stations) is built: recorded, waiting. */
export const INTAKE_NODE = 'intake';

export function initialCheckpoint(): Checkpoint {
  return {
    current_node: INTAKE_NODE,
    is_paused: false,
    is_blocked: false,
    last_error: null,
    ci_fix_attempts: 0,
    ci_skipped_checks: [],
    review_comments: [],
    contested_comments: [],
    feedback_comment: null,
    revision_requested: null,
    force_fresh_invoke: false,
  };
}

export function initialTicketState(input: TicketWorkflowInput, runId: string, now: string): TicketState {
  return {
    input,
    run_id: runId,
    started_at: now,
    status: 'waiting',
    checkpoint: initialCheckpoint(),
    waiting: {
      code: 'intake',
      message: 'Ticket recorded at intake; observations are recorded on the timeline.',
      since: now,
      recovery: null,
    },
    retry_count: 0,
    last_observation: null,
    observations_received: 0,
    inbox: [],
    ledger: emptyLedger(),
    effects: emptyJournal(),
    pull_requests: [],
    recent_events: [],
    timeline: emptyTimeline(),
  };
}

/** Where a new run stands before its first node: nothing visited, nothing spent. */
export function initialRuntime(now: string): Runtime {
  return { visits: {}, bound_counts: {}, return_to: null, resume_at: null, request: null, entered_at: now, ended: null, yolo: false, tokens_spent: 0 };
}
