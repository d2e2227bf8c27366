import { describe, expect, it } from 'vitest';
import { AGENT_OUTPUT_BOUNDS as B } from '../../../activities/stations/agent-output-bounds';
import { containerStationResult, type ContainerRunFacts } from '../../../activities/stations/container-result';
import type { ReviewCycleTally } from '../../../activities/stations/review-cycle-poll';
import { STATION_RESULT_BUDGET_BYTES } from '../../../activities/stations/station-result-bound';

/** The characters of a string as the agent chooses them: plain, or the one that costs six bytes of JSON each. */
type Fill = (length: number) => string;
const ascii: Fill = (length) => 'a'.repeat(length);
const escaped: Fill = (length) => '\u0001'.repeat(length);
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** How many outputs a station declares: the host's choice, one in every station of this build; three here. */
const OUTPUTS = 3;
const OUTPUT_CHARS = 32_000;

/**
 * A run whose agent wrote far past every bound, each string at (or past) its bound: what the container station
 * hands containerStationResult after the host read it (outputs already cut to their 32,000 characters).
 */
function worstRun(fill: Fill): ContainerRunFacts {
  const cycles: ReviewCycleTally = { kept: new Map(), dropped: 980, listingCut: false };
  for (let n = 1; n <= B.reviewCycles; n += 1) {
    cycles.kept.set(n, { cycle: n, max_cycles: 1_000, verdict: 'REJECTED', feedback: fill(8_000), skill: fill(200), elapsed_seconds: 1, timestamp: fill(40) });
  }
  return {
    station: 'local_review', outcome: 'changed', repository: 'acme/app',
    workspace: { branch: 'service/f-1', baseSha: 'b'.repeat(40), resumed: true },
    commit: { sha: 'c'.repeat(40), files: Array.from({ length: 10_000 }, (_, i) => `${i}${fill(16_000)}`) },
    push: { hostDir: '/work/f-1/host', mode: 'direct' },
    outputs: Object.fromEntries(Array.from({ length: OUTPUTS }, (_, i) => [`.service/out-${i}.md`, fill(OUTPUT_CHARS)])),
    refused: Array.from({ length: 5_000 }, (_, i) => ({ path: `${i}${fill(16_000)}`, reason: fill(10_000) })),
    agent: {
      status: 'completed', message: fill(2_000), steps: 60, tool_calls: 59, usage: { input_tokens: 1, output_tokens: 1 }, outputs_missing: [],
      review: { verdict: 'REJECTED', cycles: 1_000 }, final_text: fill(20_000), first_tool_call_ms: 1,
    },
    cycles,
    transcript: Array.from({ length: 10_000 }, (_, i) => ({ at: fill(40), pass: fill(40), tool: fill(100), input: fill(2_000), output: fill(2_000), ms: i })),
    modelCalls: Array.from({ length: 10_000 }, (_, i) => ({ at: fill(40), status: 502, latency_ms: i, input_tokens: 1, output_tokens: 1, usage_estimated: true as const, error: fill(100_000) })),
    toolServerCalls: Array.from({ length: 10_000 }, (_, i) => ({ at: fill(40), server: fill(100), method: fill(20), status: 403, latency_ms: i, error: fill(100_000) })),
    container: { name: 'service-f-1', exitCode: 0, durationMs: 1, warnings: [], egress: false },
    timings: { setup_ms: 1, agent_ms: 1, teardown_ms: 1 },
    usage: { input_tokens: 1, output_tokens: 1, model: 'sim:agent-model' },
  };
}

describe('the container station result, whatever the agent wrote', () => {
  it(`stays under ${STATION_RESULT_BUDGET_BYTES / 1024} KiB with every list and string at its bound in plain text, without trimming anything`, () => {
    const { result, bytes: size, trimmed } = containerStationResult(worstRun(ascii));
    expect(trimmed).toEqual([]);
    expect(size).toBe(bytes(result));
    expect(size).toBeLessThan(STATION_RESULT_BUDGET_BYTES);
    const data = result.data as Record<string, any>;
    expect(data.files).toHaveLength(B.changedFiles);
    expect(data.files_dropped).toBe(9_800);
    expect(data.refused_dropped).toBe(4_950);
    expect(data.review).toMatchObject({ verdict: 'REJECTED', cycles_dropped: 980 });
    expect(data.review.cycles).toHaveLength(B.reviewCycles);
    expect(data.transcript_dropped).toBe(9_950);
    expect(data.model_calls_dropped).toBe(9_950);
    expect(data.tool_server_calls_dropped).toBe(9_950);
    expect(Object.values(data.outputs as Record<string, string>).map((text) => text.length)).toEqual(Array(OUTPUTS).fill(OUTPUT_CHARS));
  });

  it(`stays under ${STATION_RESULT_BUDGET_BYTES / 1024} KiB when every string is made of characters JSON escapes, trimming the diagnostics first and saying so`, () => {
    const { result, bytes: size, trimmed } = containerStationResult(worstRun(escaped));
    expect(size).toBe(bytes(result));
    expect(size).toBeLessThan(STATION_RESULT_BUDGET_BYTES);
    const parts = trimmed.map((t) => t.part);
    expect(parts.slice(0, 5).sort()).toEqual(['model_calls', 'refused', 'review.cycles', 'tool_server_calls', 'transcript']);
    const data = result.data as Record<string, any>;
    expect(data.trimmed).toEqual(trimmed);
    expect(trimmed.find((t) => t.part === 'review.cycles')).toMatchObject({ items: B.reviewCycles });
    // What the workflow routes on and the push stay whole; the dropped counts stay beside the emptied lists.
    expect(result.outcome).toBe('changed');
    expect(data).toMatchObject({ repository: 'acme/app', commit_sha: 'c'.repeat(40), review: { verdict: 'REJECTED', cycles: [], cycles_dropped: 980 }, files_dropped: 9_800 });
    expect(result.effects?.map((e) => e.operation)).toEqual([expect.objectContaining({ kind: 'git.push', commit_sha: 'c'.repeat(40) })]);
  });

  it('keeps the outputs of a station that declares one, even in the escaped worst case', () => {
    const run = worstRun(escaped);
    run.outputs = { '.service/local_review.json': escaped(OUTPUT_CHARS) };
    const { result, bytes: size, trimmed } = containerStationResult(run);
    expect(size).toBeLessThan(STATION_RESULT_BUDGET_BYTES);
    expect(trimmed.map((t) => t.part)).not.toContain('outputs');
    expect((result.data as { outputs: Record<string, string> }).outputs['.service/local_review.json']).toHaveLength(OUTPUT_CHARS);
    expect(result.artifacts?.['.service/local_review.json']?.text).toHaveLength(OUTPUT_CHARS);
  });
});
