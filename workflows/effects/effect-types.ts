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
   * one of `labels`, unique to the logical item (e.g. `service:epic-item:<FEATURE>:<id>`). `relates_to` (an issue
   * key): the issue is linked "Relates" to it; an adopted issue gets the link when it lacks one.
   */
  | { kind: 'tracker.create_issue'; project_key: string; issue_type: string; summary: string; description?: string; parent_key?: string; labels: string[]; identity_label: string; relates_to?: string }
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
  // --- the code change: pull requests (GitHub) and merge requests (GitLab, by the repository registry's connection) ---
  /**
   * Opens a pull request for `head` unless an open one exists for that head branch (then adopts it, never a second).
   * `base` null: the repository's default branch. `mode` fork: the head lives on the service account's fork.
   * Evidence `ids.pull_request` is `owner/repo#12` (GitLab `group/project!12`), `ids.number` the number.
   */
  | { kind: 'scmhost.open_pr'; repository: string; head: string; base: string | null; title: string; body: string; draft?: boolean; mode?: 'direct' | 'fork' }
  /**
   * Comments once on the ticket with the link of the pull request of `head` (found on the host when the comment is
   * written, so the station that asks need not know the number yet): `text` with `{url}` replaced by the link.
   */
  | { kind: 'tracker.pull_request_link'; issue_key: string; repository: string; head: string; text: string; mode?: 'direct' | 'fork' }
  /** Sets the title and/or description of an open pull request; a repeat that finds them as wanted adopts. */
  | { kind: 'scmhost.update_pr'; repository: string; number: number; title?: string; body?: string }
  /** Posts a pull-request review once (found again by the idempotency key in its body). */
  | { kind: 'scmhost.pr_review'; repository: string; number: number; event: 'COMMENT' | 'REQUEST_CHANGES' | 'APPROVE'; body: string; comments?: Array<{ path: string; line: number; body: string }> }
  /**
   * Replies once in the review thread of `comment_id` (GitLab: the discussion id as a string). `resolve` (GitLab
   * discussions only): then resolve the thread when it is resolvable; a refusal is recorded in the evidence, not a
   * failure of the reply.
   */
  | { kind: 'scmhost.review_reply'; repository: string; number: number; comment_id: number | string; body: string; resolve?: boolean }
  // --- end of the code change ---
  ;

export interface ProviderEvidence {
  provider: 'tracker' | 'scmhost' | 'gitlab' | 'git';
  /**
   * What was found or written: a comment id, the labels after the change, ... `pull_request` (`owner/repo#12`,
   * `group/project!12`) names a pull request the write opened or adopted: the workflow adds it to the ticket's index.
   */
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
