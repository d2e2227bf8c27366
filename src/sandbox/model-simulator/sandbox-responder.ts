import type { ChatCompletionRequest, ScriptedReply } from './model-simulator';
import { sampleFromSchema } from './sample-from-schema';
import { sandboxAgentReply } from './sandbox-agent';

export const SIMULATED_TEXT = 'Simulated by the sandbox model: no real model was asked. Configure MODEL_CONNECTIONS and MODEL_DEFAULT (or LLM_BACKEND and LLM_MODEL) for real answers.';

type Schema = Record<string, unknown>;

/** A value deep in a JSON schema, or undefined where the path leaves the objects. */
function at(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), value);
}

function forcedToolName(request: ChatCompletionRequest): string | undefined {
  const choice = request.tool_choice as { type?: string; function?: { name?: string } } | string | undefined;
  if (typeof choice === 'object' && choice?.function?.name) return choice.function.name;
  // The structured-output fallback offers a tool named `respond` (with read-only tools beside it, choice `required`:
  // answering at once is a valid use of them); an agent loop offers tools it may ignore.
  const respond = request.tools?.find((tool) => tool.function.name === 'respond')?.function.name;
  if (choice === 'required') return respond ?? request.tools?.[0]?.function.name;
  return respond;
}

export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
  return '';
}

/** The user's prompt of a structured call (host stations send one user message: the composed prompt). */
export function promptOf(request: ChatCompletionRequest): string {
  return (request.messages ?? []).filter((message) => message.role === 'user').map((message) => messageText(message.content)).join('\n\n');
}

/** The `## Title` sections of a composed prompt (src/planning-context/planning-prompt.ts composePrompt), in order. */
export function promptSections(prompt: string): Array<{ title: string; body: string }> {
  const sections: Array<{ title: string; body: string[] }> = [];
  for (const line of prompt.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) sections.push({ title: heading[1]!.trim(), body: [] });
    else sections.at(-1)?.body.push(line);
  }
  return sections.map((section) => ({ title: section.title, body: section.body.join('\n').trim() }));
}

// ---------------------------------------------------------------------------------------------------------------
// Answers the bug and takeover stations need to mean something (a sampled document would pass every triage item and
// tag no useful repository): recognised by the shape of the requested schema, not by wording that may change.

