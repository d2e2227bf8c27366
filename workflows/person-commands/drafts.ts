import { describeItems } from './command-args';
import { echo, quoteName } from './command-replies';
import type { Command, DraftFields } from './command-types';

/**
 * Drafts of the epic plan and of the tasks (REFERENCE "Commands", "Tracker conventions"): what a person edits at
 * plan_approval_gate and task_approval_gate before anything is created in the tracker. Editing is pure and
 * deterministic: the workflow applies a parsed draft command (workflows/person-commands/command-service-verbs.ts) and gets the new
 * draft and a ✅ reply, or the reason for a ❌ reply and the draft unchanged.
 */

export interface DraftItem {
  /** Local sequential id, 1..n in order; `/service remove` renumbers the items after it. */
  id: number;
  summary: string;
  description: string;
  /** `owner/repo` from the project's repositories; null until the model or a person assigns one. */
  repo: string | null;
  acceptance_criteria: string[];
  /** Excluded items stay in the draft (shown struck through) and are not provisioned. */
  excluded: boolean;
  /** Tasks: the tracker key of their epic. Epics: null. */
  epic_key: string | null;
}

export interface Draft {
  kind: 'epics' | 'tasks';
  items: DraftItem[];
}

export type DraftCommand = Extract<Command, { type: 'draft_remove' | 'draft_exclude' | 'draft_update' | 'draft_add' }>;

export interface DraftEditOptions {
  /** The repositories an item may name (the project's service.repos, or the fallback); empty = not checked. */
  repositories: readonly string[];
  /** The command as written, echoed in the reply. */
  written?: string;
}

export type DraftEditResult =
  | { ok: true; draft: Draft; reply: string }
  | { ok: false; reason: string; reply: string };

/** The tracker refuses longer summaries. */
export const SUMMARY_LIMIT = 255;
/**
 * A draft travels in the workflow's station outputs, whose strings are cut at 2,000 characters; descriptions and
 * criteria stay under that so what a person approved is what gets created.
 */
export const DESCRIPTION_LIMIT = 1_800;
export const CRITERION_LIMIT = 300;

/** Shortens model-written text to a limit (deterministically, marking the cut). */
export function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1).trimEnd()}…` : text;
}

export function draftItemIds(draft: Draft): number[] {
  return draft.items.map((item) => item.id);
}

function renumber(items: DraftItem[]): DraftItem[] {
  return items.map((item, index) => ({ ...item, id: index + 1 }));
}

function label(item: DraftItem): string {
  return `item ${item.id} (${quoteName(item.summary)})`;
}

/**
 * A task belongs to an epic; a task added or moved to another repository takes the epic of the tasks already in
 * that repository. Undefined when that does not say one epic.
 */
function epicForRepo(draft: Draft, repo: string, except?: number): string | null | undefined {
  const keys = new Set(draft.items.filter((item) => item.id !== except && item.repo === repo && item.epic_key).map((item) => item.epic_key));
  return keys.size === 1 ? [...keys][0]! : undefined;
}

function checkFields(draft: Draft, fields: DraftFields, options: DraftEditOptions, except?: number): string | null {
  if (fields.summary !== undefined) {
    if (fields.summary.trim() === '') return 'the summary is empty';
    if (fields.summary.length > SUMMARY_LIMIT) return `the summary has ${fields.summary.length} characters; the tracker allows ${SUMMARY_LIMIT}`;
  }
  if (fields.description !== undefined && fields.description.length > DESCRIPTION_LIMIT) {
    return `the description has ${fields.description.length} characters; a draft item allows ${DESCRIPTION_LIMIT}`;
  }
  if (fields.repo !== undefined) {
    if (options.repositories.length > 0 && !options.repositories.includes(fields.repo)) {
      return `${quoteName(fields.repo)} is not one of the project's repositories (${options.repositories.join(', ')})`;
    }
    if (draft.kind === 'tasks' && epicForRepo(draft, fields.repo, except) === undefined) {
      return `no epic of this draft works in ${fields.repo}, so the task would have no epic`;
    }
  }
  return null;
}

