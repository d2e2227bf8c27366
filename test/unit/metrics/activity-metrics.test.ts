import { describe, expect, it } from 'vitest';
import { countEffectAttempts, measureStations } from '../../../src/metrics/activity-metrics';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import type { EffectAttemptResult, PerformEffectInput } from '../../../workflows/effects/effect-types';
import type { StationInput } from '../../../workflows/runtime/station-types';

async function sample(metrics: ReturnType<typeof createServiceMetrics>, name: string): Promise<Array<{ labels: Record<string, unknown>; value: number; metricName?: string }>> {
  const family = (await metrics.registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  return (family?.values ?? []) as Array<{ labels: Record<string, unknown>; value: number; metricName?: string }>;
}

const comment = (attempt: number): PerformEffectInput => ({ idempotency_key: `k-${attempt}`, attempt, operation: { kind: 'tracker.comment', issue_key: 'A-1', body: 'hi' } });
const result = (status: EffectAttemptResult['status']): EffectAttemptResult => ({ status, evidence: null, error: status === 'succeeded' ? null : 'no', retry_after_ms: null });

describe('countEffectAttempts', () => {
  it('counts each attempt by kind and outcome and passes results and errors through', async () => {
    const metrics = createServiceMetrics();
    const outcomes = [result('succeeded'), result('retryable_failure'), result('retryable_failure')];
    const activities = countEffectAttempts({
      performEffect: async (input: PerformEffectInput) => {
        if (input.attempt === 4) throw new Error('tracker not configured');
        return outcomes[input.attempt - 1]!;
      },
      other: () => 'untouched',
    }, metrics);
    expect(await activities.performEffect(comment(1))).toEqual(result('succeeded'));
    await activities.performEffect(comment(2));
    await activities.performEffect(comment(3));
    await expect(activities.performEffect(comment(4))).rejects.toThrow('tracker not configured');
    expect(activities.other()).toBe('untouched');
    expect(await sample(metrics, 'service_effect_attempts_total')).toEqual(expect.arrayContaining([
      expect.objectContaining({ labels: { kind: 'tracker.comment', status: 'succeeded' }, value: 1 }),
      expect.objectContaining({ labels: { kind: 'tracker.comment', status: 'retryable_failure' }, value: 2 }),
      expect.objectContaining({ labels: { kind: 'tracker.comment', status: 'error' }, value: 1 }),
    ]));
  });
});

describe('measureStations', () => {
  it('counts runs by station and outcome and times them, a throwing run as error', async () => {
    const metrics = createServiceMetrics();
    let clock = 0;
    const stations = measureStations({
      intake: async () => { clock += 2_500; return { outcome: 'accepted' }; },
      ci_evaluator: async () => { clock += 500; throw new Error('provider down'); },
    }, metrics, () => clock);
    expect(await stations.intake!({} as StationInput)).toEqual({ outcome: 'accepted' });
    await expect(stations.ci_evaluator!({} as StationInput)).rejects.toThrow('provider down');
    expect(await sample(metrics, 'service_station_runs_total')).toEqual(expect.arrayContaining([
      expect.objectContaining({ labels: { station: 'intake', outcome: 'accepted' }, value: 1 }),
      expect.objectContaining({ labels: { station: 'ci_evaluator', outcome: 'error' }, value: 1 }),
    ]));
    const sums = (await sample(metrics, 'service_station_duration_seconds')).filter((value) => value.metricName === 'service_station_duration_seconds_sum');
    expect(sums).toEqual(expect.arrayContaining([
      expect.objectContaining({ labels: { station: 'intake' }, value: 2.5 }),
      expect.objectContaining({ labels: { station: 'ci_evaluator' }, value: 0.5 }),
    ]));
  });
});
