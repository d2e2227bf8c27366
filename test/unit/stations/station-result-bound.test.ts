import { describe, expect, it } from 'vitest';
import { boundStationResult, serializedBytes } from '../../../activities/stations/station-result-bound';
import type { StationResult } from '../../../workflows/runtime/station-types';

const big = (kib: number) => 'x'.repeat(kib * 1024);

describe('boundStationResult', () => {
  it('returns a result within its budget as it is', () => {
    const result: StationResult = { outcome: 'changed', data: { files: ['a.ts'], review: { verdict: 'APPROVED', cycles: [] } }, summary: 's' };
    const bounded = boundStationResult(result, 1024);
    expect(bounded.result).toBe(result);
    expect(bounded.trimmed).toEqual([]);
    expect(bounded.bytes).toBe(serializedBytes(result));
  });

  it('empties the largest diagnostic first and only as much as the budget needs, listing what it emptied', () => {
    const result: StationResult = {
      outcome: 'passed',
      data: { verdict: 'passed', transcript: [big(100)], review: { verdict: 'APPROVED', cycles: [big(300), big(1)] }, model_calls: [big(50)], files: [big(200)] },
    };
    const bounded = boundStationResult(result, 400 * 1024);
    expect(bounded.trimmed).toEqual([{ part: 'review.cycles', bytes: expect.any(Number), items: 2 }]);
    expect(bounded.bytes).toBeLessThanOrEqual(400 * 1024);
    expect(bounded.result.data).toMatchObject({ verdict: 'passed', review: { verdict: 'APPROVED', cycles: [] }, transcript: [big(100)], files: [big(200)], trimmed: bounded.trimmed });
    // The input is not changed.
    expect((result.data as { review: { cycles: string[] } }).review.cycles).toHaveLength(2);
  });

  it('goes to the outputs and artifacts last, and never touches the outcome, verdicts, effects or usage', () => {
    const push = { name: 'push', required: true, operation: { kind: 'git.push' as const, repository: 'acme/app', branch: 'b', commit_sha: 'c', base_sha: null, workspace: '/w', mode: 'direct' as const } };
    const result: StationResult = {
      outcome: 'changed', effects: [push], usage: { input_tokens: 1, output_tokens: 2 },
      data: { outputs: { '.service/a.md': big(300) }, files: [big(10)], transcript: [big(10)], agent: { status: 'completed', final_text: big(2) } },
      artifacts: { '.service/a.md': { text: big(300), digest: 'd'.repeat(64) } },
    };
    const bounded = boundStationResult(result, 200 * 1024);
    // Tier by tier (the diagnostics, what later stations read, the outputs), the largest first within each.
    expect(bounded.trimmed.map((t) => t.part)).toEqual(['transcript', 'files', 'agent.final_text', 'artifacts', 'outputs']);
    expect(bounded.bytes).toBeLessThan(200 * 1024);
    expect(bounded.result).toMatchObject({ outcome: 'changed', effects: [push], usage: { input_tokens: 1, output_tokens: 2 }, artifacts: {} });
    expect(bounded.result.data).toMatchObject({ outputs: {}, files: [], transcript: [], agent: { status: 'completed', final_text: '' } });
  });

  it('says when what is left still does not fit, instead of emptying parts the workflow needs', () => {
    const result: StationResult = { outcome: 'changed', data: { repository: big(600), transcript: [big(1)] } };
    const bounded = boundStationResult(result, 512 * 1024);
    expect(bounded.trimmed.map((t) => t.part)).toEqual(['transcript']);
    expect(bounded.bytes).toBeGreaterThan(512 * 1024);
    expect((bounded.result.data as { repository: string }).repository).toHaveLength(600 * 1024);
  });
});
