import { z } from 'zod';
import type { ModelPolicyKey } from '../../../src/config/model-policy-keys';
import { repoLabels } from '../../../src/planning-context/repo-assignment';
import { composePrompt, referencesSection, ticketSections, type PromptSection } from '../../../src/planning-context/planning-prompt';
import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { toolsFor, type PlanningDeps } from '../planning/document-stations';
import { runModelStep } from '../planning/model-step';
import { readableRepositories } from '../planning/repositories';
import { readTicketMaterial } from '../planning/ticket-material';
import { parseStationInput } from '../station-input';
import { triageOf, type TriageData } from './flow-data';

/**
 * triage_check of the bug and the task-takeover graphs: is the ticket complete enough to work on? The model judges
 * each checklist item; the host keeps the checklist (its order, what counts as missing) and decides what to post.
 */
export interface ChecklistItem {
  id: string;
  label: string;
  /** What the model looks for. */
  hint: string;
}

interface TriageKind {
  key: ModelPolicyKey;
  skill: string;
  checklist: readonly ChecklistItem[];
  /** "To analyse this bug", "To take over this task". */
  purpose: string;
}

export const BUG_CHECKLIST: readonly ChecklistItem[] = [
  { id: 'steps_to_reproduce', label: 'Steps to reproduce', hint: 'the steps or conditions that make the bug happen' },
  { id: 'expected_vs_actual', label: 'Expected vs actual behaviour', hint: 'what should happen and what happens instead' },
  { id: 'environment', label: 'Environment', hint: 'where it happens: deployment, operating system, browser, configuration' },
  { id: 'affected_versions', label: 'Affected versions', hint: 'the release, version or commit that shows the bug' },
  { id: 'error_output', label: 'Error output', hint: 'error messages, stack traces or log lines (or a statement that none appear)' },
  { id: 'affected_component', label: 'Affected component', hint: 'the part of the product or code that misbehaves' },
  { id: 'context', label: 'Context', hint: 'impact, frequency, who is affected, since when' },
];

export const TAKEOVER_CHECKLIST: readonly ChecklistItem[] = [
  { id: 'intent', label: 'Intent', hint: 'why the work is wanted, the problem it solves' },
  { id: 'scope', label: 'Scope', hint: 'what is to change and what is not' },
  { id: 'expected_outcome', label: 'Expected outcome', hint: 'what done looks like and how it can be checked' },
  { id: 'repository', label: 'Repository', hint: 'which repository the change belongs in (a `repo:` label or named in the ticket)' },
];

const BUG: TriageKind = { key: 'bug_triage', skill: 'bug_triage', checklist: BUG_CHECKLIST, purpose: 'To analyse this bug' };
const TAKEOVER: TriageKind = {
  key: 'task_takeover_triage', skill: 'task_takeover_triage', checklist: TAKEOVER_CHECKLIST, purpose: 'To take over this task',
};

const triageSchema = z.object({
  items: z.array(z.object({
    item: z.string().describe('the checklist id, e.g. steps_to_reproduce'),
    present: z.boolean(),
    note: z.string().describe('what the ticket says about it, or what exactly is missing'),
  })).max(30),
});

export type TriageAnswer = z.infer<typeof triageSchema>;

const normalise = (text: string) => text.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');

/**
 * The model's verdict per checklist item, in checklist order: an item it did not mention counts as missing, an item
 * not on the checklist is ignored, and when it names an item twice the first answer counts. `known` are items the
 * host established itself (a configured `repo:` label), present whatever the model said.
 */
