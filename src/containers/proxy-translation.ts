import {
  APICallError, InvalidArgumentError, InvalidPromptError, jsonSchema, RetryError, tool, UnsupportedFunctionalityError,
  type FinishReason, type JSONSchema7, type ModelMessage, type ProviderMetadata, type ToolChoice, type ToolSet,
} from 'ai';
import { inlineImage, TEXT_ONLY, type ContentPolicy } from './proxy-content-policy';
import type { Refusal, TokenUsage } from './proxy-request-policy';

/**
 * The model proxy's translation between the agent's wire format (OpenAI chat completions, non-streaming: what the
 * AI SDK's openai-compatible provider in the container sends) and an AI SDK `generateText` call on a backend that
 * speaks something else (Anthropic Messages, Vertex generateContent). Pure: the body was already checked against the
 * allowlist by checkChatRequest, so this only decides how each allowed field maps, and refuses (400, before any budget
 * is reserved) what has no faithful mapping rather than dropping it silently. Content parts map by the same content
 * policy the check applied: text parts, and inline images only when the policy allows them; any other part is
 * refused here too, so a part the check let through by mistake still never reaches the backend.
 */

type Plain = Record<string, unknown>;

/** Everything generateText needs of one request, apart from the model and the granted output tokens. */
export interface TranslatedPrompt {
  system?: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  toolChoice?: ToolChoice<ToolSet>;
  settings: {
    temperature?: number;
    topP?: number;
    frequencyPenalty?: number;
    presencePenalty?: number;
    seed?: number;
    stopSequences?: string[];
  };
}

export type Translation = { ok: true; prompt: TranslatedPrompt } | { ok: false; refusal: Refusal };

/**
 * The provider metadata the backend gave one of its tool calls (a Gemini thought signature, say), by the call's id.
 * The agent's wire format has no room for it, so the proxy keeps it and puts it back when the call is replayed.
 */
export type ToolCallRecall = (toolCallId: string) => ProviderMetadata | undefined;

/** The tool names both Anthropic and Vertex accept. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Untranslatable extends Error {
  override readonly name = 'Untranslatable';
}

/** The text of a message's content (a string, text parts, or null); anything else cannot be translated. */
function textOf(content: unknown, where: string, backend: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new Untranslatable(`${where}.content must be a string or text parts`);
  return textParts(content, where, backend).join('');
}

function isTextPart(part: unknown): part is { type: 'text'; text: string } {
  return isPlain(part) && part.type === 'text' && typeof part.text === 'string' && Object.keys(part).length === 2;
}

function partType(part: unknown): string {
  return isPlain(part) && typeof part.type === 'string' ? JSON.stringify(part.type.slice(0, 40)) : 'malformed';
}

function textParts(parts: unknown[], where: string, backend: string): string[] {
  return parts.map((part, index) => {
    if (isTextPart(part)) return part.text;
    throw new Untranslatable(`${where}.content[${index}] is a ${partType(part)} part; the model proxy translates text parts only for the ${backend} backend`);
  });
}

type UserPart = { type: 'text'; text: string } | { type: 'image'; image: Uint8Array; mediaType: string };

/**
 * A user message's parts: text, and images as their decoded bytes when the policy allows them. Bytes, never a URL
 * or a string the AI SDK could take for one, so the host downloads nothing on the container's behalf.
 */
function userParts(parts: unknown[], where: string, backend: string, content: ContentPolicy): UserPart[] {
  return parts.map((part, index) => {
    if (isTextPart(part)) return { type: 'text' as const, text: part.text };
    const at = `${where}.content[${index}]`;
    const images = content.images;
    if (!images || !isPlain(part) || part.type !== 'image_url') {
      throw new Untranslatable(`${at} is a ${partType(part)} part; the model proxy translates text parts${images ? ' and inline images' : ''} only for the ${backend} backend`);
    }
    const url = isPlain(part.image_url) ? part.image_url.url : undefined;
    const inline = typeof url === 'string' ? inlineImage(url, images.maxImageBytes) : undefined;
    if (!inline?.ok) throw new Untranslatable(`${at}.image_url.url ${inline ? inline.problem : 'must be a data: URL'}`);
    return { type: 'image' as const, image: Uint8Array.from(Buffer.from(inline.image.base64, 'base64')), mediaType: inline.image.mediaType };
  });
}

