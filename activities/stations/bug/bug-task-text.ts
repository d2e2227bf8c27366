import { repositoriesOfPlan } from '../plan-repositories';
import { trustedArtifactText } from '../station-input';
import { localReviewFindings } from '../code-change/implementation-task-text';
import type { StationInput } from '../../../workflows/runtime/station-types';
import { analysisOf, fixPlanOf, reflectionOf, triageOf, FIX_PLAN_ARTIFACT, RCA_ARTIFACT } from './flow-data';
import { RCA_FILE, type RcaOption, type RcaReport } from './rca-report';

/**
 * What the agent is told in the bug graph: the root-cause analysis (analyze_bug, read-only), the fix
 * (implement_bug_fix), the local review and the documentation of the fix. Pure, so the wording is unit-tested.
 * Everything quoted here is bounded: a long ticket or plan must not eat the agent's token budget before it starts.
 */

const DESCRIPTION_CHARS = 12_000;
const COMMENT_CHARS = 2_000;
const COMMENTS = 10;
const RCA_CHARS = 10_000;
const PLAN_CHARS = 12_000;

/** The ticket as the station read it from the tracker (only people's comments: the service's own are artifacts). */
export interface TicketBrief {
  summary: string;
  description: string;
  comments?: Array<{ author?: string; body: string }>;
}

function bounded(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n\n(truncated)` : text;
}

/**
 * The ticket a station put into `params.ticket` before running the container (the family's task text only sees
 * the input). Anything else there is ignored.
 */
export function ticketBriefOf(input: Pick<StationInput, 'params'>): TicketBrief | undefined {
  const raw = input.params?.ticket as { summary?: unknown; description?: unknown } | undefined;
  if (!raw || typeof raw.summary !== 'string') return undefined;
  return { summary: raw.summary, description: typeof raw.description === 'string' ? raw.description : '' };
}

export function ticketSection(key: string, ticket: TicketBrief | undefined): string[] {
  if (!ticket) return [`## The ticket`, `${key} (its text was not available to this run)`];
  const comments = (ticket.comments ?? []).slice(-COMMENTS);
  return [
    '## The ticket',
    `${key}: ${ticket.summary}`,
    '',
    ticket.description.trim() ? bounded(ticket.description.trim(), DESCRIPTION_CHARS) : '(no description)',
    ...(comments.length ? ['', '### Comments on the ticket', ...comments.map((c) => `- ${c.author ?? 'someone'}: ${bounded(c.body.trim(), COMMENT_CHARS)}`)] : []),
  ];
}

/**
 * The parts of a plan that concern one repository, by their `repo:` tags: a heading that carries the tag brings its
 * whole section (sub-headings included, unless one of them is tagged for another repository only); under no tagged
 * heading, a section whose body names only this repository comes whole, and in a section that names several, only
 * its paragraphs and top-level list items that carry the tag come, under their heading. With `shared`, the parts
 * that name no repository at all (an overview, the testing, acceptance checks) come too: only other repositories'
 * steps are left out. Undefined when nothing in the plan names the repository. Pure.
 */
export function planStepsForRepository(markdown: string, repository: string, options: { shared?: boolean } = {}): string | undefined {
  const wanted = repository.toLowerCase();
  const tags = (text: string) => repositoriesOfPlan(text).map((tag) => tag.toLowerCase());
  const keep = (text: string) => {
    const found = tags(text);
    return found.includes(wanted) || (options.shared === true && found.length === 0);
  };
  const picked: string[] = [];
  let named = false;
  // The tags of the nearest tagged heading above each open heading level: a section belongs to them.
  const owners: Array<{ level: number; tags: string[] }> = [];
  for (const section of splitSections(markdown)) {
    while (owners.length && section.level > 0 && owners[owners.length - 1]!.level >= section.level) owners.pop();
    const headingTags = section.heading === undefined ? [] : tags(section.heading);
    if (headingTags.length) owners.push({ level: section.level, tags: headingTags });
    const owner = owners[owners.length - 1]?.tags;
    const whole = [section.heading, ...section.body].filter((line): line is string => line !== undefined).join('\n').trim();
    if (owner) {
      if (owner.includes(wanted)) {
        picked.push(whole);
        named = true;
      }
      continue;
    }
    const bodyTags = tags(section.body.join('\n'));
    if (bodyTags.includes(wanted)) named = true;
    if (bodyTags.every((tag) => tag === wanted) && (bodyTags.length > 0 || options.shared)) picked.push(whole);
    else if (bodyTags.includes(wanted) || options.shared) {
      picked.push([section.heading, ...splitBlocks(section.body).filter(keep)].filter((part): part is string => part !== undefined).join('\n\n').trim());
    }
  }
  const text = picked.filter(Boolean).join('\n\n');
  return named && text ? text : undefined;
}

