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

export interface ObservationFacts {
  issue_type?: string;
  summary?: string;
  status?: string;
  labels?: string[];
  label_change?: LabelChange;
  comment?: { id: string; body: string; author?: string; created?: string; updated?: string };
  [key: string]: unknown;
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
  ticket_key: string;
  facts: ObservationFacts;
  /** When the provider says the fact happened (ISO 8601 UTC), when known. */
  observed_at: string | null;
  /** When the gateway or poller received it (ISO 8601 UTC): the queued event's creation timestamp. */
  received_at: string;
}

export type WorkflowKind = 'feature' | 'bug' | 'task_takeover';

export interface TicketWorkflowInput {
  ticket_key: string;
  project_key: string;
  issue_type: string | null;
  workflow_kind: WorkflowKind;
}
