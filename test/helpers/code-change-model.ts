import type { ChatCompletionRequest, ScriptedReply } from '../../src/sandbox/model-simulator/model-simulator';
import { sampleFromSchema } from '../../src/sandbox/model-simulator/sample-from-schema';
import { requestedFiles } from '../../src/sandbox/model-simulator/sandbox-agent';
import {
  isReflectionSchema, isTaggedPlanSchema, isTriageSchema, planRepository, promptOf, sandboxResponder, sandboxTriageMissing, structuredReply,
  triageAnswer, triageChecklist, triageTicketText,
} from '../../src/sandbox/model-simulator/sandbox-responder';

/**
 * The model of the code-change flow test: planning answers that put one epic and one task in each repository, and
 * container agents that make a real change in the file their task is about. Everything else (PR descriptions, code
 * review text) comes from the sandbox's model, which fits any requested schema. Tests may queue replies of their
 * own (`script`), which win, and may override what an agent writes for one output file (`agentOutputs`).
 */
export interface CodeChangeModelPlan {
  repositories: string[];
  /** What an agent writes for an output file, by file name (e.g. `ci_analysis.json`); the sandbox's default otherwise. */
  agentOutputs: Record<string, (task: string) => string>;
  /** Agent turns that write these files also change `<file>` in the workspace (a real code change to commit). */
  codeChange: (task: string) => { path: string; content: string } | undefined;
  /** The review analysis: a decision for an item, by its text; undefined accepts it. */
  reviewDecision?: (itemText: string) => { decision: 'accept' | 'contest' | 'clarify' | 'ignore'; reply?: string; change?: string } | undefined;
  /**
   * triage_check: the checklist ids (e.g. `steps_to_reproduce`) missing from what the reporter wrote (summary,
   * description, comments, the latest reply); the sandbox's rule otherwise (steps missing when the text names no
   * steps and has no numbered list).
   */
  triageMissing?: (ticketText: string, checklist: string[]) => string[];
  /** reflect_rca's verdicts, one per call, taken from the front: `VALID` or `CRITIQUE: <what is wrong>`; VALID when empty. */
  reflections?: string[];
  /** run_qualitative_review's verdicts, one per agent run, taken from the front; `passed` when empty. */
  qualitativeReviews?: Array<'passed' | 'changes_needed'>;
  /** A delay before the first turn of an agent whose task this matches (time to kill the worker while it runs). */
  agentDelayMs?: (task: string) => number | undefined;
  /** The release note of the bug's fix plan (plan_bug_fix). */
  releaseNote?: { component: string; fix: string; root_cause: string; impact: string };
}

/** The release note the fix plan carries unless a test sets its own. */
export const CODE_CHANGE_RELEASE_NOTE = {
  component: 'document saving',
  fix: 'Saving checks the stream before it writes.',
  root_cause: 'The save handler wrote to a stream that an earlier failure had closed.',
  impact: 'Saving no longer crashes after a failed save.',
};

/** The finding a qualitative review that asks for changes reports. */
export const QUALITATIVE_FINDING = { file: 'src/feature.txt', problem: 'The change has no note about the task.', suggestion: 'Mention the task in the file.' };

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
  return '';
}

function schemaOf(request: ChatCompletionRequest): Record<string, any> | undefined {
  const format = request.response_format as { json_schema?: { schema?: Record<string, any> } } | undefined;
  if (format?.json_schema?.schema) return format.json_schema.schema;
  const respond = request.tools?.find((tool) => tool.function.name === 'respond');
  return respond?.function.parameters as Record<string, any> | undefined;
}

function answer(request: ChatCompletionRequest, value: unknown): ScriptedReply {
  return structuredReply(request, value) ?? { tool_call: { name: 'respond', arguments: JSON.stringify(value) } };
}

/** The next qualitative review verdict as the file's content (taken when the agent's first turn is answered). */
function qualitativeReview(plan: CodeChangeModelPlan): () => string {
  return () => {
    const verdict = plan.qualitativeReviews?.shift() ?? 'passed';
    return `${JSON.stringify({ verdict, findings: verdict === 'changes_needed' ? [QUALITATIVE_FINDING] : [] }, null, 2)}\n`;
  };
}