interface Section { level: number; heading?: string; body: string[] }

function splitSections(markdown: string): Section[] {
  const sections: Section[] = [{ level: 0, body: [] }];
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? undefined : /^(#{1,6})\s+\S/.exec(line);
    if (heading) sections.push({ level: heading[1]!.length, heading: line, body: [] });
    else sections[sections.length - 1]!.body.push(line);
  }
  return sections;
}

/** Paragraphs and top-level list items (with their indented continuation lines). */
function splitBlocks(lines: string[]): string[] {
  const blocks: string[][] = [];
  let current: string[] = [];
  let afterBlank = false;
  const flush = () => {
    while (current.length && !current[current.length - 1]!.trim()) current.pop();
    if (current.length) blocks.push(current);
    current = [];
  };
  for (const line of lines) {
    if (!line.trim()) {
      afterBlank = true;
      if (current.length) current.push(line);
      continue;
    }
    const topItem = /^\s?([-*+]|\d+[.)])\s+/.test(line);
    const indented = /^\s{2,}/.test(line);
    if (topItem || (afterBlank && !indented)) flush();
    current.push(line);
    afterBlank = false;
  }
  flush();
  return blocks.map((block) => block.join('\n'));
}

/** The analysis in short, for a revision: what was concluded and what was offered. */
function previousAnalysis(rca: RcaReport): string {
  return [
    `Summary: ${rca.summary}`,
    `Location: ${locationOf(rca)}`,
    `Confidence: ${rca.confidence.level} (${rca.confidence.percentage} %)`,
    'Options:',
    ...rca.options.map((option, i) => `${i + 1}. ${option.title}`),
  ].join('\n');
}

function locationOf(rca: RcaReport): string {
  const { file, function: fn, line_range: lines } = rca.code_location;
  return `\`${file}\`${fn ? ` ${fn}` : ''}${lines ? ` (lines ${lines})` : ''}`;
}

/** The RCA as Markdown, when the approved `rca` artifact is not there (it is what the person chose from). */
export function rcaMarkdown(rca: RcaReport): string {
  return [
    `**Root cause:** ${rca.summary}`,
    `**Where:** ${locationOf(rca)}`,
    `**Mechanism:** ${rca.mechanism}`,
    `**From trigger to symptom:** ${rca.trigger_to_symptom}`,
    `**Introduced in:** ${rca.introduced_in}`,
    `**Reproducibility:** ${rca.reproducibility}`,
    `**Confidence:** ${rca.confidence.level} (${rca.confidence.percentage} %): ${rca.confidence.rationale}`,
    '',
    '**Fix options:**',
    ...rca.options.map((option, i) => `${i + 1}. ${option.title}: ${option.description} (trade-offs: ${option.tradeoffs})`),
  ].join('\n');
}

/** The exact shape of `.service/rca.json`, with the rules the host checks (activities/stations/bug/rca-report.ts). */
export const RCA_SHAPE = [
  '```json',
  '{',
  '  "summary": "the root cause in a few sentences (at most 2000 characters)",',
  '  "code_location": { "file": "path/of/the/file.ext", "function": "the function or method, or \\"\\"", "line_range": "e.g. 120-134, or \\"\\"" },',
  '  "mechanism": "how the defect produces the wrong behaviour",',
  '  "trigger_to_symptom": "the chain from what the user does to what they see",',
  '  "hypothesis_log": ["each hypothesis you checked and what ruled it in or out (at most 20)"],',
  '  "introduced_in": "the commit, change or version that introduced it, or \\"unknown\\"",',
  '  "confidence": { "level": "low | medium | high", "percentage": 80, "rationale": "why you are this sure" },',
  '  "reproducibility": "how to reproduce it (steps, a test), or why it cannot be reproduced",',
  '  "options": [',
  '    { "title": "a short name of the fix", "description": "what to change and where", "tradeoffs": "cost, risk, what it leaves open" }',
  '  ]',
  '}',
  '```',
  'Rules: every text field is non-empty except `function`, `line_range` (may be ""); `confidence.level` is one of low,',
  'medium, high; `confidence.percentage` is a whole number from 0 to 100; `options` has 1 to 4 entries, the one you',
  'recommend first. Write valid JSON only (no comments, no trailing commas).',
].join('\n');

