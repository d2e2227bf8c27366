/** Types shared by the effect journal (workflow), the effect activities and the effect API. Type-only. */

export type EffectStatus =
  | 'pending'
  | 'running'
  | 'succeeded'
  | 'retryable_failure'
  | 'terminal_failure'
  | 'precondition_failure'
  | 'indeterminate';

/** The provider mutations the service performs as durable effects. */
export type EffectOperation =
  | { kind: 'tracker.comment'; issue_key: string; body: string }
  | { kind: 'tracker.labels'; issue_key: string; add: string[]; remove: string[] }
  | { kind: 'scmhost.pr_comment'; repository: string; number: number; body: string }
  // --- planning: tracker issues (sub-ticket provisioning, status moves) ---
  /**
   * Creates an issue unless one carrying `identity_label` exists already (then adopts it). `identity_label` must be
   * one of `labels`, unique to the logical item (e.g. `service:epic-item:<FEATURE>:<id>`).
   */
  | { kind: 'tracker.create_issue'; project_key: string; issue_type: string; summary: string; description?: string; parent_key?: string; labels: string[]; identity_label: string }
  /**
   * Moves the issue by the transition whose name or target status matches `target` (case-insensitive). Name the
   * target status ("In Progress"): then a repeat finds the issue there and adopts; a transition name is not
   * offered any more once the issue has moved, so its repeat fails as a precondition.
   */
  | { kind: 'tracker.transition'; issue_key: string; target: string }
  // --- end planning ---
  /**
   * Pushes a commit the host made in a container station's workspace to the ticket branch. `base_sha` is the head
   * the station started from (null: the branch did not exist); `mode` fork pushes to the service account's fork.
   */
  | { kind: 'git.push'; repository: string; branch: string; commit_sha: string; base_sha: string | null; workspace: string; mode?: 'direct' | 'fork' }
  ;

export interface ProviderEvidence {
  provider: 'tracker' | 'scmhost' | 'gitlab' | 'git';
  /** What was found or written: a comment id, the labels after the change, ... */
  ids?: Record<string, string>;
  url?: string;
  status_code?: number;
  request_id?: string;
  /** True when the activity found the earlier write and adopted it instead of writing again. */
  adopted?: boolean;
  note?: string;
}

export interface EffectAttemptResult {
  status: Exclude<EffectStatus, 'pending' | 'running'>;
  evidence: ProviderEvidence | null;
  /** Redacted; null on success. */
  error: string | null;
  /** A provider's Retry-After, honoured by the workflow's backoff. */
  retry_after_ms: number | null;
}

export interface EffectAttempt extends EffectAttemptResult {
  attempt: number;
  started_at: string;
  finished_at: string;
  /** Who asked for this attempt: the workflow, or an operator's replay. */
  trigger: 'workflow' | 'replay';
}

export interface EffectRecord {
  idempotency_key: string;
  run_id: string;
  ticket_key: string;
  node: string;
  operation: EffectOperation;
  /** A required effect that stays unresolved blocks the workflow (fail closed). */
  required: boolean;
  status: EffectStatus;
  attempts: EffectAttempt[];
  created_at: string;
  updated_at: string;
}

export interface PerformEffectInput {
  idempotency_key: string;
  attempt: number;
  operation: EffectOperation;
}
