/**
 * The station contract (DESIGN 6, 7): what the ticket workflow hands a station activity and what it gets back.
 * Type-only, shared by the interpreter (workflows/), the station activities (activities/stations/) and tests.
 *
 * A station never writes to the tracker or a source host itself. It returns the writes it wants as effect intents;
 * the workflow runs each through the effect journal under `<ticket>:<run_id>:<node>:<visit>:<name>`, so a station
 * that runs again after a crash asks for the same writes under the same keys and nothing is written twice.
 */
import type { EffectOperation } from '../effects/effect-types';
import type { WorkflowKind } from '../ledger/observation';

/** One write a station wants. `name` is stable per logical write within a node visit (`post_prd_part_2`, `push`). */
export interface EffectIntent {
  name: string;
  operation: EffectOperation;
  /** A required write that does not succeed blocks the ticket (`effect_unresolved`) instead of moving on. */
  required?: boolean;
}

/** What a person said that the station should take into account (a `!` revision, a `?` question, a retry). */
export interface StationRequest {
  kind: 'feedback' | 'question' | 'regenerate' | 'draft_item_feedback' | 'option_selected';
  /** `>option N`: the option chosen. */
  option?: number;
  text: string;
  item_id?: number;
  author?: string;
}

/** The latest text of an artifact the workflow keeps (PRD, spec, plan, ...), and what a gate approved. */
export interface ArtifactRecord {
  text: string;
  /** sha256 hex of `text`, computed by the station activity (workflow code has no crypto). */
  digest: string;
  version: number;
  updated_at: string;
  /** Set when a gate approved this version: later stations use the approved text. */
  approved?: { digest: string; at: string; by?: string; text?: string };
}

export interface StationInput {
  ticket_key: string;
  project_key: string;
  issue_type: string | null;
  workflow_kind: WorkflowKind;
  /** firstExecutionRunId of the ticket's workflow chain. */
  run_id: string;
  /** The node being run, the station it names, and how many times this node has been entered (1-based). */
  node: string;
  station: string;
  visit: number;
  /** From the pinned definition node. */
  model_key?: string;
  params?: Record<string, unknown>;
  /** Artifacts kept by the workflow, by name (latest text; `approved` when a gate approved it). */
  artifacts: Record<string, ArtifactRecord>;
  /** Outputs of earlier stations (their `data`), by station name; bounded in size by the workflow. */
  outputs: Record<string, unknown>;
  /** What a person asked for at the gate that sent the ticket here, if anything. */
  request?: StationRequest;
  /** The ticket's pull requests (`owner/repo#12` on GitHub, `group/project!12` on GitLab), for reports that go there too. */
  pull_requests?: string[];
  /** Tokens this station may still spend; null when no budget applies. */
  token_budget: number | null;
  /** What the ticket spent on models so far (input plus output tokens), in total and by stage (station): budgets. */
  spend?: { ticket: number; stages: Record<string, number> };
  /** CI state of the ticket: checks skipped by `/service skip-gate`, and fix attempts since the last retry or pass. */
  ci?: { skipped_checks: string[]; fix_attempts: number };
  /**
   * The delivery that last moved the ticket (a command or gate event a person or a provider sent), or the first the
   * ticket received while nothing has moved it yet: the `event_source` and `event_type` of the station's traces.
   */
  trigger?: StationTrigger;
  /** Times `service:retry` resumed the ticket so far. */
  retry_count?: number;
}

export interface StationTrigger {
  source_system: string;
  event: string;
}

export interface StationResult {
  /** Must be an outcome the pinned definition maps for this node (`on`). */
  outcome: string;
  /** Kept by the workflow as `outputs[station]` (latest only) and passed to later stations. Keep it small. */
  data?: Record<string, unknown>;
  /** Artifacts to keep (latest text replaces the earlier one, version + 1). */
  artifacts?: Record<string, { text: string; digest: string }>;
  /** Writes, run in order through the effect journal after the station returns. */
  effects?: EffectIntent[];
  /** One line for the timeline and the Temporal UI. */
  summary?: string;
  /** Model usage the station spent, for budgets and the execution view. */
  usage?: { input_tokens: number; output_tokens: number; model?: string };
}

/**
 * A station failure that should block the ticket with a code (SPEC 3.2), thrown from an activity as an
 * ApplicationFailure of this type with one detail of this shape. Anything else that escapes a station is retried by
 * Temporal and, when retries run out, blocks with `station_failed`.
 */
export const STATION_FAILURE_TYPE = 'StationFailure';
export interface StationFailureDetails {
  code: string;
  message: string;
  recovery?: string;
  /** Writes to make even though the station failed (e.g. the fail-closed model policy report of SPEC 2.10). */
  effects?: EffectIntent[];
  /** Model usage spent before it failed, counted against the budgets all the same. */
  usage?: { input_tokens: number; output_tokens: number };
}

/** The error type of a result that does not match the station contract (validated in the activity). */
export const INVALID_STATION_RESULT_TYPE = 'InvalidStationResult';

/** An activity that runs one station. The worker registers each under the station's name. */
export type StationActivity = (input: StationInput) => Promise<StationResult>;
