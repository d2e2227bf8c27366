import { describe, expect, it } from 'vitest';
import { decideServiceCommand } from '../../../../workflows/person-commands/command-service-verbs';
import type { CommandPosition } from '../../../../workflows/person-commands/command-types';
import { renderDraft } from '../../../../workflows/person-commands/draft-markdown';
import { applyDraftCommand, draftItemIds, replaceDraftItem, type Draft, type DraftCommand, type DraftItem } from '../../../../workflows/person-commands/drafts';

const item = (id: number, summary: string, repo: string, extra: Partial<DraftItem> = {}): DraftItem => ({
  id, summary, description: `${summary} in detail`, repo, acceptance_criteria: [`${summary} works`], excluded: false, epic_key: null, ...extra,
});
const epics: Draft = { kind: 'epics', items: [item(1, 'Export API', 'acme/api'), item(2, 'Export button', 'acme/web'), item(3, 'Docs', 'acme/web')] };
const tasks: Draft = {
  kind: 'tasks',
  items: [item(1, 'CSV endpoint', 'acme/api', { epic_key: 'FEAT-2' }), item(2, 'Button', 'acme/web', { epic_key: 'FEAT-3' })],
};
const repositories = ['acme/api', 'acme/web'];

/** Parses a comment the way the workflow does, then applies it: the two halves a person's command goes through. */
function edit(draft: Draft, text: string) {
  // `accepts` is what the pinned definition says the gate takes (newer builds ask it; older ones know the node).
  const position = {
    workflow_kind: 'feature' as const, current_node: 'plan_approval_gate', is_blocked: false, is_paused: true, has_pull_request: false,
    draft_item_ids: draftItemIds(draft), accepts: { plan_approval_gate: ['remove', 'exclude', 'update', 'add'] }, gates: {},
  };
  const decision = decideServiceCommand({ text, written_on: 'ticket' }, position as CommandPosition);
  if (decision.kind !== 'command') throw new Error(`not a command: ${JSON.stringify(decision)}`);
  return applyDraftCommand(draft, decision.command as DraftCommand, { repositories, written: text });
}

