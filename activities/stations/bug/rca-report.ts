import { z } from 'zod';

/**
 * The root-cause analysis the agent writes as `.service/rca.json` (REFERENCE "Bug analysis"). It is the container's
 * output, so it is hostile input: every field is bounded, and the host posts only what this schema let through.
 * Text fields stay under the 2,000 characters the workflow keeps of an output string (workflows/runtime/bounded-json.ts), so
 * the analysis reflect_rca and the comment see is the one the agent wrote, not a cut copy.
 */
const text = (max: number) => z.string().trim().min(1).max(max);

export const rcaOptionSchema = z.object({
  title: text(200),
  description: text(1_800),
  tradeoffs: text(1_800),
});

export const rcaReportSchema = z.object({
  summary: text(1_800),
  code_location: z.object({
    file: text(500),
    function: z.string().trim().max(300).default(''),
    line_range: z.string().trim().max(50).default(''),
  }),
  mechanism: text(1_800),
  trigger_to_symptom: text(1_800),
  hypothesis_log: z.array(text(1_000)).max(20).default([]),
  introduced_in: z.string().trim().max(500).default('unknown'),
  confidence: z.object({
    level: z.enum(['low', 'medium', 'high']),
    percentage: z.number().int().min(0).max(100),
    rationale: text(1_800),
  }),
  reproducibility: z.string().trim().max(1_000).default('unknown'),
  options: z.array(rcaOptionSchema).min(1, 'at least one fix option').max(4, 'at most four fix options'),
});

export type RcaReport = z.infer<typeof rcaReportSchema>;
export type RcaOption = z.infer<typeof rcaOptionSchema>;

export const RCA_FILE = '.service/rca.json';

/** Reads the agent's `.service/rca.json`; the errors name the fields, so the agent can be asked to fix exactly those. */
export function parseRcaReport(raw: string | undefined): { ok: true; rca: RcaReport } | { ok: false; errors: string[] } {
  if (raw === undefined) return { ok: false, errors: [`${RCA_FILE} was not written`] };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { ok: false, errors: [`${RCA_FILE} is not JSON: ${(error as Error).message.slice(0, 200)}`] };
  }
  const parsed = rcaReportSchema.safeParse(json);
  if (parsed.success) return { ok: true, rca: parsed.data };
  return { ok: false, errors: parsed.error.issues.slice(0, 20).map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`) };
}
