import type { EffectAttemptResult, PerformEffectInput } from '../../workflows/effects/effect-types';
import type { StationActivity } from '../../workflows/runtime/station-types';
import type { ServiceMetrics } from './service-metrics';

/**
 * Counting wrappers around the worker's activities. They sit at the edge (the worker wires them) so the activities
 * themselves stay free of a metrics library, and they only observe: results and errors pass through unchanged.
 */

/** The status label of an attempt that threw instead of answering (a bug or an unconfigured provider). */
export const THREW = 'error';

type EffectActivities = { performEffect(raw: PerformEffectInput): Promise<EffectAttemptResult> };

/** Every effect attempt counted by its operation kind and outcome (service_effect_attempts_total). */
export function countEffectAttempts<T extends EffectActivities>(activities: T, metrics: Pick<ServiceMetrics, 'effectAttempts'>): T {
  const perform = activities.performEffect.bind(activities);
  return {
    ...activities,
    async performEffect(raw: PerformEffectInput): Promise<EffectAttemptResult> {
      // The raw input is validated inside; a malformed one has no kind worth a label of its own.
      const kind = typeof raw?.operation?.kind === 'string' ? raw.operation.kind : 'unknown';
      try {
        const result = await perform(raw);
        metrics.effectAttempts.inc({ kind, status: result.status });
        return result;
      } catch (error) {
        metrics.effectAttempts.inc({ kind, status: THREW });
        throw error;
      }
    },
  };
}

/** Every station run counted by outcome and timed (service_station_runs_total, service_station_duration_seconds). */
export function measureStations(stations: Record<string, StationActivity>, metrics: Pick<ServiceMetrics, 'stationRuns' | 'stationDuration'>, now: () => number = () => performance.now()): Record<string, StationActivity> {
  const measured: Record<string, StationActivity> = {};
  for (const [station, run] of Object.entries(stations)) {
    measured[station] = async (input) => {
      const started = now();
      try {
        const result = await run(input);
        metrics.stationRuns.inc({ station, outcome: result.outcome });
        return result;
      } catch (error) {
        metrics.stationRuns.inc({ station, outcome: THREW });
        throw error;
      } finally {
        metrics.stationDuration.observe({ station }, Math.max(0, (now() - started) / 1000));
      }
    };
  }
  return measured;
}
