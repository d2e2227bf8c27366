import { z } from 'zod';
import type { ArtifactRecord, StationInput } from '../../workflows/runtime/station-types';

/** Validates what the workflow hands a station (workflows/runtime/station-types.ts); a malformed input is a bug, not data. */
const artifactRecord = z.object({
  text: z.string(),
  digest: z.string(),
  version: z.number().int(),
  updated_at: z.string(),
  approved: z.object({ digest: z.string(), at: z.string(), by: z.string().optional(), text: z.string().optional() }).optional(),
});

export const stationInputSchema = z.object({
  ticket_key: z.string().regex(/^[A-Z][A-Z0-9_]*-\d+$/, 'must be an issue key'),
  project_key: z.string().min(1),
  issue_type: z.string().nullable(),
  workflow_kind: z.string(),
  run_id: z.string().min(1),
  node: z.string().min(1),
  station: z.string().min(1),
  visit: z.number().int().positive(),
  model_key: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  artifacts: z.record(z.string(), artifactRecord),
  outputs: z.record(z.string(), z.unknown()),
  request: z.object({
    kind: z.enum(['feedback', 'question', 'regenerate', 'draft_item_feedback', 'option_selected']),
    option: z.number().int().positive().optional(),
    text: z.string(),
    item_id: z.number().int().positive().optional(),
    author: z.string().optional(),
  }).optional(),
  pull_requests: z.array(z.string()).optional(),
  token_budget: z.number().nullable(),
  spend: z.object({ ticket: z.number().int().min(0), stages: z.record(z.string(), z.number().int().min(0)) }).optional(),
});

export function parseStationInput(raw: StationInput): StationInput {
  return stationInputSchema.parse(raw) as StationInput;
}

/**
 * The text a later station builds on (issue 17, trusted input): the snapshot a gate approved when there is one,
 * whatever the artifact says now; otherwise the latest text.
 */
export function trustedArtifactText(record: ArtifactRecord): { text: string; approved: boolean } {
  if (record.approved?.text !== undefined) return { text: record.approved.text, approved: true };
  return { text: record.text, approved: record.approved?.digest === record.digest };
}
