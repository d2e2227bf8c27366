import type { PollSummary } from './poll-types';

/** The watermark per source in the result of the last successful poll (the schedule hands it to the next run). */
export function lastPollWatermarks(lastResult: unknown): Partial<Record<PollSummary['source'], string>> {
  const found: Partial<Record<PollSummary['source'], string>> = {};
  if (!Array.isArray(lastResult)) return found;
  for (const entry of lastResult as Array<Partial<PollSummary> | null>) {
    if (entry && (entry.source === 'tracker' || entry.source === 'scmhost' || entry.source === 'gitlab') && typeof entry.watermark === 'string') found[entry.source] = entry.watermark;
  }
  return found;
}
