import { commentParts } from './comment-parts';
import type { EffectIntent } from '../runtime/station-types';
import { stageLabelChange, type StageLabel } from '../vocabulary/labels';

/**
 * The writes that show an artifact at its gate: one comment per part (`post_<artifact>_part_<i>`, required) and the
 * one labels edit that leaves the gate's pending label as the only stage label (`set_stage_label`). Pure, shared by
 * the station activities and the workflow (which re-posts an edited draft), so the same artifact always asks for the
 * same writes under the same names.
 */
export function artifactPostIntents(input: { issueKey: string; artifact: string; markdown: string; pendingLabel?: StageLabel; partLimit?: number }): EffectIntent[] {
  const parts = commentParts(input.markdown, input.partLimit);
  const intents: EffectIntent[] = parts.map((body, index) => ({
    name: `post_${input.artifact}_part_${index + 1}`,
    operation: { kind: 'tracker.comment', issue_key: input.issueKey, body },
    required: true,
  }));
  if (input.pendingLabel) {
    intents.push({ name: 'set_stage_label', operation: { kind: 'tracker.labels', issue_key: input.issueKey, ...stageLabelChange(input.pendingLabel) }, required: true });
  }
  return intents;
}
