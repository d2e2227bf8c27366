import { z } from 'zod';
import type { AgentResult, AgentTranscriptEntry, ReviewCycle } from '../agent/agent-task';

/**
 * What the agent reports from inside the container (its result, transcript and review cycles) is written by a
 * process the host does not trust. It is parsed against these schemas, with every string bounded, so a hostile
 * agent can neither crash the station with an odd shape nor fill Temporal's history with megabytes.
 */
const text = (max: number) => z.string().transform((value) => value.slice(0, max));
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const agentResultSchema = z.object({
  status: z.enum(['completed', 'step_cap', 'token_cap', 'failed']),
  message: text(2_000).optional(),
  steps: count,
  tool_calls: count,
  usage: z.object({ input_tokens: count, output_tokens: count }),
  outputs_missing: z.array(text(500)).max(100),
  review: z.object({ verdict: z.enum(['APPROVED', 'REJECTED', 'not_reviewed']), cycles: count }),
  final_text: text(20_000),
  first_tool_call_ms: count.nullable(),
});

const reviewCycleSchema = z.object({
  cycle: count,
  max_cycles: count,
  verdict: z.enum(['APPROVED', 'REJECTED']),
  feedback: text(8_000),
  skill: text(200),
  elapsed_seconds: z.number().nonnegative(),
  timestamp: text(40),
});

const transcriptEntrySchema = z.object({
  at: text(40),
  pass: text(40),
  tool: text(100),
  input: text(2_000),
  output: text(2_000),
  ms: z.number().nonnegative(),
});

function parseJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch {
    return undefined;
  }
}

/** The agent's result, or undefined when the file is not a result of the expected shape. */
export function parseAgentResult(source: string): AgentResult | undefined {
  const parsed = agentResultSchema.safeParse(parseJson(source));
  return parsed.success ? parsed.data : undefined;
}

export function parseReviewCycle(source: string): ReviewCycle | undefined {
  const parsed = reviewCycleSchema.safeParse(parseJson(source));
  return parsed.success ? parsed.data : undefined;
}

/** The transcript's well-formed entries; other lines are skipped. */
export function parseTranscript(source: string): AgentTranscriptEntry[] {
  return source.split('\n').filter(Boolean).flatMap((line) => {
    const parsed = transcriptEntrySchema.safeParse(parseJson(line));
    return parsed.success ? [parsed.data] : [];
  });
}