function toolCallsOf(message: Plain, where: string, recall: ToolCallRecall, names: Map<string, string>) {
  const calls = message.tool_calls === undefined || message.tool_calls === null ? [] : message.tool_calls;
  if (!Array.isArray(calls)) throw new Untranslatable(`${where}.tool_calls must be an array`);
  return calls.map((call: unknown, index) => {
    const at = `${where}.tool_calls[${index}]`;
    const fn = isPlain(call) ? call.function : undefined;
    if (!isPlain(call) || typeof call.id !== 'string' || call.id === '' || !isPlain(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
      throw new Untranslatable(`${at} must be {id, type: "function", function: {name, arguments}}`);
    }
    let input: unknown;
    try {
      input = fn.arguments.trim() === '' ? {} : JSON.parse(fn.arguments);
    } catch {
      throw new Untranslatable(`${at}.function.arguments is not JSON`);
    }
    // Both backends take a tool call's input as an object (Anthropic's tool_use.input, Vertex's functionCall.args).
    if (!isPlain(input)) throw new Untranslatable(`${at}.function.arguments must be a JSON object`);
    names.set(call.id, fn.name);
    const providerOptions = recall(call.id);
    return { type: 'tool-call' as const, toolCallId: call.id, toolName: fn.name, input, ...(providerOptions ? { providerOptions } : {}) };
  });
}

function translateMessages(raw: Plain[], backend: string, recall: ToolCallRecall, content: ContentPolicy): { system: string[]; messages: ModelMessage[] } {
  const system: string[] = [];
  const messages: ModelMessage[] = [];
  // Tool results name their call by id only; Vertex's functionResponse needs the tool's name, so it is looked up.
  const names = new Map<string, string>();
  for (const [index, message] of raw.entries()) {
    const where = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        // Both backends take instructions once, ahead of the conversation: a later one has no faithful place.
        if (messages.length > 0) throw new Untranslatable(`${where}: a ${message.role} message after the conversation started cannot be translated for the ${backend} backend; put all instructions first`);
        system.push(textOf(message.content, where, backend));
        break;
      case 'user':
        if (Array.isArray(message.content)) messages.push({ role: 'user', content: userParts(message.content, where, backend, content) });
        else messages.push({ role: 'user', content: textOf(message.content, where, backend) });
        break;
      case 'assistant': {
        const text = textOf(message.content, where, backend);
        const content = [...(text ? [{ type: 'text' as const, text }] : []), ...toolCallsOf(message, where, recall, names)];
        // An empty turn carries nothing, and Anthropic refuses an assistant message without content.
        if (content.length > 0) messages.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const id = message.tool_call_id;
        const toolName = typeof id === 'string' ? names.get(id) : undefined;
        if (typeof id !== 'string' || toolName === undefined) throw new Untranslatable(`${where}.tool_call_id ${JSON.stringify(id)} answers no tool call of an earlier assistant message`);
        const part = { type: 'tool-result' as const, toolCallId: id, toolName, output: { type: 'text' as const, value: textOf(message.content, where, backend) } };
        // The results of one turn's calls go back together (Anthropic wants them in one user message).
        const last = messages.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else messages.push({ role: 'tool', content: [part] });
        break;
      }
      default:
        throw new Untranslatable(`${where}.role ${JSON.stringify(message.role)} cannot be translated`);
    }
  }
  return { system, messages };
}

/** OpenAI function tools as AI SDK tools with their JSON schemas and no execute, so the model's calls come back. */
function translateTools(raw: unknown[]): ToolSet {
  const entries: Array<[string, ToolSet[string]]> = [];
  for (const [index, entry] of raw.entries()) {
    const where = `tools[${index}]`;
    const fn = isPlain(entry) ? entry.function : undefined;
    if (!isPlain(entry) || entry.type !== 'function' || !isPlain(fn)) throw new Untranslatable(`${where} must be {type: "function", function: {name, description, parameters}}`);
    if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) throw new Untranslatable(`${where}.function.name must be 1 to 64 letters, digits, "_" or "-"`);
    if (entries.some(([name]) => name === fn.name)) throw new Untranslatable(`${where}: tool ${fn.name} is declared twice`);
    if (fn.description !== undefined && typeof fn.description !== 'string') throw new Untranslatable(`${where}.function.description must be a string`);
    if (fn.parameters !== undefined && !isPlain(fn.parameters)) throw new Untranslatable(`${where}.function.parameters must be a JSON schema object`);
    const parameters = (fn.parameters ?? { type: 'object', properties: {} }) as JSONSchema7;
    entries.push([fn.name, tool({ ...(fn.description ? { description: fn.description } : {}), inputSchema: jsonSchema(parameters) })]);
  }
  // fromEntries defines own properties, so a tool named __proto__ is a tool, not a prototype.
  return Object.fromEntries(entries);
}

function translateToolChoice(raw: unknown, tools: ToolSet): ToolChoice<ToolSet> {
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  const fn = isPlain(raw) ? raw.function : undefined;
  if (isPlain(raw) && raw.type === 'function' && isPlain(fn) && typeof fn.name === 'string') {
    if (!Object.hasOwn(tools, fn.name)) throw new Untranslatable(`tool_choice names ${fn.name}, which is not among the tools`);
    return { type: 'tool', toolName: fn.name };
  }
  throw new Untranslatable('tool_choice must be "auto", "none", "required" or {type: "function", function: {name}}');
}

/**
 * A checked chat-completions body as a generateText call. `backend` only words the refusals. Fields without a
 * faithful mapping are refused: `response_format` (JSON mode differs per backend) and `parallel_tool_calls: false`
 * (Vertex has no switch for it); `user` is attribution only and is dropped. `content` is the policy the body was
 * checked with.
 */
