import { APICallError, InvalidPromptError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_POLICY, type ContentPolicy } from '../../../src/containers/proxy-content-policy';
import { chatCompletionOf, isPromptError, translateChatRequest, upstreamFailureOf, type GeneratedTurn } from '../../../src/containers/proxy-translation';

const READ_FILE = { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } };

/** A request as checkChatRequest passes it on (the allowlisted fields only). */
const request = (fields: Record<string, unknown> = {}) => ({
  model: 'm',
  messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Read a.txt' }],
  ...fields,
});

function refusal(body: Record<string, unknown>): string {
  const translated = translateChatRequest(body, 'anthropic');
  if (translated.ok) throw new Error('expected a refusal');
  expect(translated.refusal).toMatchObject({ status: 400, type: 'invalid_request_error' });
  return translated.refusal.message;
}

describe('translateChatRequest', () => {
  it('puts leading instructions in system and carries a tool loop as tool-call and tool-result parts', () => {
    const translated = translateChatRequest(request({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
        { role: 'user', content: 'Read a.txt and b.txt' },
        { role: 'assistant', content: null, tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } },
        ] },
        { role: 'tool', tool_call_id: 'c1', content: 'one' },
        { role: 'tool', tool_call_id: 'c2', content: 'two' },
      ],
      tools: [READ_FILE], tool_choice: 'auto', temperature: 0.2, top_p: 0.9, seed: 7, stop: 'END', user: 'agent',
    }), 'cloud-ai', (id) => (id === 'c1' ? { vertex: { thoughtSignature: 'sig' } } : undefined));
    if (!translated.ok) throw new Error(translated.refusal.message);
    const { prompt } = translated;
    expect(prompt.system).toBe('Be brief.\n\nUse tools.');
    expect(prompt.messages).toEqual([
      { role: 'user', content: 'Read a.txt and b.txt' },
      { role: 'assistant', content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.txt' }, providerOptions: { vertex: { thoughtSignature: 'sig' } } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: { path: 'b.txt' } },
      ] },
      // Both results in one turn, each with its tool's name (Vertex's functionResponse needs it).
      { role: 'tool', content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'one' } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'read_file', output: { type: 'text', value: 'two' } },
      ] },
    ]);
    expect(Object.keys(prompt.tools!)).toEqual(['read_file']);
    expect(prompt.tools!.read_file!.description).toBe('Read a file');
    expect(prompt.toolChoice).toBe('auto');
    // `user` is attribution only: dropped, not refused.
    expect(prompt.settings).toEqual({ temperature: 0.2, topP: 0.9, seed: 7, stopSequences: ['END'] });
  });

  it('keeps an assistant text beside its tool calls and drops an empty assistant turn', () => {
    const translated = translateChatRequest(request({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'go on' },
        { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list_files', arguments: '' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ],
    }), 'anthropic');
    expect(translated.ok && translated.prompt.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'go'],
      ['user', 'go on'],
      ['assistant', [{ type: 'text', text: 'Looking.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'list_files', input: {} }]],
      ['tool', [{ type: 'tool-result', toolCallId: 'c1', toolName: 'list_files', output: { type: 'text', value: 'a.txt' } }]],
    ]);
    expect(translated.ok && translated.prompt.system).toBeUndefined();
  });

  it('maps tool_choice and declares tools by own name, so __proto__ is a tool and not a prototype', () => {
    const proto = { type: 'function', function: { name: '__proto__', parameters: { type: 'object', properties: {} } } };
    const translated = translateChatRequest(request({ tools: [READ_FILE, proto], tool_choice: { type: 'function', function: { name: 'read_file' } } }), 'anthropic');
    if (!translated.ok) throw new Error(translated.refusal.message);
    expect(Object.hasOwn(translated.prompt.tools!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(translated.prompt.tools)).toBe(Object.prototype);
    expect(translated.prompt.toolChoice).toEqual({ type: 'tool', toolName: 'read_file' });
  });

  it.each([
    ['a non-text part', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }] }, 'text parts only for the anthropic backend'],
    ['a system message mid-conversation', { messages: [{ role: 'user', content: 'a' }, { role: 'system', content: 'b' }] }, 'after the conversation started'],
    ['only instructions', { messages: [{ role: 'system', content: 'b' }] }, 'at least one user message'],
    ['a tool result for no call', { messages: [{ role: 'user', content: 'a' }, { role: 'tool', tool_call_id: 'nope', content: 'x' }] }, 'answers no tool call'],
    ['arguments that are not JSON', { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{' } }] }] }, 'is not JSON'],
    ['arguments that are not an object', { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '[1]' } }] }] }, 'must be a JSON object'],
    ['a tool call without an id', { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 't', arguments: '{}' } }] }] }, 'must be {id'],
    ['a tool with an odd name', { tools: [{ type: 'function', function: { name: 'read file' } }] }, '1 to 64 letters'],
    ['a tool declared twice', { tools: [READ_FILE, READ_FILE] }, 'declared twice'],
    ['a tool that is not a function', { tools: [{ type: 'web_search' }] }, 'must be {type: "function"'],
    ['parameters that are not an object', { tools: [{ type: 'function', function: { name: 't', parameters: 'x' } }] }, 'JSON schema object'],
    ['tool_choice naming an unknown tool', { tools: [READ_FILE], tool_choice: { type: 'function', function: { name: 'write_file' } } }, 'not among the tools'],
    ['an unknown tool_choice', { tools: [READ_FILE], tool_choice: 'any' }, 'tool_choice must be'],
    ['response_format', { response_format: { type: 'json_object' } }, 'response_format is not translated'],
    ['parallel_tool_calls: false', { parallel_tool_calls: false }, 'parallel_tool_calls: false'],
  ])('refuses %s with a 400 that says what to change', (_, fields, message) => {
    expect(refusal(request(fields))).toContain(message);
  });
});

