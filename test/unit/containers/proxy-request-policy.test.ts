import { describe, expect, it } from 'vitest';
import { budgetDecision, checkChatRequest, estimateInputTokens, FORWARDED_FIELDS, reportedUsage, settledCharge, TOOL_PROMPT_TOKENS } from '../../../src/containers/proxy-request-policy';
import { DEFAULT_IMAGE_POLICY, WORST_CASE_IMAGE_TOKENS } from '../../../src/containers/proxy-content-policy';
import { estimateTokens } from '../../../src/budgets/token-budget';

const ask = (inputTokens: number, requestedMaxTokens?: number) => ({ inputTokens, requestedMaxTokens, connectionMaxTokens: 4096, maxInputTokens: 200_000 });
const user = [{ role: 'user', content: 'hi' }];

describe('budgetDecision', () => {
  it('grants output up to the connection cap when there is no budget, and still reserves input plus output', () => {
    expect(budgetDecision({ budget: null, spent: 0, reserved: 0 }, ask(10))).toEqual({ allow: true, maxTokens: 4096, reserve: 4106 });
    expect(budgetDecision({ budget: null, spent: 0, reserved: 0 }, ask(10, 100_000))).toEqual({ allow: true, maxTokens: 4096, reserve: 4106 });
  });

  it('grants only what is neither spent nor reserved by calls in flight, after the input', () => {
    expect(budgetDecision({ budget: 1000, spent: 800, reserved: 0 }, ask(50, 4096))).toEqual({ allow: true, maxTokens: 150, reserve: 200 });
    expect(budgetDecision({ budget: 1000, spent: 800, reserved: 100 }, ask(50, 4096))).toEqual({ allow: true, maxTokens: 50, reserve: 100 });
    expect(budgetDecision({ budget: 1000, spent: 0, reserved: 0 }, ask(50, 10))).toEqual({ allow: true, maxTokens: 10, reserve: 60 });
  });

  it('refuses a spent or fully reserved budget with a 429 that says "token budget"', () => {
    const spent = budgetDecision({ budget: 1000, spent: 1000, reserved: 0 }, ask(1, 10));
    expect(spent).toMatchObject({ allow: false, refusal: { status: 429, type: 'budget_exhausted', message: expect.stringContaining('token budget of 1000 is spent') } });
    const reserved = budgetDecision({ budget: 100, spent: 0, reserved: 100 }, ask(1, 10));
    expect(reserved).toMatchObject({ allow: false, refusal: { status: 429, message: expect.stringContaining('100 reserved by calls in flight') } });
  });

  it('refuses a call whose input alone does not leave room for an answer', () => {
    expect(budgetDecision({ budget: 100, spent: 0, reserved: 0 }, ask(100, 10))).toMatchObject({ allow: false, refusal: { status: 429, type: 'budget_exhausted', message: expect.stringMatching(/token budget of 100 cannot hold this call: its input of about 100 tokens/) } });
    expect(budgetDecision({ budget: 100, spent: 0, reserved: 0 }, ask(99, 10))).toEqual({ allow: true, maxTokens: 1, reserve: 100 });
  });

  it('refuses input over the per-call cap with 413 even without a budget', () => {
    expect(budgetDecision({ budget: null, spent: 0, reserved: 0 }, { ...ask(200_001), maxInputTokens: 200_000 })).toMatchObject({ allow: false, refusal: { status: 413, type: 'input_too_large', message: expect.stringContaining('per-call cap of 200000 tokens') } });
  });
});

