import {
  checkMessages, checkResponseFormat, checkTools, imagesApart, TEXT_ONLY, WORST_CASE_IMAGE_TOKENS, type ContentPolicy,
} from './proxy-content-policy';

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
 * The optional request fields forwarded upstream, each with a check that says what is wrong with its value. The AI
 * SDK's openai-compatible provider (what src/agent/run-agent.ts uses) sends model, messages, max_tokens and tools, and
 * may send the sampling settings below; anything else (`n`, `models`, `route`, `logit_bias`, provider extensions)
 * could multiply spend or route the call elsewhere, so it is refused rather than passed on. For an Anthropic or
 * Vertex connection the same allowlist applies first; proxy-translation.ts then maps each field (or refuses what has
 * no faithful mapping).
 */
const OPTIONAL_FIELDS: Record<string, (value: unknown) => string | undefined> = {
  temperature: shaped('temperature', 'a number', isFiniteNumber),
  top_p: shaped('top_p', 'a number', isFiniteNumber),
  frequency_penalty: shaped('frequency_penalty', 'a number', isFiniteNumber),
  presence_penalty: shaped('presence_penalty', 'a number', isFiniteNumber),
  seed: shaped('seed', 'a whole number', (value) => Number.isInteger(value)),
  stop: shaped('stop', 'a string or an array of strings', (value) => typeof value === 'string' || (Array.isArray(value) && value.every((s) => typeof s === 'string'))),
  tools: checkTools,
  tool_choice: shaped('tool_choice', 'a string or an object', (value) => typeof value === 'string' || isPlainObject(value)),
  parallel_tool_calls: shaped('parallel_tool_calls', 'true or false', (value) => typeof value === 'boolean'),
  response_format: checkResponseFormat,
  user: shaped('user', 'a string', (value) => typeof value === 'string'),
};

/** Fields the proxy reads itself: the model is checked, max_tokens is replaced by the grant, n and stream are refused unless harmless. */
const HANDLED_FIELDS = ['model', 'messages', 'max_tokens', 'max_completion_tokens', 'n', 'stream'];

export const FORWARDED_FIELDS: readonly string[] = ['model', 'messages', 'max_tokens', ...Object.keys(OPTIONAL_FIELDS)];

function shaped(field: string, shape: string, check: (value: unknown) => boolean): (value: unknown) => string | undefined {
  return (value) => (check(value) ? undefined : `${field} must be ${shape}`);
}

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

/**
 * Whether a request may go upstream, and the body built from the allowlist alone (nothing unchecked is copied). The
 * messages pass only with the content the policy allows (proxy-content-policy.ts; text only by default).
 */
export function checkChatRequest(request: Record<string, unknown>, allowedModel: string, content: ContentPolicy = TEXT_ONLY): ChatRequestCheck {
  if (request.model !== allowedModel) {
    return { ok: false, refusal: { status: 403, type: 'permission_error', message: `model ${String(request.model)} is not allowed; this run may use ${allowedModel} only` } };
  }
  if (request.stream !== undefined && request.stream !== false) return badRequest('stream: the model proxy answers non-streaming requests only; send stream: false or leave it out');
  if (request.n !== undefined && request.n !== 1) return badRequest(`n: ${JSON.stringify(request.n)} is refused; the model proxy asks for one completion per call (n: 1 or leave it out)`);
  const unknown = Object.keys(request).filter((field) => !HANDLED_FIELDS.includes(field) && !Object.hasOwn(OPTIONAL_FIELDS, field));
  if (unknown.length > 0) return badRequest(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).join(', ')}: the model proxy forwards only ${FORWARDED_FIELDS.join(', ')}`);

  const body: Record<string, unknown> = { model: allowedModel };
  const messages = checkMessages(request.messages, content);
  if (messages) return badRequest(messages);
  body.messages = request.messages;
  for (const [field, check] of Object.entries(OPTIONAL_FIELDS)) {
    if (!Object.hasOwn(request, field)) continue;
    const problem = check(request[field]);
    if (problem) return badRequest(problem);
    body[field] = request[field];
  }
  const requested = request.max_tokens ?? request.max_completion_tokens;
  if (requested !== undefined && !(Number.isInteger(requested) && (requested as number) > 0)) {
    return badRequest(`max_tokens must be a whole number of at least 1, got ${JSON.stringify(requested)}`);
  }
  return { ok: true, body, requestedMaxTokens: requested as number | undefined };
}

/**
 * What the vendor's tool use adds to a request that declares tools: a system prompt of its own, a few hundred tokens
 * by the vendors' pricing notes, which the request's JSON does not show.
 */
export const TOOL_PROMPT_TOKENS = 600;

/**
 * The input tokens a call will be charged for, estimated like the station's own check (about four bytes a token)
 * over every byte the model reads: the messages with their tool calls and results, the tool schemas, the response
 * format. The JSON punctuation counts too, which stands in for the per-message overhead of the provider's chat
 * template. UTF-8 bytes rather than characters, since text outside ASCII costs more tokens a character. Images are
 * counted at `tokensPerImage` each (their base64 says nothing of what the vendor bills), and declared tools add the
 * vendor's tool prompt.
 */
export function estimateInputTokens(body: Record<string, unknown>, tokensPerImage: number = WORST_CASE_IMAGE_TOKENS): number {
  const { max_tokens: _granted, ...prompt } = body;
  const { text, images } = imagesApart(prompt);
  const toolPrompt = Array.isArray(prompt.tools) && prompt.tools.length > 0 ? TOOL_PROMPT_TOKENS : 0;
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4) + images * tokensPerImage + toolPrompt;
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