export interface AnalysisTaskArgs {
  ticket: TicketBrief;
  /** The repository checked out for the analysis. */
  repository: string;
  /** The project's other repositories (not checked out). */
  otherRepositories: readonly string[];
  /** Why the previous `.service/rca.json` of this attempt was refused, when this is the second run. */
  errors?: readonly string[];
}

/** analyze_bug: find the root cause, change nothing, write `.service/rca.json`. */
export function analysisTaskText(input: StationInput, args: AnalysisTaskArgs): string {
  const triage = triageOf(input);
  const reflection = reflectionOf(input);
  const previous = analysisOf(input)?.rca;
  const request = input.request?.kind === 'feedback' || input.request?.kind === 'regenerate' ? input.request : undefined;
  return [
    `Ticket ${input.ticket_key} is a bug report. Find its root cause in the repository ${args.repository} (checked out here) and propose how to fix it.`,
    ...(args.otherRepositories.length
      ? [`The project also has these repositories, not checked out here: ${args.otherRepositories.map((r) => `\`${r}\``).join(', ')}. If the cause lies in one of them, say so in the analysis.`]
      : []),
    'This is an analysis only: do not change, add or delete any file except the output file. Nothing you change in the repository is kept.',
    '',
    ...ticketSection(input.ticket_key, args.ticket),
    '',
    '## Triage notes',
    triage && triage.missing.length
      ? `The report lacks: ${triage.missing.join('; ')}. Work with what there is, and say in \`reproducibility\` and \`confidence\` what the missing details leave open.`
      : 'The triage found the report complete.',
    ...(request ? [
      '',
      request.kind === 'feedback' ? `## Feedback on the previous analysis from ${request.author ?? 'a reviewer'} (take it into account)` : '## A new analysis was asked for',
      ...(request.text.trim() ? [bounded(request.text.trim(), COMMENT_CHARS * 2)] : []),
      ...(request.kind === 'regenerate' ? ['Do not repeat the previous analysis: check its assumptions again.'] : []),
    ] : []),
    ...(reflection?.sent_back ? [
      '',
      `## A reviewer's critique of your previous analysis (round ${reflection.round}): address every point`,
      bounded(reflection.critique?.trim() || '(no details given)', COMMENT_CHARS * 2),
    ] : []),
    ...((request || reflection?.sent_back) && previous ? ['', '## The previous analysis', previousAnalysis(previous)] : []),
    ...(args.errors?.length ? [
      '',
      `## Your ${RCA_FILE} was refused`,
      'The file you wrote does not fit the shape below. Fix exactly these problems and write the whole file again:',
      ...args.errors.map((error) => `- ${error}`),
    ] : []),
    '',
    '## What to write',
    `Write \`${RCA_FILE}\` as JSON in exactly this shape:`,
    RCA_SHAPE,
  ].join('\n');
}

/** The option chosen at rca_option_gate (1-based), with its text from the analysis when it is there. */
export function chosenOption(input: StationInput): { number: number; option?: RcaOption } | undefined {
  const number = fixPlanOf(input)?.option;
  if (!number) return undefined;
  return { number, option: analysisOf(input)?.rca.options[number - 1] };
}

function approvedRca(input: StationInput): string | undefined {
  const record = input.artifacts[RCA_ARTIFACT];
  if (record) return bounded(trustedArtifactText(record).text, RCA_CHARS);
  const rca = analysisOf(input)?.rca;
  return rca ? bounded(rcaMarkdown(rca), RCA_CHARS) : undefined;
}

function fixPlanText(input: StationInput): string | undefined {
  const record = input.artifacts[FIX_PLAN_ARTIFACT];
  return record ? trustedArtifactText(record).text : undefined;
}