describe('checkChatRequest', () => {
  it('builds the forwarded body from the allowlist only, dropping a harmless n: 1 and stream: false', () => {
    const checked = checkChatRequest({ model: 'm', messages: user, max_tokens: 7, temperature: 0.2, tools: [{ type: 'function', function: { name: 'f' } }], n: 1, stream: false }, 'm');
    expect(checked).toEqual({ ok: true, requestedMaxTokens: 7, body: { model: 'm', messages: user, temperature: 0.2, tools: [{ type: 'function', function: { name: 'f' } }] } });
    expect(checkChatRequest({ model: 'm', messages: user, max_completion_tokens: 9 }, 'm')).toMatchObject({ ok: true, requestedMaxTokens: 9, body: { model: 'm', messages: user } });
  });

  it('refuses another model with 403', () => {
    expect(checkChatRequest({ model: 'other', messages: user }, 'm')).toMatchObject({ ok: false, refusal: { status: 403, type: 'permission_error' } });
  });

  it('refuses n other than 1, streaming and unknown fields with 400 naming them', () => {
    expect(checkChatRequest({ model: 'm', messages: user, n: 5 }, 'm')).toMatchObject({ ok: false, refusal: { status: 400, message: expect.stringContaining('n: 5 is refused') } });
    expect(checkChatRequest({ model: 'm', messages: user, stream: true }, 'm')).toMatchObject({ ok: false, refusal: { status: 400, message: expect.stringContaining('non-streaming') } });
    const unknown = checkChatRequest({ model: 'm', messages: user, models: ['a', 'b'], route: 'fallback' }, 'm');
    expect(unknown).toMatchObject({ ok: false, refusal: { status: 400, message: expect.stringContaining('unknown fields models, route') } });
  });

  it('refuses malformed messages and fields of the wrong shape', () => {
    for (const messages of [undefined, [], 'hi', [null], [{ content: 'x' }], [{ role: 'root', content: 'x' }], [{ role: 'user' }], [{ role: 'user', content: 5 }], [{ role: 'user', content: null }], [{ role: 'user', content: 'x', cache_control: {} }]]) {
      expect(checkChatRequest({ model: 'm', messages }, 'm')).toMatchObject({ ok: false, refusal: { status: 400 } });
    }
    expect(checkChatRequest({ model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'ok' }] }, 'm')).toMatchObject({ ok: true });
    expect(checkChatRequest({ model: 'm', messages: user, max_tokens: 0 }, 'm')).toMatchObject({ ok: false, refusal: { message: expect.stringContaining('max_tokens') } });
    expect(checkChatRequest({ model: 'm', messages: user, max_tokens: 1.5 }, 'm')).toMatchObject({ ok: false });
    expect(checkChatRequest({ model: 'm', messages: user, tools: 'all' }, 'm')).toMatchObject({ ok: false, refusal: { message: expect.stringContaining('tools must be an array of function tools') } });
    expect(checkChatRequest({ model: 'm', messages: user, tools: [{ type: 'code_interpreter' }] }, 'm')).toMatchObject({ ok: false, refusal: { status: 400, message: expect.stringContaining('not a "code_interpreter" tool') } });
  });

  it('lets through what the AI SDK openai-compatible provider sends for the agent', () => {
    expect(FORWARDED_FIELDS).toEqual(expect.arrayContaining(['model', 'messages', 'max_tokens', 'tools', 'tool_choice', 'temperature', 'top_p', 'stop', 'seed', 'response_format', 'parallel_tool_calls']));
  });
});

/** The attack of issue 41: 500 image parts in one user message, which the vendor billed 765 tokens each. */
const fiveHundredImages = (url: string) => ({
  model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'describe these' }, ...Array.from({ length: 500 }, () => ({ type: 'image_url', image_url: { url } }))] }],
});
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('the 500-image request', () => {
  it('is refused when the run allows no images, naming the first image part', () => {
    expect(checkChatRequest(fiveHundredImages('https://203.0.113.7/i.png'), 'm')).toEqual({ ok: false, refusal: {
      status: 400, type: 'invalid_request_error',
      message: 'messages[0].content[1] is a part of type "image_url", which the model proxy refuses: user messages carry text parts only (images are not allowed for this run)',
    } });
  });

  it('is refused by the default image count when images are allowed', () => {
    const images = { images: DEFAULT_IMAGE_POLICY };
    expect(checkChatRequest(fiveHundredImages(`data:image/png;base64,${PNG}`), 'm', images)).toMatchObject({ ok: false, refusal: { status: 400, message: expect.stringContaining('messages[0].content[21]: more than 20 images') } });
  });

  it('with 500 images allowed, is estimated at 500 times the image rate at least and refused by a 20,000-token budget', () => {
    const images = { images: { ...DEFAULT_IMAGE_POLICY, maxImagesPerRequest: 500 } };
    const checked = checkChatRequest(fiveHundredImages(`data:image/png;base64,${PNG}`), 'm', images);
    if (!checked.ok) throw new Error(checked.refusal.message);
    const inputTokens = estimateInputTokens(checked.body, images.images.tokensPerImage);
    expect(inputTokens).toBeGreaterThanOrEqual(500 * WORST_CASE_IMAGE_TOKENS);
    expect(budgetDecision({ budget: 20_000, spent: 0, reserved: 0 }, ask(inputTokens))).toMatchObject({ allow: false, refusal: { status: 413, type: 'input_too_large' } });
    // Under a per-call cap high enough to let it through to the budget check, the budget refuses it.
    expect(budgetDecision({ budget: 20_000, spent: 0, reserved: 0 }, { ...ask(inputTokens), maxInputTokens: 10 ** 9 })).toMatchObject({ allow: false, refusal: { status: 429, message: expect.stringContaining('token budget of 20000') } });
  });
});

