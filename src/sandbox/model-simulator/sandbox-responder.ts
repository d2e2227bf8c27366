import type { ChatCompletionRequest, ScriptedReply } from './model-simulator';
import { sampleFromSchema } from './sample-from-schema';
import { sandboxAgentReply } from './sandbox-agent';

export const SIMULATED_TEXT = 'Simulated by the sandbox model: no real model was asked. Configure MODEL_CONNECTIONS and MODEL_DEFAULT (or LLM_BACKEND and LLM_MODEL) for real answers.';

function forcedToolName(request: ChatCompletionRequest): string | undefined {
  const choice = request.tool_choice as { type?: string; function?: { name?: string } } | string | undefined;
  if (typeof choice === 'object' && choice?.function?.name) return choice.function.name;
  if (choice === 'required') return request.tools?.[0]?.function.name;
  // The structured-output fallback offers one tool named `respond`; an agent loop offers tools it may ignore.
  return request.tools?.find((tool) => tool.function.name === 'respond')?.function.name;
}

/**
 * What the sandbox's model answers when nothing is scripted (`service dev --sandbox` without a real model): a
 * minimal, obviously simulated document that fits the requested JSON schema (response format or forced tool), or a
 * sentence saying it is simulated. A container agent (it offers write_file) gets sandbox-agent.ts: it writes the files its task asks for.
 */
export function sandboxResponder(request: ChatCompletionRequest): ScriptedReply {
  const format = request.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_schema') return { content: JSON.stringify(sampleFromSchema(format.json_schema?.schema)) };
  if (format?.type === 'json_object') return { content: JSON.stringify({ simulated: SIMULATED_TEXT }) };
  const agent = sandboxAgentReply(request);
  if (agent) return agent;
  const toolName = forcedToolName(request);
  const tool = request.tools?.find((candidate) => candidate.function.name === toolName);
  if (tool) return { tool_call: { name: tool.function.name, arguments: JSON.stringify(sampleFromSchema(tool.function.parameters)) } };
  return { content: SIMULATED_TEXT };
}