export function judgeChecklist(checklist: readonly ChecklistItem[], answer: TriageAnswer, known: readonly string[] = []): Array<{ item: ChecklistItem; present: boolean; note: string }> {
  const byName = new Map<string, ChecklistItem>();
  for (const item of checklist) {
    byName.set(item.id, item);
    byName.set(normalise(item.label), item);
  }
  const answers = new Map<string, { present: boolean; note: string }>();
  for (const entry of answer.items) {
    const item = byName.get(normalise(entry.item));
    if (item && !answers.has(item.id)) answers.set(item.id, { present: entry.present, note: entry.note });
  }
  return checklist.map((item) => {
    const given = answers.get(item.id);
    return { item, present: known.includes(item.id) || given?.present === true, note: given?.note.trim() ?? '' };
  });
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

export interface TriageDecision {
  data: TriageData;
  /** Post the question listing `data.missing` (false when the same set was asked last time). */
  ask: boolean;
}

/** What triage_check does with the judged checklist, given its previous output. Pure. */
export function triageDecision(missing: string[], previous: TriageData | undefined): TriageDecision {
  // The triage gate's label is the gate's: set when it waits, taken off when it is left (workflows/runtime/step.ts).
  if (missing.length === 0) return { data: { verdict: 'complete', missing: [], asked: null }, ask: false };
  const alreadyAsked = previous?.verdict === 'incomplete' && previous.asked !== null && sameSet(previous.asked, missing);
  return { data: { verdict: 'incomplete', missing, asked: missing }, ask: !alreadyAsked };
}

/** Model notes are the ticket's words read back: one short line each in the question. */
function noteLine(note: string): string {
  const flat = note.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299).trimEnd()}…` : flat;
}

export function triageQuestionMarkdown(kind: { purpose: string }, ticketKey: string, missing: Array<{ item: ChecklistItem; note: string }>): string {
  return [
    `## Triage of ${ticketKey}: details needed`,
    '',
    `${kind.purpose}, the ticket still needs:`,
    '',
    ...missing.map(({ item, note }) => `- **${item.label}**${note ? `: ${noteLine(note)}` : ''}`),
    '',
    'Please reply with a comment starting with `!` that gives these details, or edit the ticket description. The ticket is checked again when you do.',
  ].join('\n');
}

function kindOf(input: StationInput): TriageKind {
  if (input.workflow_kind === 'bug') return BUG;
  if (input.workflow_kind === 'task_takeover') return TAKEOVER;
  throw new Error(`triage_check runs in the bug and task-takeover graphs, not in a ${input.workflow_kind} workflow`);
}

function checklistSection(kind: TriageKind): PromptSection {
  return {
    title: 'Checklist (answer for every item, by its id)',
    body: kind.checklist.map((item) => `- \`${item.id}\`: ${item.label}: ${item.hint}`).join('\n'),
  };
}

export function createTriageStation(deps: PlanningDeps): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const kind = kindOf(input);
    const { ticket, references } = await readTicketMaterial(deps.tracker, input.ticket_key, input.project_key);
    const repositories = await readableRepositories(deps.repositories, input, ticket.labels);
    // A takeover names its repository with a configured `repo:` label, or the project has only one: no need to ask.
    const known = kind === TAKEOVER && (repositories.length === 1 || repoLabels(ticket.labels).some((r) => repositories.includes(r))) ? ['repository'] : [];
    const reply = input.request?.kind === 'feedback' && input.request.text.trim() ? input.request : undefined;
    const prompt = composePrompt([
      ...ticketSections(ticket),
      referencesSection(references),
      ...(repositories.length ? [{ title: 'Repositories of the project', body: repositories.map((r) => `- ${r}`).join('\n') }] : []),
      ...(reply ? [{ title: `Latest reply from ${reply.author ?? 'the reporter'}`, body: reply.text }] : []),
      checklistSection(kind),
    ]);
    const { object, usage, target } = await runModelStep(deps, input, { key: kind.key, skill: kind.skill, schema: triageSchema, prompt, tools: toolsFor(deps, repositories) });

    const judged = judgeChecklist(kind.checklist, object, known);
    const missing = judged.filter((j) => !j.present);
    const previous = triageOf(input);
    const decision = triageDecision(missing.map((m) => m.item.id), previous);
    const effects: EffectIntent[] = [];
    if (decision.ask) {
      effects.push({ name: 'triage_question', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: triageQuestionMarkdown(kind, input.ticket_key, missing) }, required: true });
    }
    const summary = decision.data.verdict === 'complete'
      ? `triage complete (${kind.checklist.length} items) by ${target}`
      : `triage incomplete, missing ${missing.map((m) => m.item.label.toLowerCase()).join(', ')}${decision.ask ? '' : ' (asked already)'} by ${target}`;
    return { outcome: decision.data.verdict, data: { ...decision.data }, effects, summary, usage };
  };
}