/** Applies one draft command. Never throws; an impossible edit leaves the draft as it was and says why. */
export function applyDraftCommand(draft: Draft, command: DraftCommand, options: DraftEditOptions): DraftEditResult {
  const written = echo(options.written ?? describeCommand(command));
  const fail = (reason: string, hint = ''): DraftEditResult => ({ ok: false, reason, reply: `❌ \`${written}\`: ${reason}.${hint ? ` ${hint}` : ''}` });
  const done = (items: DraftItem[], what: string): DraftEditResult => ({ ok: true, draft: { kind: draft.kind, items }, reply: `✅ \`${written}\`: ${what}.` });

  if (command.type === 'draft_add') {
    const problem = checkFields(draft, command.fields, options);
    if (problem) return fail(problem);
    // No repository is picked implicitly (SPEC 2.8); a task also finds its epic through it.
    if (command.fields.repo === undefined) return fail(`a new ${draft.kind === 'tasks' ? 'task' : 'epic'} needs a repository`, 'Example: `/service add summary="Export as CSV" repo=acme/api`.');
    const repo = command.fields.repo;
    const item: DraftItem = {
      id: draft.items.length + 1,
      summary: command.fields.summary.trim(),
      description: command.fields.description ?? '',
      repo,
      acceptance_criteria: [],
      excluded: false,
      epic_key: draft.kind === 'tasks' ? epicForRepo(draft, repo) ?? null : null,
    };
    return done([...draft.items, item], `added ${label(item)}`);
  }

  const target = draft.items.find((item) => item.id === command.item_id);
  if (!target) return fail(`there is no draft item ${command.item_id} (${describeItems(draftItemIds(draft))})`, 'Use the numbers of the latest draft comment.');

  switch (command.type) {
    case 'draft_remove': {
      const items = renumber(draft.items.filter((item) => item.id !== target.id));
      const renumbered = target.id <= items.length ? `; items after it are renumbered (${describeItems(draftItemIds({ kind: draft.kind, items }))})` : '';
      return done(items, `removed ${label(target)}${renumbered}`);
    }
    case 'draft_exclude': {
      const excluded = !target.excluded;
      const items = draft.items.map((item) => (item.id === target.id ? { ...item, excluded } : item));
      return done(items, excluded ? `${label(target)} is excluded and will not be created` : `${label(target)} is included again`);
    }
    case 'draft_update': {
      const problem = checkFields(draft, command.fields, options, target.id);
      if (problem) return fail(problem);
      const updated: DraftItem = {
        ...target,
        ...(command.fields.summary !== undefined ? { summary: command.fields.summary.trim() } : {}),
        ...(command.fields.description !== undefined ? { description: command.fields.description } : {}),
        ...(command.fields.repo !== undefined ? { repo: command.fields.repo } : {}),
      };
      if (draft.kind === 'tasks' && command.fields.repo !== undefined && command.fields.repo !== target.repo) {
        updated.epic_key = epicForRepo(draft, command.fields.repo, target.id) ?? target.epic_key;
      }
      const changed = Object.keys(command.fields).sort().join(', ');
      return done(draft.items.map((item) => (item.id === target.id ? updated : item)), `updated ${changed} of item ${target.id}`);
    }
  }
}

/** The command in its written form, for replies when the original text is not at hand. */
export function describeCommand(command: DraftCommand): string {
  const fields = (f: DraftFields) => Object.entries(f).map(([key, value]) => `${key}="${value}"`).join(' ');
  switch (command.type) {
    case 'draft_remove': return `/service remove ${command.item_id}`;
    case 'draft_exclude': return `/service exclude ${command.item_id}`;
    case 'draft_update': return `/service update ${command.item_id} ${fields(command.fields)}`;
    case 'draft_add': return `/service add ${fields(command.fields)}`;
  }
}

/** Replaces one item (a `! <n>: ...` revision), keeping its id, exclusion and epic. */
export function replaceDraftItem(draft: Draft, id: number, revised: Pick<DraftItem, 'summary' | 'description' | 'repo' | 'acceptance_criteria'>): Draft {
  return { kind: draft.kind, items: draft.items.map((item) => (item.id === id ? { ...item, ...revised } : item)) };
}