describe('translateChatRequest and content parts', () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const images: ContentPolicy = { images: DEFAULT_IMAGE_POLICY };
  const withPart = (part: unknown, role = 'user') => request({ messages: [{ role: 'user', content: 'start' }, { role, content: [{ type: 'text', text: 'see' }, part] }] });
  const image = (url: string) => ({ type: 'image_url', image_url: { url } });

  it.each(['anthropic', 'cloud-ai'])('maps an allowed inline image to its bytes for %s, never to a URL the host would download', (backend) => {
    const translated = translateChatRequest(withPart(image(`data:image/png;base64,${PNG}`)), backend, undefined, images);
    if (!translated.ok) throw new Error(translated.refusal.message);
    const [, user] = translated.prompt.messages;
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', image: new Uint8Array(Buffer.from(PNG, 'base64')), mediaType: 'image/png' }] });
  });

  it.each([
    ['anthropic', 'an image, under the default text-only policy', image(`data:image/png;base64,${PNG}`), {}, 'is a "image_url" part; the model proxy translates text parts only for the anthropic backend'],
    ['cloud-ai', 'an image, under the default text-only policy', image(`data:image/png;base64,${PNG}`), {}, 'translates text parts only for the cloud-ai backend'],
    ['anthropic', 'a file part with images allowed', { type: 'file', file: { file_id: 'file-abc' } }, images, 'is a "file" part; the model proxy translates text parts and inline images only for the anthropic backend'],
    ['cloud-ai', 'a file part with images allowed', { type: 'file', file: { file_id: 'file-abc' } }, images, 'is a "file" part'],
    ['anthropic', 'audio with images allowed', { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }, images, 'is a "input_audio" part'],
    ['cloud-ai', 'a remote image with images allowed', image('https://203.0.113.7/i.png'), images, 'image_url.url is not a base64 data: URL'],
    ['anthropic', 'a remote image with images allowed', image('https://203.0.113.7/i.png'), images, 'image_url.url is not a base64 data: URL'],
    ['cloud-ai', 'a text part carrying cache_control', { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }, images, 'is a "text" part'],
  ])('on %s, refuses %s even if the check had let it through', (backend, _, part, policy, message) => {
    const translated = translateChatRequest(withPart(part), backend, undefined, policy as ContentPolicy);
    expect(translated).toMatchObject({ ok: false, refusal: { status: 400, message: expect.stringContaining(`messages[1].content[1]`) } });
    expect(!translated.ok && translated.refusal.message).toContain(message);
  });

  it('refuses an image outside a user message with images allowed', () => {
    const translated = translateChatRequest(request({ messages: [{ role: 'system', content: [image(`data:image/png;base64,${PNG}`)] }, { role: 'user', content: 'x' }] }), 'anthropic', undefined, images);
    expect(translated).toMatchObject({ ok: false, refusal: { message: expect.stringContaining('messages[0].content[0] is a "image_url" part') } });
  });
});

