import { artifactPostIntents } from '../effects/artifact-posting';
import { renderDraft } from './draft-markdown';
import { applyDraftCommand, draftItemIds, type Draft, type DraftCommand } from './drafts';
import type { EffectIntent } from '../runtime/station-types';

/**
 * A `/service remove|exclude|update|add` at plan_approval_gate or task_approval_gate, as the workflow carries it
 * out: the draft from the station's output, the edit, and the writes that answer it. Pure; the workflow stores the
 * returned output and runs the intents. Names carry the edit's number at this gate, because the same gate visit
 * can take many edits and each must post its own comments (the same name would be adopted as already written).
 */

/** The station whose output holds the draft shown at each draft gate's artifact. */
export const DRAFT_STATIONS: Record<string, { station: string; kind: Draft['kind'] }> = {
  plan: { station: 'decompose_epics', kind: 'epics' },
  tasks: { station: 'generate_tasks', kind: 'tasks' },
};

export interface DraftGateEdit {
  ticketKey: string;
  /** The gate's artifact: `plan` or `tasks`. */
  artifact: string;
  outputs: Record<string, unknown>;
  command: DraftCommand;
  /** The comment as written, echoed in the reply. */
  written?: string;
  /** 1 for the first edit at this gate visit, then 2, ... */
  edition: number;
}

export type DraftGateResult =
  | {
    ok: true;
    /** The new `outputs[station]` (the draft replaced, the rest kept). */
    output: Record<string, unknown>;
    station: string;
    draft: Draft;
    /** The re-rendered draft: the artifact's new text. */
    text: string;
    intents: EffectIntent[];
  }
  | { ok: false; reason: string; intents: EffectIntent[] };

function draftOf(output: unknown, kind: Draft['kind']): Draft | undefined {
  const draft = (output as { draft?: Draft } | undefined)?.draft;
  return draft && draft.kind === kind && Array.isArray(draft.items) ? draft : undefined;
}

export function editDraftAtGate(input: DraftGateEdit): DraftGateResult {
  const target = DRAFT_STATIONS[input.artifact];
  const reply = (body: string): EffectIntent => ({ name: `draft_edit_${input.edition}_reply`, operation: { kind: 'tracker.comment', issue_key: input.ticketKey, body } });
  if (!target) return { ok: false, reason: `${input.artifact} is not a draft`, intents: [] };
  const output = (input.outputs[target.station] ?? {}) as Record<string, unknown>;
  const draft = draftOf(output, target.kind);
  if (!draft) {
    const reason = `there is no ${target.kind} draft to edit yet`;
    return { ok: false, reason, intents: [reply(`❌ ${reason}.`)] };
  }
  const repositories = Array.isArray(output.repositories) ? (output.repositories as unknown[]).filter((r): r is string => typeof r === 'string') : [];
  const result = applyDraftCommand(draft, input.command, { repositories, written: input.written });
  if (!result.ok) return { ok: false, reason: result.reason, intents: [reply(result.reply)] };
  const text = renderDraft(result.draft, { ticketKey: input.ticketKey });
  return {
    ok: true,
    output: { ...output, draft: result.draft },
    station: target.station,
    draft: result.draft,
    text,
    intents: [reply(result.reply), ...artifactPostIntents({ issueKey: input.ticketKey, artifact: `${input.artifact}_edit_${input.edition}`, markdown: text })],
  };
}

/** The item ids of the draft at a gate, for the command parser's position (`draft_item_ids`). */
export function draftIdsAtGate(artifact: string, outputs: Record<string, unknown>): number[] {
  const target = DRAFT_STATIONS[artifact];
  const draft = target ? draftOf(outputs[target.station], target.kind) : undefined;
  return draft ? draftItemIds(draft) : [];
}