export function translateChatRequest(body: Plain, backend: string, recall: ToolCallRecall = () => undefined, content: ContentPolicy = TEXT_ONLY): Translation {
  try {
    if (body.response_format !== undefined) throw new Untranslatable(`response_format is not translated for the ${backend} backend; ask for JSON in the prompt instead`);
    if (body.parallel_tool_calls === false) throw new Untranslatable(`parallel_tool_calls: false is not translated for the ${backend} backend; leave it out`);
    const { system, messages } = translateMessages(body.messages as Plain[], backend, recall, content);
    if (messages.length === 0) throw new Untranslatable('messages hold only instructions: send at least one user message');
    const tools = Array.isArray(body.tools) && body.tools.length > 0 ? translateTools(body.tools) : undefined;
    const toolChoice = tools && body.tool_choice !== undefined ? translateToolChoice(body.tool_choice, tools) : undefined;
    const number = (field: string) => (typeof body[field] === 'number' ? (body[field] as number) : undefined);
    const settings: TranslatedPrompt['settings'] = {
      temperature: number('temperature'), topP: number('top_p'), frequencyPenalty: number('frequency_penalty'),
      presencePenalty: number('presence_penalty'), seed: number('seed'),
      stopSequences: typeof body.stop === 'string' ? [body.stop] : (body.stop as string[] | undefined),
    };
    const prompt: TranslatedPrompt = {
      ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
      messages,
      ...(tools ? { tools } : {}),
      ...(toolChoice ? { toolChoice } : {}),
      settings: Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)),
    };
    return { ok: true, prompt };
  } catch (error) {
    if (!(error instanceof Untranslatable)) throw error;
    return { ok: false, refusal: { status: 400, type: 'invalid_request_error', message: error.message } };
  }
}

/** What the proxy reads of a generateText result (a subset, so tests can state one plainly). */
export interface GeneratedTurn {
  id: string;
  created: Date;
  text: string;
  toolCalls: ReadonlyArray<{ toolCallId: string; toolName: string; input: unknown }>;
  finishReason: FinishReason;
  usage: { inputTokens: number | undefined; outputTokens: number | undefined };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: { role: 'assistant'; content: string | null; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> };
    finish_reason: string;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const FINISH_REASONS: Record<FinishReason, string> = {
  stop: 'stop', length: 'length', 'content-filter': 'content_filter', 'tool-calls': 'tool_calls', error: 'stop', other: 'stop',
};

/**
 * A generated turn as the chat.completion the agent expects, and the usage to settle the budget with. The usage is
 * the backend's own count (input including cached prompt tokens, output including thinking), never an estimate: a
 * turn without it carries no usage, so the proxy charges the call's reservation. `model` is the name the agent asked
 * for, which is the one model the run may use.
 */
export function chatCompletionOf(turn: GeneratedTurn, model: string): { body: ChatCompletion; usage: TokenUsage | undefined } {
  const toolCalls = turn.toolCalls.map((call) => ({
    id: call.toolCallId, type: 'function' as const,
    function: { name: call.toolName, arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}) },
  }));
  // The agent runs tool calls whatever the reason says, but a caller reading the reason should see them.
  const finish = toolCalls.length > 0 && turn.finishReason !== 'length' ? 'tool_calls' : FINISH_REASONS[turn.finishReason];
  const count = (n: number | undefined): n is number => Number.isInteger(n) && (n as number) >= 0;
  const { inputTokens, outputTokens } = turn.usage;
  const usage = count(inputTokens) && count(outputTokens) ? { input_tokens: inputTokens, output_tokens: outputTokens } : undefined;
  const body: ChatCompletion = {
    id: turn.id, object: 'chat.completion', created: Math.floor(turn.created.getTime() / 1000), model,
    choices: [{
      index: 0,
      message: { role: 'assistant', content: toolCalls.length > 0 && turn.text === '' ? null : turn.text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
      finish_reason: finish,
    }],
    ...(usage ? { usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens } } : {}),
  };
  return { body, usage };
}

/** An error status of the backend, as the proxy passes it on. */
export interface UpstreamFailure {
  status: number;
  type: string;
  message: string;
  retryAfter?: string;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  408: 'timeout', 413: 'request_too_large', 429: 'rate_limit_exceeded',
};

/**
 * The backend's error answer (status 400 to 599), with its message and `retry-after`, or undefined when the error is
 * not an answer of the backend (unreachable, cut off, unreadable): the proxy answers those with 502 itself.
 */
export function upstreamFailureOf(error: unknown, backend: string): UpstreamFailure | undefined {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(cause)) return undefined;
  const status = cause.statusCode;
  if (status === undefined || status < 400 || status > 599) return undefined;
  const retryAfter = cause.responseHeaders?.['retry-after'];
  return {
    status, type: ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
    message: `the ${backend} backend answered ${status}: ${cause.message}`,
    ...(retryAfter ? { retryAfter } : {}),
  };
}

/** An error the AI SDK raises about the prompt itself, before anything is sent: the request's fault, so a 400. */
export function isPromptError(error: unknown): boolean {
  return InvalidPromptError.isInstance(error) || UnsupportedFunctionalityError.isInstance(error) || InvalidArgumentError.isInstance(error);
}
