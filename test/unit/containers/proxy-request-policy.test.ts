import { describe, expect, it } from 'vitest';
import { budgetDecision, checkChatRequest, estimateInputTokens, FORWARDED_FIELDS, reportedUsage, settledCharge } from '../../../src/containers/proxy-request-policy';
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
    expect(checkChatRequest({ model: 'm', messages: user, tools: 'all' }, 'm')).toMatchObject({ ok: false, refusal: { message: 'tools must be an array of objects' } });
  });

  it('lets through what the AI SDK openai-compatible provider sends for the agent', () => {
    expect(FORWARDED_FIELDS).toEqual(expect.arrayContaining(['model', 'messages', 'max_tokens', 'tools', 'tool_choice', 'temperature', 'top_p', 'stop', 'seed', 'response_format', 'parallel_tool_calls']));
  });
});

describe('estimateInputTokens', () => {
  it('counts the prompt (messages, tools) but not the grant', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4000) }] };
    expect(estimateInputTokens({ ...body, max_tokens: 10 ** 9 })).toBe(estimateTokens(JSON.stringify(body)));
    expect(estimateInputTokens(body)).toBeGreaterThan(1000);
    expect(estimateInputTokens({ ...body, tools: [{ type: 'function', function: { name: 'f', description: 'd'.repeat(4000) } }] })).toBeGreaterThan(2000);
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
