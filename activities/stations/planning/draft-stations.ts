import { z } from 'zod';
import { composePrompt, referencesSection, ticketSections, type PromptSection } from '../../../src/planning-context/planning-prompt';
import type { ModelPolicyKey } from '../../../src/config/model-policy-keys';
import { artifactPostIntents } from '../../../workflows/effects/artifact-posting';
import { renderDraft } from '../../../workflows/person-commands/draft-markdown';
import { clip, CRITERION_LIMIT, DESCRIPTION_LIMIT, replaceDraftItem, type Draft, type DraftItem } from '../../../workflows/person-commands/drafts';
import type { StationActivity, StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { parseStationInput } from '../station-input';
import { artifactSections, requestSections, sha256, toolsFor, type PlanningDeps } from './document-stations';
import { currentDraft } from './draft-schema';
import { runModelStep } from './model-step';
import { provisionedEpics } from './provisioned-items';
import { ticketRepositories } from './repositories';
import { readTicketMaterial } from './ticket-material';

export type DraftStationDeps = PlanningDeps;

type NewItem = Omit<DraftItem, 'id' | 'excluded'>;

const criteria = z.array(z.string().trim().min(1)).max(20);
const summary = z.string().trim().min(1).max(255);
const description = z.string().describe(`Markdown, at most ${DESCRIPTION_LIMIT} characters`);

function repoEnum(allowed: string[]) {
  return z.enum(allowed as [string, ...string[]]);
}

/** The draft, posted at its gate, with the draft itself in `data` so the workflow can apply `/service` edits. */
function draftResult(deps: DraftStationDeps, input: StationInput, spec: { artifact: string; title: string }, draft: Draft, repositories: string[], usage: StationResult['usage'], target: string, how: string): StationResult {
  const revision = (input.artifacts[spec.artifact]?.version ?? 0) + 1;
  const text = renderDraft(draft, { ticketKey: input.ticket_key, revision });
  const effects = artifactPostIntents({ issueKey: input.ticket_key, artifact: spec.artifact, markdown: text, partLimit: deps.partLimit });
  const digest = sha256(text);
  return {
    outcome: 'generated',
    data: { artifact: spec.artifact, digest, revision, draft, repositories },
    artifacts: { [spec.artifact]: { text, digest } },
    effects,
    summary: `${spec.title} ${how}: ${draft.items.length} item${draft.items.length === 1 ? '' : 's'} (revision ${revision}) by ${target}`,
    usage,
  };
}

/** Model text bounded to what a draft item holds (see DESCRIPTION_LIMIT). */
function bounded(item: NewItem): NewItem {
  return { ...item, description: clip(item.description, DESCRIPTION_LIMIT), acceptance_criteria: item.acceptance_criteria.map((c) => clip(c, CRITERION_LIMIT)) };
}

function toDraft(kind: Draft['kind'], items: NewItem[]): Draft {
  return { kind, items: items.map((item, index) => ({ ...item, id: index + 1, excluded: false })) };
}

interface DraftStationSpec<TItem> {
  station: string;
  key: ModelPolicyKey;
  artifact: string;
  title: string;
  kind: Draft['kind'];
  /** Everything the model gets besides the ticket; the repositories it may use. */
  prepare(input: StationInput, repositories: string[]): Promise<{ sections: PromptSection[]; item: z.ZodType<TItem>; toItem(item: TItem, previous?: DraftItem): NewItem }>;
}

/**
 * decompose_epics and generate_tasks: a draft of items written by the model, each with a repository from the
 * ticket's allowed ones (an enum in the schema, so an invented repository fails validation). `!` feedback revises
 * the whole draft; `! <n>: ...` (draft_item_feedback) revises only item n, keeping the rest as edited.
 */
function draftStation<TItem>(deps: DraftStationDeps, spec: DraftStationSpec<TItem>): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const { ticket, references } = await readTicketMaterial(deps.tracker, input.ticket_key, input.project_key);
    const repositories = await ticketRepositories(deps.repositories, input, ticket.labels);
    const prepared = await spec.prepare(input, repositories);
    const existing = currentDraft(input, spec.station, spec.kind);
    const base = [
      ...ticketSections(ticket),
      ...artifactSections(input, { prd: 'PRD', spec: 'technical specification' }),
      referencesSection(references),
      { title: 'Repositories you may assign', body: repositories.map((r) => `- ${r}`).join('\n') },
      ...prepared.sections,
    ];
    const request = input.request;
    const tools = toolsFor(deps, repositories);

    if (request?.kind === 'draft_item_feedback' && existing && request.item_id !== undefined) {
      const previous = existing.items.find((item) => item.id === request.item_id);
      if (!previous) throw new Error(`draft item ${request.item_id} is not in the current draft (items ${existing.items.map((i) => i.id).join(', ')})`);
      const prompt = composePrompt([
        ...base,
        { title: 'Whole draft (for context; do not change other items)', body: renderDraft(existing, { ticketKey: input.ticket_key }) },
        { title: `Item ${previous.id} to revise`, body: JSON.stringify(previous, null, 2) },
        { title: `Feedback from ${request.author ?? 'a reviewer'} on item ${previous.id}`, body: request.text },
        { title: 'Answer with', body: 'The revised item only.' },
      ]);
      const { object, usage, target } = await runModelStep(deps, input, { key: spec.key, skill: spec.station, schema: prepared.item, prompt, tools });
      const draft = replaceDraftItem(existing, previous.id, bounded(prepared.toItem(object, previous)));
      return draftResult(deps, input, spec, draft, repositories, usage, target, `item ${previous.id} revised`);
    }

    const revising = request?.kind === 'feedback' || request?.kind === 'draft_item_feedback';
    const listSchema = z.object({ items: z.array(prepared.item).min(1).max(40) });
    const prompt = composePrompt([
      ...base,
      ...requestSections(input, revising && existing ? { title: spec.title, text: renderDraft(existing, { ticketKey: input.ticket_key }) } : undefined),
    ]);
    const { object, usage, target } = await runModelStep(deps, input, { key: spec.key, skill: spec.station, schema: listSchema, prompt, tools });
    const draft = toDraft(spec.kind, object.items.map((item) => bounded(prepared.toItem(item))));
    return draftResult(deps, input, spec, draft, repositories, usage, target, revising ? 'revised' : 'written');
  };
}

