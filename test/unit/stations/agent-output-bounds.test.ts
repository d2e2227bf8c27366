import { describe, expect, it } from 'vitest';
import {
  AGENT_OUTPUT_BOUNDS as B, boundedRunRecords, issuesText, keepFirst, keepLast, namesInText, type RunRecords,
} from '../../../activities/stations/agent-output-bounds';
import type { AgentTranscriptEntry, ReviewCycle } from '../../../src/agent/agent-task';

const cycle = (n: number, feedback = 'f'.repeat(8_000)): ReviewCycle => ({
  cycle: n, max_cycles: 4, verdict: 'REJECTED', feedback, skill: 's'.repeat(200), elapsed_seconds: 1, timestamp: 't'.repeat(40),
});
const entry = (n: number): AgentTranscriptEntry => ({ at: 'a'.repeat(40), pass: 'p', tool: `tool-${n}`, input: 'i'.repeat(2_000), output: 'o'.repeat(2_000), ms: n });
const none: RunRecords = { files: [], refused: [], cycles: [], cyclesDropped: 0, cycleListingCut: false, transcript: [], modelCalls: [], toolServerCalls: [] };
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('the lists of a container station result, against an agent that writes without end', () => {
  it('keeps the first 200 changed files of 10,000, each path cut to 500 characters, and says 9,800 were dropped', () => {
    const files = Array.from({ length: 10_000 }, (_, i) => `${i}/${'x'.repeat(16_000)}`);
    const out = boundedRunRecords({ ...none, files });
    expect(out.files).toHaveLength(B.changedFiles);
    expect(out.files[0]!.startsWith('0/')).toBe(true);
    expect(Math.max(...out.files.map((f) => f.length))).toBe(B.pathChars);
    expect(out.files_dropped).toBe(9_800);
  });

  it('keeps the first 50 refused paths of 5,000 with bounded reasons, and says how many more there were', () => {
    const refused = Array.from({ length: 5_000 }, (_, i) => ({ path: `fifo-${i}-${'p'.repeat(5_000)}`, reason: 'r'.repeat(10_000) }));
    const out = boundedRunRecords({ ...none, refused });
    expect(out.refused).toHaveLength(B.refusedPaths);
    expect(out.refused![0]!.path.startsWith('fifo-0-')).toBe(true);
    expect(out.refused!.every((r) => r.path.length <= B.pathChars && r.reason.length <= B.reasonChars)).toBe(true);
    expect(out.refused_dropped).toBe(4_950);
  });

  it('keeps the first 20 review cycles of 1,000 with their feedback cut to 2,000 characters, and counts what the polls left too', () => {
    const out = boundedRunRecords({ ...none, cycles: Array.from({ length: 1_000 }, (_, i) => cycle(i + 1)), cyclesDropped: 7, cycleListingCut: true });
    expect(out.review.cycles.map((c) => c.cycle)).toEqual(Array.from({ length: B.reviewCycles }, (_, i) => i + 1));
    expect(out.review.cycles.every((c) => c.feedback.length === B.cycleFeedbackChars)).toBe(true);
    expect(out.review.cycles_dropped).toBe(980 + 7);
    expect(out.review.cycles_listing_cut_at).toBe(B.cycleNamesPerPoll);
    expect(bytes(out.review), 'serialized cycles').toBeLessThan(64 * 1024);
  });

  it('keeps the last 50 transcript entries, model calls and tool-server calls of 10,000, with bounded texts and dropped counts', () => {
    const modelCalls = Array.from({ length: 10_000 }, (_, i) => ({ at: 'now', status: 502, latency_ms: i, input_tokens: 0, output_tokens: 0, error: 'e'.repeat(100_000) }));
    const toolServerCalls = Array.from({ length: 10_000 }, (_, i) => ({ at: 'now', server: 's'.repeat(10_000), method: 'M'.repeat(1_000), status: 403, latency_ms: i, error: 'e'.repeat(100_000) }));
    const out = boundedRunRecords({ ...none, transcript: Array.from({ length: 10_000 }, (_, i) => entry(i)), modelCalls, toolServerCalls });
    expect(out.transcript.map((e) => e.ms)).toEqual(Array.from({ length: B.transcriptEntries }, (_, i) => 9_950 + i));
    expect(out.transcript.every((e) => e.input.length === B.transcriptInputChars)).toBe(true);
    expect(out.transcript_dropped).toBe(9_950);
    expect(out.model_calls.map((c) => c.latency_ms)[0]).toBe(9_950);
    expect(out.model_calls.every((c) => c.error!.length === B.callErrorChars)).toBe(true);
    expect(out.model_calls_dropped).toBe(9_950);
    expect(out.tool_server_calls).toHaveLength(B.toolServerCalls);
    expect(out.tool_server_calls!.every((c) => c.server.length <= B.callNameChars && c.method.length <= 20 && c.error!.length <= B.callErrorChars)).toBe(true);
    expect(out.tool_server_calls_dropped).toBe(9_950);
    expect(bytes(out), 'serialized lists').toBeLessThan(128 * 1024);
  });

  it('says nothing was dropped when nothing was, and leaves out the optional lists when they are empty', () => {
    const out = boundedRunRecords({ ...none, files: ['a.ts'], cycles: [cycle(1, 'ok')], transcript: [entry(1)] });
    expect(out).toEqual({
      files: ['a.ts'],
      review: { cycles: [cycle(1, 'ok')] },
      transcript: [{ tool: 'tool-1', input: 'i'.repeat(B.transcriptInputChars), ms: 1 }],
      model_calls: [],
    });
  });
});

describe('lists in one line of text', () => {
  it('names the first 20 of 10,000 conflicting files and how many more', () => {
    const text = namesInText(Array.from({ length: 10_000 }, (_, i) => `src/file-${i}.ts`));
    expect(text).toMatch(/^src\/file-0\.ts, .*src\/file-19\.ts and 9980 more$/);
    expect(text).not.toContain('file-20.ts');
    expect(namesInText(['a', 'b'])).toBe('a, b');
  });

  it('names the first 10 of 3,000 schema problems of an agent\'s file and how many more', () => {
    const issues = Array.from({ length: 3_000 }, (_, i) => ({ path: ['findings', i, 'problem'], message: 'Invalid input: expected string' }));
    const text = issuesText(issues);
    expect(text.length).toBeLessThan(1_000);
    expect(text).toContain('findings.0.problem Invalid input');
    expect(text).toMatch(/; and 2990 more problems$/);
    expect(issuesText([{ path: [], message: 'm' }])).toBe('(file) m');
  });

  it('keeps the first or the last items and counts the rest', () => {
    expect(keepFirst([1, 2, 3], 2)).toEqual({ kept: [1, 2], dropped: 1 });
    expect(keepLast([1, 2, 3], 2)).toEqual({ kept: [2, 3], dropped: 1 });
    expect(keepLast([1, 2, 3], 0)).toEqual({ kept: [], dropped: 3 });
    expect(keepFirst([1], 5)).toEqual({ kept: [1], dropped: 0 });
  });
});