describe('draft editing', () => {
  it('removes an item and renumbers the ones after it', () => {
    const result = edit(epics, '/service remove 2');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.draft.items.map((i) => [i.id, i.summary])).toEqual([[1, 'Export API'], [2, 'Docs']]);
    expect(result.reply).toBe('✅ `/service remove 2`: removed item 2 ("Export button"); items after it are renumbered (items: 1-2).');
    expect(epics.items).toHaveLength(3);
  });

  it('toggles exclusion', () => {
    const once = edit(epics, '/service exclude 3');
    expect(once.ok && once.draft.items[2]!.excluded).toBe(true);
    const twice = once.ok ? edit(once.draft, '/service exclude 3') : once;
    expect(twice.ok && twice.draft.items[2]!.excluded).toBe(false);
    expect(twice.reply).toContain('included again');
  });

  it('updates quoted fields, multi-line descriptions included', () => {
    const result = edit(epics, '/service update 1 summary="CSV export API" description=\'Line one\nline two\' repo=acme/web');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.draft.items[0]).toMatchObject({ id: 1, summary: 'CSV export API', description: 'Line one\nline two', repo: 'acme/web', acceptance_criteria: ['Export API works'] });
    expect(result.reply).toContain('updated description, repo, summary of item 1');
  });

  it('answers ❌ with the reason and keeps the draft for a repository the project does not have', () => {
    const result = edit(epics, '/service update 2 repo=acme/mobile');
    expect(result).toEqual({ ok: false, reason: '"acme/mobile" is not one of the project\'s repositories (acme/api, acme/web)', reply: expect.stringMatching(/^❌ `\/service update 2 repo=acme\/mobile`: "acme\/mobile" is not one/) });
  });

  it('adds an item at the end; a new item needs a repository', () => {
    const added = edit(epics, '/service add summary="Audit log" repo=acme/api');
    expect(added.ok && added.draft.items[3]).toMatchObject({ id: 4, summary: 'Audit log', repo: 'acme/api', excluded: false, epic_key: null });
    const noRepo = edit(epics, '/service add summary="Audit log"');
    expect(noRepo.ok).toBe(false);
    expect(noRepo.reply).toMatch(/^❌ .*a new epic needs a repository/);
  });

  it('gives a new task the epic of its repository, and refuses a repository no epic works in', () => {
    const added = applyDraftCommand(tasks, { type: 'draft_add', fields: { summary: 'CSV headers', repo: 'acme/api' } }, { repositories });
    expect(added.ok && added.draft.items[2]).toMatchObject({ id: 3, epic_key: 'FEAT-2' });
    const orphan = applyDraftCommand(tasks, { type: 'draft_add', fields: { summary: 'Infra', repo: 'acme/infra' } }, { repositories: [] });
    expect(orphan).toMatchObject({ ok: false, reason: 'no epic of this draft works in acme/infra, so the task would have no epic' });
    const moved = applyDraftCommand(tasks, { type: 'draft_update', item_id: 1, fields: { repo: 'acme/web' } }, { repositories });
    expect(moved.ok && moved.draft.items[0]).toMatchObject({ repo: 'acme/web', epic_key: 'FEAT-3' });
  });

  it('refuses an item id the draft no longer has (a stale command) and a summary the tracker would refuse', () => {
    expect(applyDraftCommand(epics, { type: 'draft_remove', item_id: 9 }, { repositories })).toMatchObject({ ok: false, reason: 'there is no draft item 9 (items: 1-3)' });
    const long = applyDraftCommand(epics, { type: 'draft_update', item_id: 1, fields: { summary: 'x'.repeat(256) } }, { repositories });
    expect(long).toMatchObject({ ok: false, reason: 'the summary has 256 characters; the tracker allows 255' });
    // The echo of the command is cut at 200 characters so the reply stays readable.
    expect(long.reply).toBe(`❌ \`/service update 1 summary="${'x'.repeat(200 - 27)}…\`: the summary has 256 characters; the tracker allows 255.`);
  });

  it('refuses a description longer than a draft item holds', () => {
    const result = applyDraftCommand(epics, { type: 'draft_update', item_id: 1, fields: { description: 'd'.repeat(1_801) } }, { repositories });
    expect(result).toMatchObject({ ok: false, reason: 'the description has 1801 characters; a draft item allows 1800' });
  });

  it('replaces one item for an item-level revision, keeping id, exclusion and epic', () => {
    const draft = replaceDraftItem({ ...tasks, items: [{ ...tasks.items[0]!, excluded: true }, tasks.items[1]!] }, 1, { summary: 'CSV endpoint v2', description: 'new', repo: 'acme/api', acceptance_criteria: ['a'] });
    expect(draft.items[0]).toEqual({ id: 1, summary: 'CSV endpoint v2', description: 'new', repo: 'acme/api', acceptance_criteria: ['a'], excluded: true, epic_key: 'FEAT-2' });
  });
});

describe('draft rendering', () => {
  it('numbers items, strikes excluded ones and says how to edit', () => {
    const text = renderDraft({ kind: 'epics', items: [epics.items[0]!, { ...epics.items[1]!, excluded: true }] }, { ticketKey: 'FEAT-1', revision: 2 });
    expect(text).toContain('## Epic plan for FEAT-1 (revision 2)');
    expect(text).toContain('2 items, 1 to be created.');
    expect(text).toContain('### 1. Export API\n\nRepository: `acme/api`\n\nExport API in detail\n\n**Acceptance criteria**\n\n- Export API works');
    expect(text).toContain('### ~~2. Export button~~ (excluded)');
    expect(text).toContain('`service:plan-approved`');
    expect(renderDraft(tasks, { ticketKey: 'FEAT-1' })).toContain('Repository: `acme/api` · Epic: FEAT-2');
  });
});
