import { z } from 'zod';
import { readYamlDocument } from './yaml-file';

/**
 * `test-skill eval --criteria` (REFERENCE "Skills and evaluation"): which skill is judged, by which model, against
 * which gold standard file, and the criteria the judge scores 0-2. `weight` is `critical` or `important`: a critical
 * criterion scored 0 is a critical failure; in the percentage a critical criterion counts twice.
 */
const criterionSchema = z.object({
  id: z.string({ error: 'required: a short identifier' }).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, "_", "." and "-" only (it becomes a metric name)'),
  name: z.string({ error: 'required: a readable name' }).trim().min(1, 'must not be empty'),
  weight: z.enum(['critical', 'important'], { error: 'expected critical or important' }),
  prompt: z.string({ error: 'required: what the judge checks' }).trim().min(1, 'must not be empty'),
}).strict();

export const evalCriteriaSchema = z.object({
  skill: z.string({ error: 'required: the skill being judged' }).trim().min(1),
  judge_model: z.string({ error: 'required: the judge model, "connection:model" or a model name' }).trim().min(1),
  gold_standard_file: z.string({ error: 'required: the gold standard file name inside each dataset case' }).trim().min(1),
  generated_file_patterns: z.array(z.string().trim().min(1), { error: 'expected a list of glob patterns, e.g. ["*.md"]' }).min(1, 'needs at least one pattern'),
  criteria: z.array(criterionSchema, { error: 'expected a list of criteria' }).min(1, 'needs at least one criterion'),
  pass_threshold: z.number({ error: 'expected a number from 0 to 1 (share of criteria that must pass)' }).min(0).max(1).default(0.7),
  fail_on_critical: z.boolean({ error: 'expected true or false' }).default(true),
}).strict().superRefine((value, context) => {
  const seen = new Set<string>();
  value.criteria.forEach((criterion, index) => {
    if (seen.has(criterion.id)) context.addIssue({ code: 'custom', path: ['criteria', index, 'id'], message: `duplicate criterion id "${criterion.id}"` });
    seen.add(criterion.id);
  });
});

export type EvalCriteria = z.infer<typeof evalCriteriaSchema>;
export type EvalCriterion = EvalCriteria['criteria'][number];

export function loadEvalCriteria(file: string): EvalCriteria {
  return readYamlDocument(file, evalCriteriaSchema);
}