/**
 * The approved plan as it concerns this repository: everything but other repositories' steps; the whole plan when no
 * step names this repository.
 */
export function planSection(plan: string | undefined, repository: string, title: string): string[] {
  if (!plan) return [];
  const steps = planStepsForRepository(plan, repository, { shared: true });
  if (!steps) return [`## ${title} (no step names ${repository}: do what it asks of this repository)`, bounded(plan, PLAN_CHARS)];
  const others = repositoriesOfPlan(plan).some((tag) => tag.toLowerCase() !== repository.toLowerCase());
  return [`## ${title}${others ? ` for ${repository} (the other repositories' steps are left out)` : ''}`, bounded(steps, PLAN_CHARS)];
}

function optionSection(input: StationInput): string[] {
  const chosen = chosenOption(input);
  if (!chosen) return [];
  return [
    `## The chosen fix: option ${chosen.number}${chosen.option ? `, ${chosen.option.title}` : ''}`,
    ...(chosen.option ? [chosen.option.description, '', `Trade-offs accepted: ${chosen.option.tradeoffs}`] : []),
  ];
}

function otherRepositoriesLine(input: StationInput, repository: string): string[] {
  const others = (fixPlanOf(input)?.repositories ?? []).filter((r) => r.toLowerCase() !== repository.toLowerCase());
  return others.length ? [`The plan also changes ${others.map((r) => `\`${r}\``).join(', ')}: that is done separately; change only ${repository} here.`] : [];
}

/** implement_bug_fix: the approved RCA, the chosen option, this repository's steps, and the local review's findings. */
/** What the fix and its review go by: the chosen option, this repository's steps of the approved plan, the RCA. */
function approvedFixLines(input: StationInput, repository: string): string[] {
  const rca = approvedRca(input);
  return [
    ...optionSection(input),
    '',
    ...planSection(fixPlanText(input), repository, 'The approved fix plan'),
    ...(rca ? ['', '## The root-cause analysis', rca] : []),
  ];
}

export function implementBugFixText(input: StationInput, repository: string): string {
  const findings = localReviewFindings(input, repository);
  const ticket = ticketBriefOf(input);
  return [
    `Ticket ${input.ticket_key}${ticket ? ` (${ticket.summary})` : ''} is a bug. Fix it in the repository ${repository} as the approved plan below says.`,
    ...otherRepositoriesLine(input, repository),
    ...(findings ? ['', '## The local review asked for these changes (do them first)', findings] : []),
    '',
    ...approvedFixLines(input, repository),
    '',
    'Add or update a test that fails without the fix when the repository has tests.',
    'Write `.service/implementation.md`: what you changed, file by file, and how you checked it.',
  ].join('\n');
}

/** local_review in the bug graph: the fix against the RCA, the chosen option and this repository's steps. */
export function bugLocalReviewText(input: StationInput, repository: string): string {
  return [
    `Ticket ${input.ticket_key}: review the bug fix on this branch of ${repository} before a pull request is opened.`,
    'Look at `git diff` against the base and at the files it touches. Do not change any file except the output file.',
    '',
    ...approvedFixLines(input, repository),
    '',
    'Check that the change removes the root cause (not only the symptom), follows the chosen option, and that a test covers it.',
    'Write `.service/local_review.json` as JSON: {"verdict": "passed" | "changes_needed", "findings": [{"file": "...", "problem": "...", "suggestion": "..."}]}.',
    'Say changes_needed only for real defects (the cause not fixed, a step of the plan not done, a new bug, a broken test), never for style.',
  ].join('\n');
}

/** update_documentation in the bug graph. */
export function bugDocumentationText(input: StationInput, repository: string): string {
  return [
    `Ticket ${input.ticket_key}: a bug was fixed on this branch of ${repository}.`,
    'Update the documentation the fix affects (README, docs/, a changelog the repository keeps, comments of public functions), and nothing else. If no documentation needs a change, change nothing.',
    '',
    ...optionSection(input),
    '',
    ...planSection(fixPlanText(input), repository, 'The approved fix plan'),
    '',
    'Write `.service/documentation.md`: what you updated, or why nothing needed it.',
  ].join('\n');
}
