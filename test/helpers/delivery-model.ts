import type { ChatCompletionRequest, ScriptedReply } from '../../src/sandbox/model-simulator/model-simulator';
import { requestedFiles } from '../../src/sandbox/model-simulator/sandbox-agent';
import { sandboxResponder } from '../../src/sandbox/model-simulator/sandbox-responder';

/**
 * The model of the delivery flow test: planning answers that put one epic and one task in each repository, and
 * container agents that make a real change in the file their task is about. Everything else (PR descriptions, code
 * review text) comes from the sandbox's model, which fits any requested schema. Tests may queue replies of their
 * own (`script`), which win, and may override what an agent writes for one output file (`agentOutputs`).
 */
export interface DeliveryModelPlan {
  repositories: string[];
  /** What an agent writes for an output file, by file name (e.g. `ci_analysis.json`); the sandbox's default otherwise. */
  agentOutputs: Record<string, (task: string) => string>;
  /** Agent turns that write these files also change `<file>` in the workspace (a real code change to commit). */
  codeChange: (task: string) => { path: string; content: string } | undefined;
  /** The review analysis: a decision for an item, by its text; undefined accepts it. */
  reviewDecision?: (itemText: string) => { decision: 'accept' | 'contest' | 'clarify' | 'ignore'; reply?: string; change?: string } | undefined;
}

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
  if (request.response_format) return { content: JSON.stringify(value) };
  return { tool_call: { name: 'respond', arguments: JSON.stringify(value) } };
}

export function deliveryResponder(plan: DeliveryModelPlan): (request: ChatCompletionRequest) => ScriptedReply {
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
    if (schema?.properties?.description && prompt.includes('## What the new commit changed')) {
      // The description sync: the old description, plus the first line of what changed.
      const [before, change] = prompt.split('## What the new commit changed');
      const current = before!.split('## The current description')[1]?.trim() ?? '';
      return answer(request, { description: `${current}\n\nLatest: ${change!.trim().split('\n')[0]}` });
    }
    const tools = request.tools?.map((tool) => tool.function.name) ?? [];
    if (tools.includes('write_file') && !request.response_format && messages.at(-1)?.role !== 'tool') {
      const task = text(messages.find((message) => message.role === 'user')?.content);
      const calls = requestedFiles(task).map((path) => {
        const custom = plan.agentOutputs[path.split('/').pop() ?? path];
        return custom ? { name: 'write_file', arguments: JSON.stringify({ path, content: custom(task) }) } : undefined;
      });
      const change = plan.codeChange(task);
      const sandbox = sandboxResponder(request) as { tool_calls?: Array<{ name: string; arguments: string }> };
      const sandboxCalls = (sandbox.tool_calls ?? []).filter((call) => !call.arguments.includes('SANDBOX_CHANGES.md'));
      const merged = sandboxCalls.map((call, i) => calls[i] ?? call);
      if (change) merged.push({ name: 'write_file', arguments: JSON.stringify(change) });
      if (merged.length > 0) return { tool_calls: merged };
    }
    return sandboxResponder(request);
  };
}
