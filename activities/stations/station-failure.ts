import { ApplicationFailure } from '@temporalio/common';
import { STATION_FAILURE_TYPE, type EffectIntent, type StationFailureDetails } from '../../workflows/runtime/station-types';

/**
 * A station failure that blocks the ticket with a SPEC 3.2 code instead of being retried: thrown from the activity
 * as a non-retryable ApplicationFailure of STATION_FAILURE_TYPE carrying one StationFailureDetails.
 */
export function stationFailure(details: { code: string; message: string; recovery?: string; effects?: EffectIntent[] }): ApplicationFailure {
  const payload: StationFailureDetails = {
    code: details.code,
    message: details.message,
    ...(details.recovery ? { recovery: details.recovery } : {}),
    ...(details.effects?.length ? { effects: details.effects } : {}),
  };
  return ApplicationFailure.nonRetryable(details.message, STATION_FAILURE_TYPE, payload);
}

/** The failure's details, for tests and for the workflow's error handling. */
export function stationFailureDetails(error: unknown): StationFailureDetails | undefined {
  if (!(error instanceof ApplicationFailure) || error.type !== STATION_FAILURE_TYPE) return undefined;
  return error.details?.[0] as StationFailureDetails | undefined;
}
