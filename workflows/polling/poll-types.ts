export interface PollSummary {
  source: 'tracker' | 'scmhost' | 'gitlab';
  observed: number;
  started: number;
  signalled: number;
  ignored: number;
  /** Why the source was not polled (not configured), or null. */
  skipped: string | null;
  /**
   * The instant this poll started reading the source, once everything it read was delivered: the next poll reads
   * only what changed since then (less an overlap). Null when the source was not polled. Absent in older results.
   */
  watermark?: string | null;
}

export interface PollWorkflowInput {
  lookbackSeconds: number;
  /** Seconds before the last watermark that a poll reads again (clock skew, late visibility); absent in older schedules. */
  overlapSeconds?: number;
  /** The last successful poll's watermark for this source (set by the poll workflow for each activity). */
  watermark?: string | null;
}
