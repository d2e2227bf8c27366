import { describe, expect, it } from 'vitest';
import {
  checkContentPolicy, checkMessages, checkResponseFormat, checkTools, ContentPolicyError, DEFAULT_IMAGE_POLICY,
  imagesApart, inlineImage, TEXT_ONLY, type ContentPolicy,
} from '../../../src/containers/proxy-content-policy';

/** A 1x1 PNG: real image bytes, 70 of them. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PNG_BYTES = 70;
const image = (url = `data:image/png;base64,${PNG}`, extra: Record<string, unknown> = {}) => ({ type: 'image_url', image_url: { url, ...extra } });
const WITH_IMAGES: ContentPolicy = { images: { ...DEFAULT_IMAGE_POLICY, maxImagesPerRequest: 3 } };
const userParts = (...parts: unknown[]) => [{ role: 'user', content: parts }];

/** What the AI SDK's openai-compatible provider sends for the agent's tool loop (src/agent/run-agent.ts). */
const AGENT_TURN = [
  { role: 'system', content: 'You work in a git checkout.' },
  { role: 'user', content: 'Read a.txt' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
  { role: 'assistant', content: 'a.txt says hello', reasoning_content: 'It is short.' },
  { role: 'user', content: [{ type: 'text', text: 'Thanks.' }, { type: 'text', text: 'Now b.txt.' }] },
];

describe('checkMessages', () => {
  it("passes the agent's text-only conversation under the default policy", () => {
    expect(checkMessages(AGENT_TURN)).toBeUndefined();
    expect(checkMessages([{ role: 'developer', content: [{ type: 'text', text: 'x' }] }, { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'y' }] }])).toBeUndefined();
  });

  it.each([
    ['a file of the vendor account', { type: 'file', file: { file_id: 'file-abc123' } }, '"file"'],
    ['audio', { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }, '"input_audio"'],
    ['a refusal part in a user message', { type: 'refusal', refusal: 'no' }, '"refusal"'],
    ['a type nobody knows', { type: 'video_url', video_url: { url: 'https://x' } }, '"video_url"'],
    ['an image, which this run may not send', image(), '"image_url"'],
    ['a part without a type', { text: 'x' }, 'without a string type'],
    ['a string where a part belongs', 'hello', 'a string where a part belongs'],
  ])('refuses %s, naming the message, the part, its type and what passes', (_, part, type) => {
    const problem = checkMessages([{ role: 'system', content: 'x' }, { role: 'user', content: [{ type: 'text', text: 'look' }, part] }]);
    expect(problem).toContain('messages[1].content[1] is ');
    expect(problem).toContain(type);
    expect(problem).toContain('user messages carry text parts only (images are not allowed for this run)');
  });

  it('refuses a file part whatever the image policy says', () => {
    expect(checkMessages(userParts({ type: 'file', file: { file_id: 'file-abc123' } }), WITH_IMAGES))
      .toBe('messages[0].content[0] is a part of type "file", which the model proxy refuses: user messages carry text parts and image_url parts with a data: URL (at most 3 images a request)');
  });

  it('refuses a text part with fields beside type and text, such as cache_control, which changes what a call is billed', () => {
    expect(checkMessages(userParts({ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }))).toContain('messages[0].content[0] has unknown field cache_control (known: type, text)');
    expect(checkMessages(userParts({ type: 'text', text: 5 }))).toBe('messages[0].content[0].text must be a string');
  });

  it('refuses non-text parts in system, assistant and tool messages, images too, even when images are allowed', () => {
    for (const role of ['system', 'developer', 'assistant', 'tool']) {
      const problem = checkMessages([{ role, content: [image()], ...(role === 'tool' ? { tool_call_id: 'c' } : {}) }], WITH_IMAGES);
      expect(problem).toBe(`messages[0].content[0] is a part of type "image_url", which the model proxy refuses: ${role} messages carry text parts only`);
    }
  });

  it('refuses fields a role does not have and tool calls of another shape', () => {
    expect(checkMessages([{ role: 'user', content: 'x', tool_call_id: 'c' }])).toContain('messages[0] (user) has unknown field tool_call_id');
    expect(checkMessages([{ role: 'tool', content: 'x' }])).toContain('messages[0].tool_call_id must be');
    const call = { id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } };
    expect(checkMessages([{ role: 'assistant', content: null, tool_calls: [call] }])).toBeUndefined();
    expect(checkMessages([{ role: 'assistant', content: null, tool_calls: [{ ...call, extra_content: { google: {} } }] }])).toContain('messages[0].tool_calls[0] has unknown field extra_content');
    expect(checkMessages([{ role: 'assistant', content: null, tool_calls: [{ ...call, function: { name: 'f', arguments: {} } }] }])).toContain('messages[0].tool_calls[0] must be {id, type: "function"');
    expect(checkMessages([{ role: 'assistant', content: null, tool_calls: [{ ...call, type: 'custom' }] }])).toContain('must be {id, type: "function"');
    expect(checkMessages([{ role: 'assistant', content: 'x', reasoning_content: 7 }])).toBe('messages[0].reasoning_content must be a string');
  });

  it('passes inline images in user messages when the policy allows them, up to its count', () => {
    expect(checkMessages(userParts({ type: 'text', text: 'what is this?' }, image(), image(undefined, { detail: 'high' })), WITH_IMAGES)).toBeUndefined();
    const four = [{ role: 'user', content: [image(), image()] }, { role: 'user', content: [image(), image()] }];
    expect(checkMessages(four, WITH_IMAGES)).toBe('messages[1].content[1]: more than 3 images in one request; send at most 3');
  });

  it.each([
    ['a remote URL, which the vendor would fetch', 'https://203.0.113.7/i.png', 'is not a base64 data: URL (a https: URL would have the vendor fetch it)'],
    ['a file URL', 'file:///etc/passwd', 'is not a base64 data: URL (a file: URL would have the vendor fetch it)'],
    ['a data URL that is not base64', 'data:image/png,rawbytes', 'is not a base64 data: URL'],
    ['an SVG', `data:image/svg+xml;base64,${PNG}`, 'has media type image/svg+xml'],
    ['a PDF dressed as an image part', `data:application/pdf;base64,${PNG}`, 'has media type application/pdf'],
    ['base64 with other characters', 'data:image/png;base64,AAA$', 'does not hold valid base64'],
    ['base64 cut short', 'data:image/png;base64,AAAAA', 'does not hold valid base64'],
    ['an empty payload', 'data:image/png;base64,', 'does not hold valid base64'],
  ])('refuses an image with %s', (_, url, problem) => {
    expect(checkMessages(userParts(image(url)), WITH_IMAGES)).toContain(`messages[0].content[0].image_url.url ${problem}`);
  });

  it('refuses an image over the size limit and image parts with fields beyond url and detail', () => {
    expect(Buffer.from(PNG, 'base64')).toHaveLength(PNG_BYTES);
    const policy = { images: { ...DEFAULT_IMAGE_POLICY, maxImageBytes: PNG_BYTES - 1 } };
    expect(checkMessages(userParts(image()), policy)).toContain(`holds about ${PNG_BYTES} bytes, over the limit of ${PNG_BYTES - 1} bytes an image`);
    expect(checkMessages(userParts(image()), { images: { ...DEFAULT_IMAGE_POLICY, maxImageBytes: PNG_BYTES } })).toBeUndefined();
    expect(checkMessages(userParts(image(undefined, { detail: 'ultra' })), WITH_IMAGES)).toContain('detail must be "auto", "low" or "high"');
    expect(checkMessages(userParts(image(undefined, { fetch: true })), WITH_IMAGES)).toContain('image_url has unknown field fetch');
    expect(checkMessages(userParts({ ...image(), file: { file_id: 'x' } }), WITH_IMAGES)).toContain('has unknown field file');
  });
});

