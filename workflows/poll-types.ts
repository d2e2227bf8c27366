export interface PollSummary {
  source: 'tracker' | 'scmhost';
  observed: number;
  started: number;
  signalled: number;
  ignored: number;
  /** Why the source was not polled (not configured), or null. */
  skipped: string | null;
}

export interface PollWorkflowInput {
  lookbackSeconds: number;
}
