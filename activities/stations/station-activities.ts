import { ApplicationFailure, Context } from '@temporalio/activity';
import { z } from 'zod';
import { STATION_OUTCOMES } from '../../workflows/built-in-definitions/catalogue';
import {
  INVALID_STATION_RESULT_TYPE, STATION_FAILURE_TYPE, type StationActivity, type StationFailureDetails, type StationInput, type StationResult,
} from '../../workflows/runtime/station-types';
import { redactSecrets } from '../../src/redaction/redact-secrets';
import { operationSchema } from '../effect-activities';

/**
 * The worker side of the station contract (DESIGN 6, workflows/runtime/station-types.ts): every station of the catalogue is
 * registered as an activity named after it. An implemented station runs with a heartbeat (a dead worker is noticed
 * within the heartbeat timeout and the attempt retried elsewhere) and its result is validated here, so the workflow
 * only ever sees a result of the contract's shape; a station without an implementation in this build fails closed
 * with `station_not_available` instead of pretending to succeed.
 */

const intentSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9_]{1,64}$/, 'an effect name is lower_snake_case, at most 64 characters'),
  operation: operationSchema,
  required: z.boolean().optional(),
});

export const stationResultSchema = z.strictObject({
  outcome: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'an outcome is lower_snake_case'),
  data: z.record(z.string(), z.unknown()).optional(),
  artifacts: z.record(z.string(), z.strictObject({ text: z.string(), digest: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 hex digest') })).optional(),
  effects: z.array(intentSchema).max(200).optional(),
  summary: z.string().max(500).optional(),
  usage: z.strictObject({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0), model: z.string().optional() }).optional(),
});

export function stationFailure(details: StationFailureDetails): ApplicationFailure {
  return ApplicationFailure.nonRetryable(details.message, STATION_FAILURE_TYPE, details);
}

/** Validates what a station returned against the contract; names the field that is wrong. */
export function checkStationResult(station: string, value: unknown): StationResult {
  const parsed = stationResultSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`).join('; ');
    throw ApplicationFailure.nonRetryable(redactSecrets(`${station}: ${problems}`), INVALID_STATION_RESULT_TYPE);
  }
  const duplicate = (parsed.data.effects ?? []).map((e) => e.name).find((name, i, all) => all.indexOf(name) !== i);
  if (duplicate) throw ApplicationFailure.nonRetryable(`${station}: effect name "${duplicate}" is used twice; each write needs its own name`, INVALID_STATION_RESULT_TYPE);
  return parsed.data as StationResult;
}

function withHeartbeat(station: string, run: StationActivity, intervalMs: number): StationActivity {
  return async (input: StationInput) => {
    const context = Context.current();
    // Well inside the heartbeat timeout the workflow chose, so a live worker is never taken for a dead one.
    const every = Math.max(200, Math.min(intervalMs, Math.floor((context.info.heartbeatTimeoutMs ?? intervalMs * 3) / 3)));
    const timer = setInterval(() => context.heartbeat({ station, at: new Date().toISOString() }), every);
    try {
      context.heartbeat({ station, started: true });
      // A cancelled attempt (service:stop) ends at once with the cancellation, whatever the station does meanwhile;
      // stations that hold resources (containers) release them on the same signal.
      return checkStationResult(station, await Promise.race([run(input), context.cancelled]));
    } finally {
      clearInterval(timer);
    }
  };
}

function notAvailable(station: string): StationActivity {
  return async (input: StationInput) => {
    throw stationFailure({
      code: 'station_not_available',
      message: `the ${station} station (${input.node}) is not available in this build of the service`,
      recovery: 'upgrade the worker to a build that implements it, then add service:retry',
    });
  };
}

export interface StationActivityOptions {
  /** Station implementations by station name; catalogue stations missing here fail with station_not_available. */
  implemented: Record<string, StationActivity>;
  heartbeatIntervalMs?: number;
  /** The token-budget check around each implemented station (budget-guard.ts); none: no budgets apply. */
  budget?: (station: string, run: StationActivity) => StationActivity;
}

export function createStationActivities(options: StationActivityOptions): Record<string, StationActivity> {
  // Frequent heartbeats carry a cancellation back quickly (the worker throttles what reaches the server).
  const interval = options.heartbeatIntervalMs ?? 1_000;
  const activities: Record<string, StationActivity> = {};
  for (const station of Object.keys(STATION_OUTCOMES)) activities[station] = notAvailable(station);
  for (const [station, run] of Object.entries(options.implemented)) activities[station] = withHeartbeat(station, options.budget ? options.budget(station, run) : run, interval);
  return activities;
}
