import type { Draft, DraftItem } from './drafts';
import { STAGE_LABEL } from '../vocabulary/labels';

/**
 * A draft as the tracker comment a person reads at the gate: numbered items with their repository and acceptance
 * criteria, excluded items struck through, and the commands that edit it. Pure, so the station and the workflow
 * (re-posting an edited draft) render the same text.
 */

const TITLES: Record<Draft['kind'], string> = { epics: 'Epic plan', tasks: 'Tasks' };
const APPROVED_LABEL: Record<Draft['kind'], string> = { epics: STAGE_LABEL.planApproved, tasks: STAGE_LABEL.taskApproved };

function renderItem(item: DraftItem): string {
  const heading = item.excluded ? `### ~~${item.id}. ${item.summary}~~ (excluded)` : `### ${item.id}. ${item.summary}`;
  const facts = [`Repository: ${item.repo ? `\`${item.repo}\`` : '**not assigned**'}`];
  if (item.epic_key) facts.push(`Epic: ${item.epic_key}`);
  const lines = [heading, '', facts.join(' · ')];
  if (item.description.trim()) lines.push('', item.description.trim());
  if (item.acceptance_criteria.length) lines.push('', '**Acceptance criteria**', '', ...item.acceptance_criteria.map((criterion) => `- ${criterion}`));
  return lines.join('\n');
}

export function renderDraft(draft: Draft, options: { ticketKey: string; revision?: number }): string {
  const active = draft.items.filter((item) => !item.excluded).length;
  const title = `## ${TITLES[draft.kind]} for ${options.ticketKey}${options.revision && options.revision > 1 ? ` (revision ${options.revision})` : ''}`;
  const count = `${draft.items.length} item${draft.items.length === 1 ? '' : 's'}${active !== draft.items.length ? `, ${active} to be created` : ''}.`;
  const body = draft.items.length ? draft.items.map(renderItem).join('\n\n') : '_The draft has no items._';
  return [title, '', count, '', body, '', draftHelp(draft.kind)].join('\n');
}

export function draftHelp(kind: Draft['kind']): string {
  return [
    '---',
    `Approve with \`/service approve\` or the label \`${APPROVED_LABEL[kind]}\`. Edit with \`/service remove <n>\`,`,
    '`/service exclude <n>` (toggles), `/service update <n> summary="..." description="..." repo=owner/repo` or',
    '`/service add summary="..." repo=owner/repo`. Reply `! <feedback>` to revise the whole draft, `! <n>: <feedback>`',
    'to revise one item, or `? <question>` to ask about it.',
  ].join('\n');
}
