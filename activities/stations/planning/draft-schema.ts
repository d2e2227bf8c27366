import { z } from 'zod';
import type { Draft } from '../../../workflows/person-commands/drafts';
import type { StationInput } from '../../../workflows/runtime/station-types';

export const draftItemSchema = z.object({
  id: z.number().int().positive(),
  summary: z.string(),
  description: z.string(),
  repo: z.string().nullable(),
  acceptance_criteria: z.array(z.string()),
  excluded: z.boolean(),
  epic_key: z.string().nullable(),
});

export const draftSchema = z.object({ kind: z.enum(['epics', 'tasks']), items: z.array(draftItemSchema) });

/**
 * The latest draft a station produced, as the workflow keeps it in `outputs[station].draft` (the workflow replaces
 * it there after each accepted `/service` edit). Undefined when there is none yet.
 */
export function currentDraft(input: StationInput, station: string, kind: Draft['kind']): Draft | undefined {
  const output = input.outputs[station] as { draft?: unknown } | undefined;
  if (output?.draft === undefined) return undefined;
  const parsed = draftSchema.safeParse(output.draft);
  if (!parsed.success) throw new Error(`outputs.${station}.draft is not a draft: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  if (parsed.data.kind !== kind) throw new Error(`outputs.${station}.draft is a draft of ${parsed.data.kind}, expected ${kind}`);
  return parsed.data;
}