/** The checklist ids a triage prompt asks about: its "Checklist" section lists them as "- `id`: Label: hint". */
export function triageChecklist(prompt: string): string[] {
  const section = promptSections(prompt).filter((s) => /^checklist/i.test(s.title)).at(-1);
  if (!section) return [];
  return [...section.body.matchAll(/^\s*[-*]\s+`([^`]+)`/gm)].map((match) => match[1]!);
}

/**
 * What the reporter wrote (the ticket's summary, description, comments and the latest reply): the checklist itself,
 * the repositories and the references are the service's words, not the reporter's.
 */
export function triageTicketText(prompt: string): string {
  return promptSections(prompt)
    .filter((s) => /^(ticket |description$|comments$|latest reply)/i.test(s.title))
    .map((s) => s.body)
    .join('\n\n');
}

/** A report gives steps to reproduce when it says "steps" or has a numbered list. */
export function hasStepsToReproduce(ticketText: string): boolean {
  return /\bsteps?\b/i.test(ticketText) || /^\s*\d+[.)]\s+\S/m.test(ticketText);
}

/** The sandbox's triage: only the steps to reproduce can be missing, everything else is taken as present. */
export function sandboxTriageMissing(ticketText: string, checklist: readonly string[]): string[] {
  return checklist.filter((item) => item === 'steps_to_reproduce' && !hasStepsToReproduce(ticketText));
}

export function triageAnswer(checklist: readonly string[], missing: readonly string[]): { items: Array<{ item: string; present: boolean; note: string }> } {
  return {
    items: checklist.map((item) => (missing.includes(item)
      ? { item, present: false, note: `The ticket does not give the ${item.replace(/_/g, ' ')}. (simulated)` }
      : { item, present: true, note: 'The ticket covers this. (simulated)' })),
  };
}

/** The first repository a prompt lists in a section about repositories ("- owner/name"). */
export function firstRepositoryOf(prompt: string): string | undefined {
  for (const section of promptSections(prompt).filter((s) => /repositor/i.test(s.title))) {
    const match = /^\s*[-*]\s+`?([A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+)`?\s*$/m.exec(section.body);
    if (match) return match[1];
  }
  return undefined;
}

export const isTriageSchema = (schema: Schema | undefined) => at(schema, 'properties', 'items', 'items', 'properties', 'item') !== undefined
  && at(schema, 'properties', 'items', 'items', 'properties', 'present') !== undefined;

export const isReflectionSchema = (schema: Schema | undefined) => {
  const verdicts = at(schema, 'properties', 'verdict', 'enum');
  return Array.isArray(verdicts) && verdicts.includes('CRITIQUE');
};

/** A plan whose steps each name their repository (plan_bug_fix, generate_plan). */
export const isTaggedPlanSchema = (schema: Schema | undefined) => at(schema, 'properties', 'steps', 'items', 'properties', 'repo') !== undefined;

/** The repository a plan step may name: the schema's first allowed value, else the first the prompt lists. */
export function planRepository(schema: Schema, prompt: string): string {
  const allowed = at(schema, 'properties', 'steps', 'items', 'properties', 'repo', 'enum');
  return (Array.isArray(allowed) && typeof allowed[0] === 'string' ? allowed[0] : undefined) ?? firstRepositoryOf(prompt) ?? 'unknown/repository';
}

/** The sandbox's document for a schema a bug or takeover station asks for; undefined for every other schema. */
export function sandboxStationAnswer(schema: Schema | undefined, prompt: string): unknown {
  if (!schema) return undefined;
  if (isTriageSchema(schema)) {
    const checklist = triageChecklist(prompt);
    return checklist.length ? triageAnswer(checklist, sandboxTriageMissing(triageTicketText(prompt), checklist)) : undefined;
  }
  if (isReflectionSchema(schema)) return { ...(sampleFromSchema(schema) as object), verdict: 'VALID', critique: '' };
  if (isTaggedPlanSchema(schema)) {
    const repo = planRepository(schema, prompt);
    return {
      ...(sampleFromSchema(schema) as object),
      steps: [{ repo, summary: `Make the change in ${repo} (simulated)`, description: `Change ${repo} as the ticket asks. ${SIMULATED_TEXT}` }],
    };
  }
  return undefined;
}

/** The JSON schema a structured call asks for: the response format's, or the forced tool's parameters. */
export function requestedSchema(request: ChatCompletionRequest): Schema | undefined {
  const format = request.response_format as { type?: string; json_schema?: { schema?: Schema } } | undefined;
  if (format?.type === 'json_schema') return format.json_schema?.schema;
  const name = forcedToolName(request);
  return request.tools?.find((tool) => tool.function.name === name)?.function.parameters as Schema | undefined;
}

/** A structured answer in the form the request asked for (response format or forced tool); undefined otherwise. */
export function structuredReply(request: ChatCompletionRequest, value: unknown): ScriptedReply | undefined {
  const format = request.response_format as { type?: string } | undefined;
  if (format?.type === 'json_schema' || format?.type === 'json_object') return { content: JSON.stringify(value) };
  const name = forcedToolName(request);
  return name ? { tool_call: { name, arguments: JSON.stringify(value) } } : undefined;
}

/**
 * What the sandbox's model answers when nothing is scripted (`service dev --sandbox` without a real model): a
 * minimal, obviously simulated document that fits the requested JSON schema (response format or forced tool), or a
 * sentence saying it is simulated. The bug and takeover stations get answers that move a ticket the way a reporter
 * would expect (a report without steps is asked for them; plans name a repository of the project). A container agent
 * (it offers write_file) gets sandbox-agent.ts: it writes the files its task asks for.
 */
export function sandboxResponder(request: ChatCompletionRequest): ScriptedReply {
  const format = request.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_object') return { content: JSON.stringify({ simulated: SIMULATED_TEXT }) };
  const agent = format ? undefined : sandboxAgentReply(request);
  if (agent) return agent;
  const structured = format?.type === 'json_schema' || request.tools?.some((tool) => tool.function.name === forcedToolName(request));
  if (!structured) return { content: SIMULATED_TEXT };
  const schema = requestedSchema(request);
  return structuredReply(request, sandboxStationAnswer(schema, promptOf(request)) ?? sampleFromSchema(schema))!;
}
