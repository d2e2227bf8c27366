import { ActivityCancellationType, ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { StationNode } from '../built-in-definitions/definition-types';
import {
  INVALID_STATION_RESULT_TYPE, STATION_FAILURE_TYPE, type StationActivity, type StationFailureDetails, type StationInput, type StationResult,
} from './station-types';

/** How a station attempt ended, as the interpreter needs it. */
export type StationCallResult =
  | { type: 'result'; result: StationResult }
  /** The station said why the ticket cannot go on (a SPEC 3.2 code), possibly with the report to post. */
  | { type: 'failure'; failure: StationFailureDetails }
  | { type: 'invalid'; message: string }
  /** Retries ran out, or the activity timed out: the error, for the block comment. */
  | { type: 'error'; message: string };

export interface StationCallOptions {
  timeoutSeconds: number;
  heartbeatSeconds: number;
  /** Shown on the activity in the Temporal UI. */
  summary: string;
}

function decodeFailure(error: unknown): StationCallResult {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === STATION_FAILURE_TYPE) {
      const details = (cause.details?.[0] ?? {}) as Partial<StationFailureDetails>;
      return {
        type: 'failure',
        failure: { code: details.code ?? 'station_failed', message: details.message ?? cause.message, recovery: details.recovery, effects: details.effects, ...(details.usage ? { usage: details.usage } : {}) },
      };
    }
    if (cause.type === INVALID_STATION_RESULT_TYPE) return { type: 'invalid', message: cause.message };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  const outer = error instanceof Error && error !== cause ? `${error.message}: ` : '';
  return { type: 'error', message: `${outer}${message}` };
}

/**
 * Runs one station as the activity named after it. Temporal retries an attempt that failed for a passing reason
 * (a worker died: the heartbeat stops; a network error); a StationFailure or an invalid result is final.
 */
export async function callStation(spec: StationNode, input: StationInput, options: StationCallOptions): Promise<StationCallResult> {
  const activities = proxyActivities<Record<string, StationActivity>>({
    startToCloseTimeout: `${spec.timeout_seconds ?? options.timeoutSeconds}s`,
    heartbeatTimeout: `${options.heartbeatSeconds}s`,
    retry: {
      maximumAttempts: 3, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds',
      nonRetryableErrorTypes: [STATION_FAILURE_TYPE, INVALID_STATION_RESULT_TYPE],
    },
    summary: options.summary,
    // The kill switch: a cancelled station is waited for until it has stopped (its container removed).
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  try {
    return { type: 'result', result: await activities[spec.station]!(input) };
  } catch (error) {
    if (isCancellation(error)) throw error;
    return decodeFailure(error);
  }
}
