import { estimateTokens } from '../budgets/token-budget';

/**
 * What the per-run model proxy lets through (SPEC 5 "Outbound credentials"), as pure decisions so each one is tested
 * on its own: which chat-completions requests are well-formed enough to forward, what is forwarded of them, and how
 * the stage's token budget is reserved before a call and settled after it. The container sends these requests, so
 * everything here treats the body as hostile.
 */

/** A refusal the proxy answers with `{error: {message, type}}` and records in its calls. */
export interface Refusal {
  status: number;
  type: string;
  message: string;
}

/**
 * The optional request fields forwarded upstream, with the shape each must have. The AI SDK's openai-compatible
 * provider (what src/agent/run-agent.ts uses) sends model, messages, max_tokens and tools, and may send the sampling
 * settings below; anything else (`n`, `models`, `route`, `logit_bias`, provider extensions) could multiply spend or
 * route the call elsewhere, so it is refused rather than passed on. For an Anthropic or Vertex connection the same
 * allowlist applies first; proxy-translation.ts then maps each field (or refuses what has no faithful mapping).
 */
const OPTIONAL_FIELDS: Record<string, { shape: string; check: (value: unknown) => boolean }> = {
  temperature: { shape: 'a number', check: isFiniteNumber },
  top_p: { shape: 'a number', check: isFiniteNumber },
  frequency_penalty: { shape: 'a number', check: isFiniteNumber },
  presence_penalty: { shape: 'a number', check: isFiniteNumber },
  seed: { shape: 'a whole number', check: (value) => Number.isInteger(value) },
  stop: { shape: 'a string or an array of strings', check: (value) => typeof value === 'string' || (Array.isArray(value) && value.every((s) => typeof s === 'string')) },
  tools: { shape: 'an array of objects', check: (value) => Array.isArray(value) && value.every(isPlainObject) },
  tool_choice: { shape: 'a string or an object', check: (value) => typeof value === 'string' || isPlainObject(value) },
  parallel_tool_calls: { shape: 'true or false', check: (value) => typeof value === 'boolean' },
  response_format: { shape: 'an object', check: isPlainObject },
  user: { shape: 'a string', check: (value) => typeof value === 'string' },
};

/** Fields the proxy reads itself: the model is checked, max_tokens is replaced by the grant, n and stream are refused unless harmless. */
const HANDLED_FIELDS = ['model', 'messages', 'max_tokens', 'max_completion_tokens', 'n', 'stream'];

export const FORWARDED_FIELDS: readonly string[] = ['model', 'messages', 'max_tokens', ...Object.keys(OPTIONAL_FIELDS)];

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
/** The message fields the AI SDK writes (src/agent never sets provider metadata, which would add more). */
const MESSAGE_FIELDS = new Set(['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'reasoning_content']);

function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function badRequest(message: string): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { status: 400, type: 'invalid_request_error', message } };
}

export type ChatRequestCheck =
  /** `body`: what is forwarded (max_tokens still to be set from the grant); `requestedMaxTokens`: what the caller asked for. */
  | { ok: true; body: Record<string, unknown>; requestedMaxTokens: number | undefined }
  | { ok: false; refusal: Refusal };

/** Whether a request may go upstream, and the body built from the allowlist alone (nothing unchecked is copied). */
export function checkChatRequest(request: Record<string, unknown>, allowedModel: string): ChatRequestCheck {
  if (request.model !== allowedModel) {
    return { ok: false, refusal: { status: 403, type: 'permission_error', message: `model ${String(request.model)} is not allowed; this run may use ${allowedModel} only` } };
  }
  if (request.stream !== undefined && request.stream !== false) return badRequest('stream: the model proxy answers non-streaming requests only; send stream: false or leave it out');
  if (request.n !== undefined && request.n !== 1) return badRequest(`n: ${JSON.stringify(request.n)} is refused; the model proxy asks for one completion per call (n: 1 or leave it out)`);
  const unknown = Object.keys(request).filter((field) => !HANDLED_FIELDS.includes(field) && !Object.hasOwn(OPTIONAL_FIELDS, field));
  if (unknown.length > 0) return badRequest(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).join(', ')}: the model proxy forwards only ${FORWARDED_FIELDS.join(', ')}`);

  const body: Record<string, unknown> = { model: allowedModel };
  const messages = checkMessages(request.messages);
  if (messages) return badRequest(messages);
  body.messages = request.messages;
  for (const [field, { shape, check }] of Object.entries(OPTIONAL_FIELDS)) {
    if (!Object.hasOwn(request, field)) continue;
    if (!check(request[field])) return badRequest(`${field} must be ${shape}`);
    body[field] = request[field];
  }
  const requested = request.max_tokens ?? request.max_completion_tokens;
  if (requested !== undefined && !(Number.isInteger(requested) && (requested as number) > 0)) {
    return badRequest(`max_tokens must be a whole number of at least 1, got ${JSON.stringify(requested)}`);
  }
  return { ok: true, body, requestedMaxTokens: requested as number | undefined };
}

/** A light check of the messages: what is wrong with them, or undefined when they are fine. */
export function checkMessages(messages: unknown): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a non-empty array of {role, content} objects';
  for (const [index, message] of messages.entries()) {
    const where = `messages[${index}]`;
    if (!isPlainObject(message)) return `${where} must be an object with role and content`;
    if (typeof message.role !== 'string' || !ROLES.has(message.role)) return `${where}.role must be one of ${[...ROLES].join(', ')}, got ${JSON.stringify(message.role)}`;
    const extra = Object.keys(message).filter((field) => !MESSAGE_FIELDS.has(field));
    if (extra.length > 0) return `${where} has unknown field${extra.length > 1 ? 's' : ''} ${extra.slice(0, 10).join(', ')} (known: ${[...MESSAGE_FIELDS].join(', ')})`;
    if (!Object.hasOwn(message, 'content')) return `${where} has no content`;
    const content = message.content;
    const contentOk = typeof content === 'string'
      || (Array.isArray(content) && content.every(isPlainObject))
      || (content === null && message.role === 'assistant');
    if (!contentOk) return `${where}.content must be a string or an array of content parts (null only for an assistant's tool calls)`;
    if (message.tool_calls !== undefined && !(Array.isArray(message.tool_calls) && message.tool_calls.every(isPlainObject))) return `${where}.tool_calls must be an array of objects`;
  }
  return undefined;
}

