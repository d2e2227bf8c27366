import { createHash } from 'node:crypto';
import { trustedArtifactText } from '../station-input';
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { repositoryTools, type RepositoryReader } from '../../../src/planning-context/repository-tools';
import type { ModelPolicyKey } from '../../../src/config/model-policy-keys';
import type { StationName } from '../../../workflows/vocabulary/stage-names';
import { composePrompt, referencesSection, ticketSections, type PromptSection } from '../../../src/planning-context/planning-prompt';
import { artifactPostIntents } from '../../../workflows/effects/artifact-posting';
import type { StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { runModelStep, type ModelStepDeps } from './model-step';
import { readTicketMaterial, type PlanningTracker } from './ticket-material';
import { readableRepositories, type RepositoriesReader } from './repositories';
import { parseStationInput } from '../station-input';
import { stationFailure } from '../station-failure';
import { ProposalSettingsError, type ProposalSettings } from '../../../src/config/proposal-settings';
import type { ProposalKind, ProposalOutput } from '../../../workflows/person-commands/proposal-review';
import { latestReviewComments, prepareProposal, proposalIntents, type PreparedProposal, type ProposalDeps } from './proposal-publisher';
import { STAGE_LABEL } from '../../../workflows/vocabulary/labels';

export interface PlanningDeps extends ModelStepDeps {
  tracker: PlanningTracker;
  /** The project's repository configuration (activities/project-config-activities.ts). */
  repositories: RepositoriesReader;
  /** The source host, for the model's read-only repository tools; without it the model gets no tools. */
  repositoryReader?: () => Promise<RepositoryReader>;
  /** Tracker comment size per part; the default keeps under Jira's limit. */
  partLimit?: number;
  /** Proposal review (service.prd_proposals_repo): without it the PRD and spec are only posted to the ticket. */
  proposals?: ProposalDeps;
}

/** The model's read-only tools over these repositories (none without a source host). */
export function toolsFor(deps: PlanningDeps, repositories: readonly string[]): ToolSet | undefined {
  return deps.repositoryReader && repositories.length ? repositoryTools({ reader: deps.repositoryReader, repositories }) : undefined;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The earlier artifacts a station builds on, as prompt sections: approved ones say so. */
export function artifactSections(input: StationInput, names: Record<string, string>): PromptSection[] {
  return Object.entries(names).flatMap(([name, title]) => {
    const record = input.artifacts[name];
    if (!record) return [];
    const { text, approved } = trustedArtifactText(record);
    return [{ title: `${approved ? 'Approved ' : ''}${title}${approved ? '' : ' (not approved yet)'}`, body: text }];
  });
}

/** A person's `!` feedback or `service:retry` at the gate, with what it applies to. */
export function requestSections(input: StationInput, current: { title: string; text: string } | undefined): PromptSection[] {
  const request = input.request;
  if (!request || request.kind === 'question') return [];
  if (request.kind === 'regenerate') return [{ title: 'Request', body: 'Write it again from the material above; the earlier version was not accepted.' }];
  return [
    ...(current ? [{ title: `Current ${current.title} (revise this)`, body: current.text }] : []),
    { title: `Feedback from ${request.author ?? 'a reviewer'}${request.item_id ? ` on item ${request.item_id}` : ''}`, body: request.text },
  ];
}

const documentSchema = z.object({
  title: z.string().trim().min(1).max(200),
  markdown: z.string().trim().min(20),
});

interface DocumentStation {
  station: StationName;
  proposal: ProposalKind;
  key: ModelPolicyKey;
  artifact: string;
  /** What a person calls it, e.g. "PRD". */
  title: string;
  approvedLabel: string;
  /** Earlier artifacts the model gets, by name. */
  builds_on: Record<string, string>;
}

const PRD: DocumentStation = { station: 'generate_prd', proposal: 'prd', key: 'generate_prd', artifact: 'prd', title: 'PRD', approvedLabel: STAGE_LABEL.prdApproved, builds_on: {} };
const SPEC: DocumentStation = { station: 'generate_spec', proposal: 'spec', key: 'generate_spec', artifact: 'spec', title: 'technical specification', approvedLabel: STAGE_LABEL.specApproved, builds_on: { prd: 'PRD' } };

export function gateHelp(approvedLabel: string): string {
  return [
    '---',
    `Approve with the label \`${approvedLabel}\`. Reply \`! <feedback>\` to have it revised, \`? <question>\` to ask about it,`,
    'or add `service:retry` to have it written again.',
  ].join('\n');
}

/**
 * generate_prd and generate_spec: a Markdown document from the ticket (and the approved PRD for the spec), posted in
 * parts with the gate's pending label. With `!` feedback the current text is revised rather than started over.
 */
function documentStation(deps: PlanningDeps, config: DocumentStation): StationActivity {
  return async (raw) => {
    const input = parseStationInput(raw);
    const { ticket, references } = await readTicketMaterial(deps.tracker, input.ticket_key, input.project_key);
    const current = input.artifacts[config.artifact];
    const revising = input.request?.kind === 'feedback' || input.request?.kind === 'draft_item_feedback';
    const settings = await proposalSettingsOf(deps, input.project_key);
    const prepared = settings && deps.proposals ? await prepareProposal(deps.proposals, settings, input, config.proposal) : undefined;
    const lineComments = prepared && revising ? await latestReviewComments(deps.proposals!, prepared) : [];
    const prompt = composePrompt([
      ...ticketSections(ticket),
      ...artifactSections(input, config.builds_on),
      referencesSection(references),
      ...requestSections(input, revising && current ? { title: config.title, text: current.text } : undefined),
      ...(lineComments.length ? [{ title: 'Review comments on lines of the proposal', body: lineComments.map((c) => `- ${c}`).join('\n') }] : []),
    ]);
    const tools = toolsFor(deps, await readableRepositories(deps.repositories, input, ticket.labels));
    const { object, usage, target } = await runModelStep(deps, input, { key: config.key, skill: config.station, schema: documentSchema, prompt, tools });

    const text = `# ${object.title}\n\n${object.markdown}`;
    const digest = sha256(text);
    const revision = (current?.version ?? 0) + 1;
    const posted = [
      `## ${config.title[0]!.toUpperCase()}${config.title.slice(1)} for ${input.ticket_key}${revision > 1 ? ` (revision ${revision})` : ''}`,
      '',
      text,
      '',
      gateHelp(config.approvedLabel),
    ].join('\n');
    const heading = config.artifact === 'prd' ? 'PRD' : 'Spec';
    const effects = prepared
      ? [
        ...(await proposalIntents(prepared, { ticketKey: input.ticket_key, kind: config.proposal, title: object.title, heading, text, revision })),
        ...artifactPostIntents({ issueKey: input.ticket_key, artifact: config.artifact, markdown: proposalNote(config, input.ticket_key, prepared, revision), partLimit: deps.partLimit }),
      ]
      : artifactPostIntents({ issueKey: input.ticket_key, artifact: config.artifact, markdown: posted, partLimit: deps.partLimit });
    const parts = effects.filter((e) => e.operation.kind === 'tracker.comment').length;
    const proposal: ProposalOutput | undefined = prepared ? { repository: prepared.repository, branch: prepared.branch, path: prepared.path } : undefined;
    return {
      outcome: 'generated',
      data: { artifact: config.artifact, digest, revision, parts, revised: revising, ...(proposal ? { proposal } : {}) },
      artifacts: { [config.artifact]: { text, digest } },
      effects,
      summary: prepared
        ? `${config.title} ${revising ? 'revised' : 'written'} (revision ${revision}) as a proposal on ${prepared.repository} ${prepared.branch} by ${target}`
        : `${config.title} ${revising ? 'revised' : 'written'} (revision ${revision}, ${parts} part${parts === 1 ? '' : 's'}) by ${target}`,
      usage,
    };
  };
}

/** Proposal review settings, or a blocking failure naming the malformed property. */
async function proposalSettingsOf(deps: PlanningDeps, projectKey: string): Promise<ProposalSettings | undefined> {
  if (!deps.proposals) return undefined;
  try {
    return await deps.proposals.settings(projectKey);
  } catch (error) {
    if (error instanceof ProposalSettingsError) {
      throw stationFailure({ code: 'missing_project_config', message: error.message, recovery: 'fix the project property (service project-setup --prd-proposals-repo / --prd-proposals-path), then add service:retry' });
    }
    throw error;
  }
}

/** The ticket's comment when the document is reviewed as a pull request: where it is and how review works. */
function proposalNote(config: DocumentStation, ticketKey: string, prepared: PreparedProposal, revision: number): string {
  const name = `${config.title[0]!.toUpperCase()}${config.title.slice(1)}`;
  return [
    `## ${name} for ${ticketKey}${revision > 1 ? ` (revision ${revision})` : ''}`,
    '',
    `The ${config.title} is up for review as a pull request on \`${prepared.repository}\` (branch \`${prepared.branch}\`, file \`${prepared.path}\`).`,
    '',
    '---',
    `Review it there: review comments have it revised, merging the pull request approves it. The label \`${config.approvedLabel}\` also approves it.`,
    'While the pull request is open, `!` and `?` on this ticket are not read at this gate.',
  ].join('\n');
}

export function createDocumentStations(deps: PlanningDeps) {
  return { generate_prd: documentStation(deps, PRD), generate_spec: documentStation(deps, SPEC) };
}