export function codeChangeResponder(plan: CodeChangeModelPlan): (request: ChatCompletionRequest) => ScriptedReply {
  return (request) => {
    const schema = schemaOf(request);
    const itemProperties = schema?.properties?.items?.items?.properties as Record<string, unknown> | undefined;
    if (itemProperties && 'epic_id' in itemProperties) {
      return answer(request, { items: plan.repositories.map((repo, i) => ({ epic_id: i + 1, summary: `Change ${repo}`, description: `Make the change in ${repo}.`, acceptance_criteria: [`${repo} has the change`] })) });
    }
    if (itemProperties && 'repo' in itemProperties) {
      return answer(request, { items: plan.repositories.map((repo) => ({ summary: `Work in ${repo}`, description: `Everything in ${repo}.`, repo, acceptance_criteria: [`${repo} done`] })) });
    }
    const messages = request.messages ?? [];
    if (itemProperties && 'decision' in itemProperties) {
      // One decision per `### <id> (...)` item of the prompt, from what the item says.
      const prompt = text(messages.find((message) => message.role === 'user')?.content);
      const items = prompt.split(/^### /m).slice(1).map((chunk) => ({ id: chunk.split(' ')[0]!, text: chunk }));
      return answer(request, {
        items: items.map((item) => {
          const decided = plan.reviewDecision?.(item.text);
          return { id: item.id, decision: decided?.decision ?? 'accept', reply: decided?.reply ?? '', change: decided?.change ?? `did what ${item.id} asked` };
        }),
      });
    }
    const prompt = text(messages.find((message) => message.role === 'user')?.content);
    if (isTriageSchema(schema)) {
      const checklist = triageChecklist(promptOf(request));
      const ticket = triageTicketText(promptOf(request));
      return answer(request, triageAnswer(checklist, (plan.triageMissing ?? sandboxTriageMissing)(ticket, checklist)));
    }
    if (isReflectionSchema(schema)) {
      const next = plan.reflections?.shift() ?? 'VALID';
      const critique = /^CRITIQUE:?\s*([\s\S]*)$/i.exec(next.trim());
      return answer(request, critique ? { verdict: 'CRITIQUE', critique: critique[1]!.trim() || 'The analysis is not proven.' } : { verdict: 'VALID', critique: '' });
    }
    if (isTaggedPlanSchema(schema)) {
      // One step per repository of the world that the schema allows (plan_bug_fix, generate_plan).
      const allowed = schema!.properties.steps.items.properties.repo?.enum as string[] | undefined;
      const repos = plan.repositories.filter((repo) => !allowed || allowed.includes(repo));
      const steps = (repos.length ? repos : [planRepository(schema!, promptOf(request))]).map((repo) => ({
        repo, summary: `Fix in ${repo}`, description: `Make the change in ${repo} and add a test for it.`,
      }));
      const value: Record<string, unknown> = { ...(sampleFromSchema(schema) as Record<string, unknown>), steps };
      if (schema!.properties.release_note) value.release_note = plan.releaseNote ?? CODE_CHANGE_RELEASE_NOTE;
      if (schema!.properties.testing) value.testing = 'A regression test that saves twice after a failure.';
      if (schema!.properties.overview) value.overview = 'Carry out the task in each repository it names.';
      if (schema!.properties.acceptance_checks) value.acceptance_checks = ['Each repository has the change.'];
      return answer(request, value);
    }
    if (schema?.properties?.checks && prompt.includes('## What the new commit changed')) {
      // The description sync: the model's old parts, plus the first line of what changed under changes.
      const [before, change] = prompt.split('## What the new commit changed');
      const part = (name: string) => before!.split(`### ${name}\n`)[1]?.split('\n\n### ')[0]?.trim().replace(/^\(empty\)$/, '') ?? '';
      return answer(request, { summary: part('Summary') || 'Described.', changes: `${part('Changes')}\n- Latest: ${change!.trim().split('\n')[0]}`.trim(), checks: part('How it was checked') });
    }
    const tools = request.tools?.map((tool) => tool.function.name) ?? [];
    if (tools.includes('write_file') && !request.response_format && messages.at(-1)?.role !== 'tool') {
      const task = text(messages.find((message) => message.role === 'user')?.content);
      const calls = requestedFiles(task).map((path) => {
        const name = path.split('/').pop() ?? path;
        const custom = plan.agentOutputs[name] ?? (name === 'qualitative_review.json' ? qualitativeReview(plan) : undefined);
        return custom ? { name: 'write_file', arguments: JSON.stringify({ path, content: custom(task) }) } : undefined;
      });
      const change = plan.codeChange(task);
      const sandbox = sandboxResponder(request) as { tool_calls?: Array<{ name: string; arguments: string }> };
      const sandboxCalls = (sandbox.tool_calls ?? []).filter((call) => !call.arguments.includes('SANDBOX_CHANGES/'));
      const merged = sandboxCalls.map((call, i) => calls[i] ?? call);
      if (change) merged.push({ name: 'write_file', arguments: JSON.stringify(change) });
      const delay = plan.agentDelayMs?.(task);
      if (merged.length > 0) return { tool_calls: merged, ...(delay ? { delay_ms: delay } : {}) };
    }
    return sandboxResponder(request);
  };
}