describe('inlineImage', () => {
  it('reads the media type and the decoded size from a data URL', () => {
    expect(inlineImage(`data:image/png;base64,${PNG}`, 1000)).toEqual({ ok: true, image: { mediaType: 'image/png', base64: PNG, bytes: PNG_BYTES } });
  });
});

describe('checkTools and checkResponseFormat', () => {
  it("passes the AI SDK's function tools and refuses a vendor's own tool types and unknown fields", () => {
    expect(checkTools([{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' }, strict: true } }])).toBeUndefined();
    expect(checkTools([{ type: 'web_search' }])).toContain('tools[0] must be {type: "function"');
    expect(checkTools([{ type: 'web_search' }])).toContain('not a "web_search" tool');
    expect(checkTools([{ type: 'function', function: { name: 'f' }, cache_control: {} }])).toContain('tools[0] has unknown field cache_control');
    expect(checkTools([{ type: 'function', function: { name: 'f', parameters: 'x' } }])).toContain('JSON schema object');
    expect(checkTools('all')).toContain('tools must be an array');
  });

  it('passes the three response formats and refuses anything else', () => {
    expect(checkResponseFormat({ type: 'json_object' })).toBeUndefined();
    expect(checkResponseFormat({ type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object' }, strict: true } })).toBeUndefined();
    expect(checkResponseFormat({ type: 'json_schema', json_schema: { name: 'r', schema: 'x' } })).toContain('response_format must be');
    expect(checkResponseFormat({ type: 'grammar', grammar: 'x' })).toContain('response_format must be');
    expect(checkResponseFormat({ type: 'text', extra: 1 })).toContain('response_format has unknown field extra');
  });
});

describe('imagesApart', () => {
  it('takes out image payloads and counts the images, leaving everything else to be counted as text', () => {
    const { text, images } = imagesApart({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, image(), image(undefined, { detail: 'low' })] }], tools: [{ type: 'function', function: { name: 'f' } }] });
    expect(images).toBe(2);
    expect(text).not.toContain(PNG);
    expect(text).toContain('"detail":"low"');
    expect(text).toContain('"tools":[');
  });
});

describe('checkContentPolicy', () => {
  it('refuses an image policy with a setting below 1, naming it, before any proxy starts', () => {
    expect(checkContentPolicy(TEXT_ONLY)).toBe(TEXT_ONLY);
    expect(() => checkContentPolicy({ images: { ...DEFAULT_IMAGE_POLICY, tokensPerImage: 0 } })).toThrow(ContentPolicyError);
    expect(() => checkContentPolicy({ images: { ...DEFAULT_IMAGE_POLICY, maxImagesPerRequest: Number.NaN } })).toThrow(/maxImagesPerRequest must be a whole number/);
  });
});
