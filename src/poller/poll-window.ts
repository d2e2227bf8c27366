/** The longest a poll looks back, however old its watermark: a poller stopped for longer starts from this. */
export const MAX_POLL_LOOKBACK_SECONDS = 7 * 24 * 3600;

/** Seconds before the last watermark that each poll reads again, unless SERVICE_POLL_OVERLAP_SECONDS says otherwise. */
export const DEFAULT_POLL_OVERLAP_SECONDS = 60;

/**
 * How far back one poll reads. With the watermark of the last successful poll of the same source (the instant that
 * poll started reading), only what changed since then, plus `overlapSeconds` for clock skew between us and the
 * provider and for facts a provider makes visible late; without one (the first poll, or after a failure of every
 * earlier poll) the configured lookback. Facts in the overlap come again and are duplicates by identity.
 */
export function pollWindow(options: { now: Date; lookbackSeconds: number; overlapSeconds: number; watermark?: string | null }): { since: Date; lookbackSeconds: number } {
  const watermark = options.watermark ? Date.parse(options.watermark) : NaN;
  const lookbackSeconds = Number.isNaN(watermark) || watermark > options.now.getTime()
    ? options.lookbackSeconds
    : Math.min(MAX_POLL_LOOKBACK_SECONDS, Math.max(1, Math.ceil((options.now.getTime() - watermark) / 1000) + options.overlapSeconds));
  return { since: new Date(options.now.getTime() - lookbackSeconds * 1000), lookbackSeconds };
}
