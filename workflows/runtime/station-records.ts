import type { StationNode } from '../built-in-definitions/definition-types';
import { jsonBytes, truncateStrings } from './bounded-json';
import type { DriverContext } from './driver-context';
import type { StationResult } from './station-types';
import type { StationAttempt } from './ticket-state';
import { countSpend } from './token-spend';
import { nowIso } from './clock';

/** The station result a step's `record_attempt` and `keep_result` act on. */
export interface Returned {
  spec: StationNode;
  result: StationResult;
  base: StationAttempt;
}

const STATION_ATTEMPTS_KEPT = 50;
const OUTPUT_STRING_LIMIT = 2_000;
const ARTIFACT_CHARACTER_LIMIT = 200_000;

/** The bookkeeping of what stations did and returned: their attempts, outputs, artifacts and token spend, bounded. */
export function createStationRecords(context: Pick<DriverContext, 'runtime' | 'artifacts' | 'outputs' | 'attempts' | 'timeline'>) {
  const { runtime, artifacts, outputs, attempts, timeline } = context;

  const recordAttempt = (attempt: StationAttempt) => {
    attempts.push(attempt);
    if (attempts.length > STATION_ATTEMPTS_KEPT) attempts.splice(0, attempts.length - STATION_ATTEMPTS_KEPT);
    timeline({
      kind: 'station_attempt', occurred_at: attempt.finished_at ?? attempt.started_at, status: attempt.status,
      summary: `${attempt.station} at ${attempt.node} (visit ${attempt.visit}): ${attempt.status}${attempt.outcome ? ` → ${attempt.outcome}` : ''}${attempt.summary ? `: ${attempt.summary}` : ''}${attempt.error ? `: ${attempt.error}` : ''}`,
      details: { ...attempt },
    });
  };

  const keepResult = (spec: StationNode, result: StationResult) => {
    if (result.data !== undefined) {
      const data = truncateStrings(result.data, OUTPUT_STRING_LIMIT);
      outputs[spec.station] = jsonBytes(data) <= 64_000 ? data : { truncated: true, bytes: jsonBytes(result.data) };
    }
    for (const [name, artifact] of Object.entries(result.artifacts ?? {})) {
      const previous = artifacts[name];
      artifacts[name] = {
        text: artifact.text.slice(0, ARTIFACT_CHARACTER_LIMIT), digest: artifact.digest, version: (previous?.version ?? 0) + 1, updated_at: nowIso(),
      };
    }
    countSpend(runtime, spec.station, result.usage);
  };

  return { recordAttempt, keepResult };
}

export type StationRecords = ReturnType<typeof createStationRecords>;
