import { commentParts } from './comment-parts';
import type { EffectIntent } from '../runtime/station-types';

/**
 * The writes that show an artifact at its gate: one comment per part (`post_<artifact>_part_<i>`, required). Pure,
 * shared by the station activities and the workflow (which re-posts an edited draft), so the same artifact always
 * asks for the same writes under the same names. The gate's pending label is the gate's own write when the ticket
 * enters it (`stage_label`, workflows/runtime/step.ts); stations of earlier builds also set it (`set_stage_label`),
 * and their recorded results still do on replay.
 */
export function artifactPostIntents(input: { issueKey: string; artifact: string; markdown: string; partLimit?: number }): EffectIntent[] {
  const parts = commentParts(input.markdown, input.partLimit);
  const intents: EffectIntent[] = parts.map((body, index) => ({
    name: `post_${input.artifact}_part_${index + 1}`,
    operation: { kind: 'tracker.comment', issue_key: input.issueKey, body },
    required: true,
  }));
  return intents;
}
