import type { Logger } from '../logging/logger';

/**
 * Warnings about requests refused before they were authenticated (a forged signature or token, a body too large, a
 * full budget), at most one line per kind per interval. Anyone can send those, as fast as they are answered: one
 * line each would let a flood fill the log and spend the gateway's time writing it (the flood benchmark's slowest
 * health probe doubled with a line per refusal). The line that is written says how many of its kind were not.
 */

/** How often one kind of refusal is logged. */
export const REFUSAL_LOG_INTERVAL_MS = 10_000;

export class RefusalLog {
  private readonly kinds = new Map<string, { loggedAt: number; unlogged: number }>();

  constructor(private readonly logger: Logger, private readonly now: () => number = Date.now, private readonly intervalMs = REFUSAL_LOG_INTERVAL_MS) {}

  /** Logs `message` unless a refusal of the same `kind` was logged within the interval; then it is only counted. */
  warn(kind: string, message: string, fields: Record<string, unknown>): void {
    const at = this.now();
    const seen = this.kinds.get(kind);
    if (seen && at - seen.loggedAt < this.intervalMs) {
      seen.unlogged += 1;
      return;
    }
    const unlogged = seen?.unlogged ?? 0;
    this.kinds.set(kind, { loggedAt: at, unlogged: 0 });
    this.logger.warn(message, { ...fields, ...(unlogged > 0 ? { unlogged_since_last_line: unlogged } : {}), next_line_in_s_at_the_earliest: this.intervalMs / 1000 });
  }
}
