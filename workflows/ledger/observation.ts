import type { PinnedDefinition } from '../built-in-definitions/definition-types';

/**
 * Types shared by the gateway, the poller and the ticket workflow. Type-only: workflow code must not pull runtime
 * validation in, and src/ validates before anything reaches a workflow.
 */

export type SourceSystem = 'tracker' | 'scmhost' | 'gitlab';
export type ObservationSource = 'webhook' | 'poller';

/** The event names of SPEC 4.2-4.4, normalised (Jira's `jira:` and the spec's `tracker:` prefixes removed). */
export type ObservationEvent =
  | 'issue_created'
  | 'issue_updated'
  | 'issue_commented'
  | 'pull_request'
  | 'pull_request_review'
  | 'check_run'
  | 'issue_comment'
  | 'merge_request'
  | 'note'
  | 'pipeline'
  | 'push';

export interface LabelChange {
  added: string[];
  removed: string[];
}

export interface CommentFact {
  id: string;
  body: string;
  author?: string;
  created?: string;
  updated?: string;
  /** GitLab: the discussion the note belongs to (an answer to it goes there). */
  discussion?: DiscussionFact;
}

/**
 * A GitLab note's discussion. `thread`: the note is in a thread (started one or replied in one; the webhook does not
 * tell which) rather than a plain comment on the merge request. `path`/`line`: a diff note's place.
 */
export interface DiscussionFact {
  id: string;
  thread: boolean;
  path?: string;
  line?: number;
}

export interface PullRequestRef {
  number: number;
  head_ref?: string;
  head_sha?: string;
}

/**
 * The provider facts an observation carries, normalised across tracker, GitHub and GitLab. Only the fields the
 * service acts on; each event fills the ones it has.
 */
export interface ObservationFacts {
  // Tracker (Jira)
  issue_type?: string;
  summary?: string;
  status?: string;
  labels?: string[];
  label_change?: LabelChange;
  /** The fields a tracker changelog changed (lower case, labels included): the ledger orders each on its own. */
  changed_fields?: string[];
  /** A ticket comment (tracker) or a pull-request conversation comment (scmhost issue_comment, GitLab note). */
  comment?: CommentFact;
  // Source hosts (GitHub, GitLab)
  /** The provider's action: opened, closed, synchronize, reopened, submitted, completed, created, ... */
  action?: string;
  /** owner/repo (GitHub) or the GitLab project path. */
  repository?: string;
  pull_request?: PullRequestRef & { title?: string; state?: string; merged?: boolean; base_ref?: string };
  review?: { id: string; state: 'approved' | 'changes_requested' | 'commented'; body: string; commit_id?: string; author?: string };
  check_run?: { id: string; name: string; status: string; conclusion: string | null; head_sha: string };
  pipeline?: { id: string; status: string; sha: string; ref?: string };
  push?: { ref: string; before?: string; after: string };
  sender?: string;
  /**
   * Tracker deliveries: who did it, every identity known, tagged with its system (`tracker-email:<email>` first, then
   * `tracker:<accountId or user name>`; workflows/person-commands/actor-identity.ts), never a display name: a label change's or a
   * comment's author, for allowed-actor checks (issue 17) and the loop guard. Source hosts name their logins in
   * `comment`/`review`/`sender`, tagged by the observation's system where they are matched, and carry here the
   * numeric user ids of the same people (`github-id:<id>`, `gitlab-id:<id>`), which never change hands.
   */
  actor_ids?: string[];
}

export interface Observation {
  /** Built from provider facts only, so a webhook and a poller delivery of the same fact converge. */
  delivery_identity: string;
  source: ObservationSource;
  source_system: SourceSystem;
  event: ObservationEvent;
  resource: { kind: string; id: string };
  /** Provider revision used to order facts per resource (e.g. a changelog id or an update time); null when none. */
  revision: string | null;
  /**
   * Hash of the content that defines the fact (not of the whole payload, which carries volatile fields such as the
   * ticket's current labels). Same identity with another fingerprint is contradicting evidence: a conflict.
   */
  fingerprint: string;
  /**
   * A fact that can happen only once per resource (a check run's completion, a pull request's merge, a review's
   * submission). Another fact making the same claim on the same resource contradicts it: a conflict.
   */
  claim?: string;
  ticket_key: string;
  facts: ObservationFacts;
  /** When the provider says the fact happened (ISO 8601 UTC), when known. */
  observed_at: string | null;
  /** When the gateway or poller received it (ISO 8601 UTC): the queued event's creation timestamp. */
  received_at: string;
}

export type WorkflowKind = 'feature' | 'bug' | 'task_takeover';

/** Deployment settings a ticket workflow needs; workflow code cannot read the environment, so they travel in. */
export interface TicketWorkflowSettings {
  effect_timeout_seconds: number;
  /** Continue-as-new once the history has this many events (Temporal's own suggestion also triggers it). */
  history_event_limit: number;
  retention: { timeline_entries: number; terminal_effects: number };
  /** How long one station attempt may run, unless its node says otherwise. */
  station_timeout_seconds?: number;
  /** A station activity that stops heartbeating for this long is retried (on another worker if this one died). */
  station_heartbeat_seconds?: number;
  /** Continue-as-new once the carried state would exceed this many bytes (Temporal refuses payloads over 2 MB). */
  state_byte_limit?: number;
}

export interface TicketWorkflowInput {
  ticket_key: string;
  project_key: string;
  issue_type: string | null;
  workflow_kind: WorkflowKind;
  settings?: Partial<TicketWorkflowSettings>;
  /**
   * The definition the run pins, chosen by issue type where the workflow is started (gateway, poller); null with
   * `route_error` when no definition serves the issue type (the run blocks with missing_workflow_route).
   */
  definition?: PinnedDefinition | null;
  route_error?: string;
}