export function createDraftStations(deps: DraftStationDeps) {
  const decompose_epics = draftStation(deps, {
    station: 'decompose_epics', key: 'decompose_epics', artifact: 'plan', title: 'Epic plan', kind: 'epics',
    async prepare(_input, repositories) {
      const item = z.object({ summary, description, repo: repoEnum(repositories), acceptance_criteria: criteria });
      return {
        sections: [],
        item,
        toItem: (epic: z.infer<typeof item>): NewItem => ({ ...epic, epic_key: null }),
      };
    },
  });

  const generate_tasks = draftStation(deps, {
    station: 'generate_tasks', key: 'generate_tasks', artifact: 'tasks', title: 'Tasks', kind: 'tasks',
    async prepare(input) {
      const plan = currentDraft(input, 'decompose_epics', 'epics');
      if (!plan) throw new Error('generate_tasks needs the approved epic plan in outputs.decompose_epics.draft');
      // The epics were created by provision_epics' effects; their keys are found by their identity labels.
      const epics = await provisionedEpics(deps.tracker, input, plan);
      const ids = epics.map((epic) => epic.id);
      const item = z.object({
        // The range goes into the JSON schema the model sees; the refinement catches gaps inside it.
        epic_id: z.number().int().min(Math.min(...ids)).max(Math.max(...ids)).refine((id) => ids.includes(id), { message: `epic_id must be one of ${ids.join(', ')}` }),
        summary,
        description,
        acceptance_criteria: criteria,
      });
      return {
        sections: [{
          title: 'Epics (write tasks for these; epic_id is the number)',
          body: epics.map((epic) => `${epic.id}. ${epic.summary} (${epic.key}, repository ${epic.repo})\n${epic.description}`).join('\n\n'),
        }],
        item,
        toItem: (task: z.infer<typeof item>, previous?: DraftItem): NewItem => {
          const epic = epics.find((e) => e.id === task.epic_id) ?? epics.find((e) => e.key === previous?.epic_key)!;
          return { summary: task.summary, description: task.description, acceptance_criteria: task.acceptance_criteria, repo: epic.repo, epic_key: epic.key };
        },
      };
    },
  });

  return { decompose_epics, generate_tasks };
}