const turn = (overrides: Partial<GeneratedTurn> = {}): GeneratedTurn => ({
  id: 'msg_1', created: new Date('2026-01-02T03:04:05Z'), text: '', toolCalls: [], finishReason: 'stop', usage: { inputTokens: 30, outputTokens: 5 }, ...overrides,
});

describe('chatCompletionOf', () => {
  it('answers tool calls with their ids and JSON arguments, content null when there is no text', () => {
    const { body, usage } = chatCompletionOf(turn({ toolCalls: [{ toolCallId: 'toolu_1', toolName: 'read_file', input: { path: 'a' } }], finishReason: 'tool-calls' }), 'm');
    expect(body).toEqual({
      id: 'msg_1', object: 'chat.completion', created: 1767323045, model: 'm',
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] } }],
      usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 },
    });
    expect(usage).toEqual({ input_tokens: 30, output_tokens: 5 });
  });

  it.each([
    ['stop', 'stop'], ['length', 'length'], ['content-filter', 'content_filter'], ['tool-calls', 'tool_calls'], ['other', 'stop'], ['error', 'stop'],
  ] as const)('maps the finish reason %s to %s', (reason, expected) => {
    expect(chatCompletionOf(turn({ text: 'hi', finishReason: reason }), 'm').body.choices[0]!.finish_reason).toBe(expected);
  });

  it('says tool_calls whenever it hands calls over, except when the answer was cut at the token limit', () => {
    const call = { toolCallId: 'c', toolName: 't', input: '{"raw"' };
    expect(chatCompletionOf(turn({ toolCalls: [call], finishReason: 'stop' }), 'm').body.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { tool_calls: [{ function: { arguments: '{"raw"' } }] } });
    expect(chatCompletionOf(turn({ toolCalls: [call], finishReason: 'length' }), 'm').body.choices[0]!.finish_reason).toBe('length');
  });

  it('reports no usage when the backend gave none, so the proxy charges the reservation instead', () => {
    const { body, usage } = chatCompletionOf(turn({ text: 'hi', usage: { inputTokens: 12, outputTokens: undefined } }), 'm');
    expect(usage).toBeUndefined();
    expect(body.usage).toBeUndefined();
    expect(body.choices[0]!.message).toEqual({ role: 'assistant', content: 'hi' });
  });
});

const apiError = (statusCode: number | undefined, headers: Record<string, string> = {}) => new APICallError({
  message: 'Number of requests has exceeded your rate limit', url: 'https://api.example/v1/messages', requestBodyValues: {},
  statusCode, responseHeaders: headers, isRetryable: statusCode === 429,
});

describe('upstreamFailureOf', () => {
  it("keeps the backend's status and retry-after, and says which backend answered", () => {
    expect(upstreamFailureOf(apiError(429, { 'retry-after': '12' }), 'anthropic')).toEqual({
      status: 429, type: 'rate_limit_exceeded', retryAfter: '12',
      message: 'the anthropic backend answered 429: Number of requests has exceeded your rate limit',
    });
    expect(upstreamFailureOf(apiError(529), 'anthropic')).toMatchObject({ status: 529, type: 'server_error' });
    expect(upstreamFailureOf(apiError(422), 'cloud-ai')).toMatchObject({ status: 422, type: 'invalid_request_error' });
    expect(upstreamFailureOf(new RetryError({ message: 'failed', reason: 'maxRetriesExceeded', errors: [apiError(401)] }), 'anthropic')).toMatchObject({ status: 401, type: 'authentication_error' });
  });

  it('leaves to the proxy what is not an error answer: no status, a 200 it could not read, any other error', () => {
    expect(upstreamFailureOf(apiError(undefined), 'anthropic')).toBeUndefined();
    expect(upstreamFailureOf(apiError(200), 'anthropic')).toBeUndefined();
    expect(upstreamFailureOf(new Error('socket hang up'), 'anthropic')).toBeUndefined();
  });
});

describe('isPromptError', () => {
  it('tells the request\'s own faults from everything else', () => {
    expect(isPromptError(new InvalidPromptError({ prompt: '', message: 'bad' }))).toBe(true);
    expect(isPromptError(new Error('boom'))).toBe(false);
  });
});