/**
 * The input tokens a call will be charged for, estimated like the station's own check (about four characters a
 * token) over everything the model reads: the messages, the tool schemas and the response format. The JSON
 * punctuation counts too, which stands in for the per-message overhead of the provider's chat template.
 */
export function estimateInputTokens(body: Record<string, unknown>): number {
  const { max_tokens: _granted, ...prompt } = body;
  return estimateTokens(JSON.stringify(prompt));
}

/** What the budget holds: settled spend plus the reservations of calls still in flight. Null budget = no limit. */
export interface BudgetLedger {
  budget: number | null;
  spent: number;
  reserved: number;
}

export interface CallAsk {
  inputTokens: number;
  requestedMaxTokens: number | undefined;
  connectionMaxTokens: number;
  /** The per-call cap on input tokens, budget or not. */
  maxInputTokens: number;
}

export type BudgetDecision =
  /** `reserve`: the tokens to hold against the budget until the call settles (input plus the output granted). */
  | { allow: true; maxTokens: number; reserve: number }
  | { allow: false; refusal: Refusal };

/**
 * Whether a call fits, and how many output tokens it may ask for. The call reserves its estimated input plus the
 * output granted against what is neither spent nor reserved by calls in flight, so parallel calls cannot together
 * overrun the budget. Budget refusals say "token budget": the container station looks for that phrase.
 */
export function budgetDecision(ledger: BudgetLedger, ask: CallAsk): BudgetDecision {
  if (ask.inputTokens > ask.maxInputTokens) {
    return { allow: false, refusal: { status: 413, type: 'input_too_large', message: `the request's input of about ${ask.inputTokens} tokens is over the model proxy's per-call cap of ${ask.maxInputTokens} tokens: send a shorter conversation (drop old tool results)` } };
  }
  const wanted = Math.min(ask.requestedMaxTokens ?? ask.connectionMaxTokens, ask.connectionMaxTokens);
  if (ledger.budget === null) return { allow: true, maxTokens: wanted, reserve: ask.inputTokens + wanted };
  const held = `${ledger.spent} spent, ${ledger.reserved} reserved by calls in flight`;
  const left = ledger.budget - ledger.spent - ledger.reserved;
  if (left <= 0) return { allow: false, refusal: budgetRefusal(`the stage's token budget of ${ledger.budget} is spent (${held})`) };
  // At least one output token must fit beside the input, or the call could only be an overrun.
  if (ask.inputTokens + 1 > left) {
    return { allow: false, refusal: budgetRefusal(`the stage's token budget of ${ledger.budget} cannot hold this call: its input of about ${ask.inputTokens} tokens plus an answer is more than the ${left} tokens left (${held})`) };
  }
  const maxTokens = Math.min(wanted, left - ask.inputTokens);
  return { allow: true, maxTokens, reserve: ask.inputTokens + maxTokens };
}

function budgetRefusal(message: string): Refusal {
  return { status: 429, type: 'budget_exhausted', message };
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

/** The usage an upstream answer reports, or undefined when it reports none that can be trusted as a count. */
export function reportedUsage(answer: unknown): TokenUsage | undefined {
  if (!isPlainObject(answer) || !isPlainObject(answer.usage)) return undefined;
  const { prompt_tokens: input, completion_tokens: output } = answer.usage;
  const count = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
  return count(input) && count(output) ? { input_tokens: input, output_tokens: output } : undefined;
}

/** What the upstream said, as far as settling goes: nothing (unreachable, timed out, answer too large) or a status with usage or not. */
export type UpstreamOutcome = { answered: false } | { answered: true; status: number; usage: TokenUsage | undefined };

/**
 * What a finished call costs the budget. Reported usage is the truth. An error answer (status 400 and up) without
 * usage produced no completion, so it costs nothing: a provider's rate limit must not turn into a spent budget. In
 * every other case (a success without usage, no answer at all) the model may have worked, so the reservation stays
 * spent. `estimated` marks a charge that is the reservation, not a count.
 */
export function settledCharge(reservation: TokenUsage, outcome: UpstreamOutcome): TokenUsage & { estimated: boolean } {
  if (outcome.answered && outcome.usage) return { ...outcome.usage, estimated: false };
  if (outcome.answered && outcome.status >= 400) return { input_tokens: 0, output_tokens: 0, estimated: false };
  return { ...reservation, estimated: true };
}
