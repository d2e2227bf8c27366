import { describe, expect, it } from 'vitest';
import { draftIdsAtGate, editDraftAtGate } from '../../../../workflows/person-commands/draft-gate';
import type { Draft } from '../../../../workflows/person-commands/drafts';

const draft: Draft = {
  kind: 'epics',
  items: [1, 2, 3].map((id) => ({ id, summary: `Epic ${id}`, description: '', repo: 'acme/api', acceptance_criteria: [], excluded: false, epic_key: null })),
};
const outputs = { decompose_epics: { artifact: 'plan', draft, repositories: ['acme/api', 'acme/web'] } };

describe('a draft command at the gate', () => {
  it('replaces the draft in the station output, answers ✅ and re-posts the draft under names of its own', () => {
    const result = editDraftAtGate({ ticketKey: 'FEAT-1', artifact: 'plan', outputs, command: { type: 'draft_remove', item_id: 1 }, written: '/service remove 1', edition: 2 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.station).toBe('decompose_epics');
    expect(result.output).toMatchObject({ artifact: 'plan', repositories: ['acme/api', 'acme/web'], draft: { items: [{ id: 1, summary: 'Epic 2' }, { id: 2, summary: 'Epic 3' }] } });
    expect(result.intents.map((i) => i.name)).toEqual(['draft_edit_2_reply', 'post_plan_edit_2_part_1']);
    expect(result.intents[0]!.operation).toMatchObject({ kind: 'tracker.comment', body: expect.stringMatching(/^✅ `\/service remove 1`/) });
    expect(result.text).toContain('### 2. Epic 3');
    expect(draftIdsAtGate('plan', { decompose_epics: result.output })).toEqual([1, 2]);
  });

  it('answers ❌ and changes nothing when the edit is not possible', () => {
    const result = editDraftAtGate({ ticketKey: 'FEAT-1', artifact: 'plan', outputs, command: { type: 'draft_update', item_id: 2, fields: { repo: 'acme/mobile' } }, edition: 1 });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('"acme/mobile" is not one of the project\'s repositories') });
    expect(result.intents).toHaveLength(1);
    expect(result.intents[0]!.operation).toMatchObject({ body: expect.stringMatching(/^❌ `\/service update 2 repo="acme\/mobile"`/) });
  });

  it('says so when the gate has no draft', () => {
    expect(editDraftAtGate({ ticketKey: 'FEAT-1', artifact: 'tasks', outputs, command: { type: 'draft_exclude', item_id: 1 }, edition: 1 })).toMatchObject({ ok: false, reason: 'there is no tasks draft to edit yet' });
    expect(draftIdsAtGate('tasks', outputs)).toEqual([]);
  });
});
