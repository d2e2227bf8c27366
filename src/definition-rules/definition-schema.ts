import { z } from 'zod';
import { DEFINITION_API_VERSION, type WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';

/**
 * The shape of a workflow definition (DESIGN 6). Strict objects: an unknown field is an error, so a definition
 * cannot smuggle in code, URLs or provider calls under a name the interpreter ignores. Meaning (known stations,
 * reachability, mapped outcomes) is checked by validateDefinition.
 */
const name = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'expected lower_snake_case, at most 64 characters');
const target = z.string().regex(/^(\$return|[a-z][a-z0-9_]{0,63})$/, 'expected a node name or $return');
const on = z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'expected an outcome in lower_snake_case'), target);
const trigger = z.string().min(1).max(64);
const label = z.string().regex(/^service:[a-z0-9-]+$/, 'expected a service:<name> label');
const paramValue = z.union([z.string().max(200), z.number(), z.boolean()]);

const station = z.strictObject({
  kind: z.literal('station'),
  station: name,
  model_key: name.optional(),
  params: z.record(name, paramValue).optional(),
  retry_bound: z.number().int().min(1).max(1000).optional(),
  on_exhausted: target.optional(),
  exhausted_code: name.optional(),
  timeout_seconds: z.number().int().min(1).max(86_400).optional(),
  accepts: z.array(trigger).optional(),
  counts_ci_fix_attempt: z.boolean().optional(),
  resets_ci_fix_attempts_on: name.optional(),
  takes_rebase_target: z.boolean().optional(),
  on,
});
const gate = z.strictObject({
  kind: z.literal('gate'),
  gate: name,
  artifact: name.optional(),
  pending_label: label.optional(),
  approved_label: label.optional(),
  accepts: z.array(trigger),
  auto_approve_in_yolo: z.boolean().optional(),
  waiting_for: z.string().max(300).optional(),
  retry_to: name.optional(),
  reviews_proposal: z.enum(['prd', 'spec']).optional(),
  feedback_retriages: z.boolean().optional(),
  on,
});
const router = z.strictObject({ kind: z.literal('router'), router: name, repositories_from: name.optional(), accepts: z.array(trigger).optional(), on });
const end = z.strictObject({
  kind: z.literal('end'),
  result: z.enum(['completed', 'blocked']),
  code: name.optional(),
  message: z.string().max(300).optional(),
});

export const definitionSchema = z.strictObject({
  apiVersion: z.literal(DEFINITION_API_VERSION),
  name,
  revision: z.number().int().min(1),
  description: z.string().max(500).optional(),
  entry: name,
  nodes: z.record(name, z.discriminatedUnion('kind', [station, gate, router, end])),
});

/** Parses unknown input into a definition, or the problems with their paths (`nodes.generate_prd.on: ...`). */
export function parseDefinition(input: unknown): { ok: true; definition: WorkflowDefinition } | { ok: false; problems: string[] } {
  const result = definitionSchema.safeParse(input);
  if (result.success) return { ok: true, definition: result.data as WorkflowDefinition };
  return { ok: false, problems: result.error.issues.map((issue) => `${issue.path.join('.') || '(definition)'}: ${issue.message}`) };
}