describe('estimateInputTokens', () => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4000) }] };
  const grows = (more: Record<string, unknown>, by: number) => expect(estimateInputTokens({ ...body, ...more }) - estimateInputTokens(body)).toBeGreaterThanOrEqual(by);

  it('counts the prompt but not the grant', () => {
    expect(estimateInputTokens({ ...body, max_tokens: 10 ** 9 })).toBe(estimateTokens(JSON.stringify(body)));
    expect(estimateInputTokens(body)).toBeGreaterThan(1000);
  });

  it('counts every place text hides: tool call arguments, tool results, tool schemas, the response format', () => {
    const big = 'y'.repeat(8000);
    grows({ messages: [...body.messages, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: JSON.stringify({ text: big }) } }] }] }, 2000);
    grows({ messages: [...body.messages, { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: big }] }] }, 2000);
    grows({ response_format: { type: 'json_schema', json_schema: { name: 'r', schema: { description: big } } } }, 2000);
    grows({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', description: big } } }] }, 2000 + TOOL_PROMPT_TOKENS);
    grows({ messages: [...body.messages, { role: 'assistant', content: 'ok', reasoning_content: big }] }, 2000);
  });

  it("adds the vendor's tool prompt once when tools are declared", () => {
    const tool = { type: 'function', function: { name: 'f' } };
    expect(estimateInputTokens({ ...body, tools: [tool] })).toBe(estimateTokens(JSON.stringify({ ...body, tools: [tool] })) + TOOL_PROMPT_TOKENS);
    expect(estimateInputTokens({ ...body, tools: [] })).toBe(estimateTokens(JSON.stringify({ ...body, tools: [] })));
  });

  it('counts text by its UTF-8 bytes, so text outside ASCII is not counted at a quarter of its cost', () => {
    const ascii = estimateInputTokens({ model: 'm', messages: [{ role: 'user', content: 'a'.repeat(3000) }] });
    const cjk = estimateInputTokens({ model: 'm', messages: [{ role: 'user', content: '字'.repeat(3000) }] });
    expect(cjk - ascii).toBe(1500);
  });

  it('counts an image at the given rate whatever its payload, and never its base64 as text', () => {
    const withImage = (payload: string) => ({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${payload}` } }] }] });
    const small = estimateInputTokens(withImage(PNG), 1600);
    expect(estimateInputTokens(withImage('A'.repeat(400_000)), 1600)).toBe(small);
    expect(small).toBeGreaterThanOrEqual(1600);
    expect(estimateInputTokens(withImage(PNG))).toBe(small - 1600 + WORST_CASE_IMAGE_TOKENS);
  });
});

describe('reportedUsage and settledCharge', () => {
  const reservation = { input_tokens: 20, output_tokens: 80 };

  it('reads usage only when both counts are whole numbers', () => {
    expect(reportedUsage({ usage: { prompt_tokens: 3, completion_tokens: 4 } })).toEqual({ input_tokens: 3, output_tokens: 4 });
    expect(reportedUsage({ usage: { prompt_tokens: -3, completion_tokens: 4 } })).toBeUndefined();
    expect(reportedUsage({ usage: { prompt_tokens: '3', completion_tokens: 4 } })).toBeUndefined();
    expect(reportedUsage({ choices: [] })).toBeUndefined();
    expect(reportedUsage(undefined)).toBeUndefined();
  });

  it('charges reported usage, nothing for an error answer without usage, and the reservation otherwise', () => {
    expect(settledCharge(reservation, { answered: true, status: 200, usage: { input_tokens: 5, output_tokens: 6 } })).toEqual({ input_tokens: 5, output_tokens: 6, estimated: false });
    expect(settledCharge(reservation, { answered: true, status: 200, usage: undefined })).toEqual({ ...reservation, estimated: true });
    expect(settledCharge(reservation, { answered: true, status: 429, usage: undefined })).toEqual({ input_tokens: 0, output_tokens: 0, estimated: false });
    expect(settledCharge(reservation, { answered: false })).toEqual({ ...reservation, estimated: true });
  });
});
