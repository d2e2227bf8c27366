import { createHash } from 'node:crypto';
import { editDraftAtGate, type DraftGateEdit, type DraftGateResult } from '../workflows/person-commands/draft-gate';

export type DraftEditResult = DraftGateResult & { digest?: string };

/**
 * A `/service remove|exclude|update|add` at a draft gate. The edit itself is a pure function (workflows/person-commands/draft-gate.ts);
 * it runs here because the edited draft is an artifact whose sha256 the approval snapshots, and workflow code has no
 * crypto.
 */
export function createDraftEditActivities() {
  return {
    async editDraft(input: DraftGateEdit): Promise<DraftEditResult> {
      const result = editDraftAtGate(input);
      return result.ok ? { ...result, digest: createHash('sha256').update(result.text, 'utf8').digest('hex') } : result;
    },
  };
}

export type DraftEditActivities = ReturnType<typeof createDraftEditActivities>;
