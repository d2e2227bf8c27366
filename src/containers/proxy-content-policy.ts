/**
 * What the messages of a chat-completions request may carry through the model proxy (SPEC 5 "Outbound
 * credentials"), checked field by field, and what of it the vendor charges as something other than text. The agent
 * (src/agent/run-agent.ts, through the AI SDK's openai-compatible provider) sends text only: string contents, text
 * parts, tool calls and tool results. Anything else is refused, because a part type the proxy does not know costs
 * what its JSON length cannot tell (an image is billed per picture, not per byte) or reaches what the run must not
 * (a `file` part names a file uploaded to the operator's vendor account; a remote image URL makes the vendor fetch
 * it for us). Pure: the container wrote every byte checked here, so nothing in it is trusted.
 */

/** Image parts a run may send, and what one costs in the proxy's estimate. */
export interface ImagePolicy {
  /** Images one request may carry, over all its messages. */
  maxImagesPerRequest: number;
  /** The decoded size of one image. */
  maxImageBytes: number;
  /** What one image is counted as in the input estimate, whatever its size or `detail`: the vendor's worst case. */
  tokensPerImage: number;
}

export interface ContentPolicy {
  /** Image parts in user messages; null refuses them. */
  images: ImagePolicy | null;
}

/** The default: no station's agent sends images, so none pass. */
export const TEXT_ONLY: Readonly<ContentPolicy> = { images: null };

/**
 * The most one image is billed, rounded up, for the vendors' documented rules: OpenAI's high-detail tiles reach 1,445
 * tokens for the widest image after its resize and the patch-billed 4.1-nano about 3,780 (1,536 patches at 2.46);
 * Anthropic's largest image before it is resized is about 1,600. A model billed at a multiple of these (gpt-4o-mini
 * counts one image as tens of thousands of tokens) needs its own `tokensPerImage`.
 */
export const WORST_CASE_IMAGE_TOKENS = 5_000;

export const DEFAULT_IMAGE_POLICY: Readonly<ImagePolicy> = { maxImagesPerRequest: 20, maxImageBytes: 1024 * 1024, tokensPerImage: WORST_CASE_IMAGE_TOKENS };

/** The image types Anthropic, OpenAI and Gemini all document; a vendor refuses the rest at no charge. */
const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

export class ContentPolicyError extends Error {
  override readonly name = 'ContentPolicyError';
}

/** A policy a proxy can be started with, or a ContentPolicyError naming the setting to fix. */
export function checkContentPolicy(policy: ContentPolicy): ContentPolicy {
  if (policy.images === null) return policy;
  for (const [setting, value] of Object.entries(policy.images)) {
    if (!Number.isInteger(value) || (value as number) < 1) throw new ContentPolicyError(`the model proxy's image policy: ${setting} must be a whole number of at least 1, got ${JSON.stringify(value)}`);
  }
  return policy;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields of an object outside `known`, as a problem naming them, or undefined. */
function unknownFields(value: Record<string, unknown>, known: readonly string[], where: string): string | undefined {
  const extra = Object.keys(value).filter((field) => !known.includes(field));
  if (extra.length === 0) return undefined;
  return `${where} has unknown field${extra.length > 1 ? 's' : ''} ${extra.slice(0, 10).map((f) => f.slice(0, 40)).join(', ')} (known: ${known.join(', ')})`;
}

export interface InlineImage {
  mediaType: string;
  /** The base64 payload, as sent. */
  base64: string;
  bytes: number;
}

/**
 * An image URL as inline data the proxy can pass on, or what is wrong with it. Only `data:` URLs of the four common
 * image types pass: a remote URL would have the vendor fetch an address the container chose.
 */
export function inlineImage(url: string, maxBytes: number): { ok: true; image: InlineImage } | { ok: false; problem: string } {
  const match = /^data:([a-z]+\/[a-z0-9.+-]+);base64,/.exec(url.slice(0, 100));
  if (!match) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.slice(0, 40))?.[1];
    return { ok: false, problem: `is not a base64 data: URL${scheme && scheme.toLowerCase() !== 'data' ? ` (a ${scheme.toLowerCase()}: URL would have the vendor fetch it)` : ''}; send the image inline as data:image/png;base64,...` };
  }
  const mediaType = match[1]!;
  if (!IMAGE_MEDIA_TYPES.includes(mediaType)) return { ok: false, problem: `has media type ${mediaType}; images pass as ${IMAGE_MEDIA_TYPES.join(', ')}` };
  const base64 = url.slice(match[0].length);
  // The size is settled from the length first, so an oversized payload is never scanned.
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const bytes = (base64.length / 4) * 3 - padding;
  if (bytes > maxBytes) return { ok: false, problem: `holds about ${Math.floor(bytes)} bytes, over the limit of ${maxBytes} bytes an image` };
  if (base64.length === 0 || base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return { ok: false, problem: 'does not hold valid base64 after "base64,"' };
  return { ok: true, image: { mediaType, base64, bytes } };
}

/** The fields each role's messages may have: what the AI SDK writes, and `name`, which the chat format allows. */
const ROLE_FIELDS: Record<string, readonly string[]> = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  assistant: ['role', 'content', 'name', 'tool_calls', 'reasoning_content'],
  tool: ['role', 'content', 'tool_call_id'],
};

export const ROLES: readonly string[] = Object.keys(ROLE_FIELDS);

/** The part types a role's content may hold under the policy, as a refusal says it. */
function passingParts(role: string, policy: ContentPolicy): string {
  if (role !== 'user') return `${role} messages carry text parts only`;
  return policy.images
    ? `user messages carry text parts and image_url parts with a data: URL (at most ${policy.images.maxImagesPerRequest} images a request)`
    : 'user messages carry text parts only (images are not allowed for this run)';
}

function partTypeOf(part: unknown): string {
  if (!isPlainObject(part)) return `a ${Array.isArray(part) ? 'array' : part === null ? 'null' : typeof part} where a part belongs`;
  if (typeof part.type !== 'string') return 'a part without a string type';
  return `a part of type ${JSON.stringify(part.type.slice(0, 40))}`;
}

function checkImagePart(part: Record<string, unknown>, where: string, policy: ImagePolicy): string | undefined {
  const extra = unknownFields(part, ['type', 'image_url'], where);
  if (extra) return extra;
  const image = part.image_url;
  if (!isPlainObject(image)) return `${where}.image_url must be {url, detail?}`;
  const extraImage = unknownFields(image, ['url', 'detail'], `${where}.image_url`);
  if (extraImage) return extraImage;
  if (image.detail !== undefined && !['auto', 'low', 'high'].includes(image.detail as string)) return `${where}.image_url.detail must be "auto", "low" or "high"`;
  if (typeof image.url !== 'string') return `${where}.image_url.url must be a string`;
  const inline = inlineImage(image.url, policy.maxImageBytes);
  return inline.ok ? undefined : `${where}.image_url.url ${inline.problem}`;
}

/** One content part: a text part anywhere, an image part in a user message when the policy allows images. */
function checkPart(part: unknown, where: string, role: string, policy: ContentPolicy, images: { count: number }): string | undefined {
  if (isPlainObject(part) && part.type === 'text') {
    return unknownFields(part, ['type', 'text'], where) ?? (typeof part.text === 'string' ? undefined : `${where}.text must be a string`);
  }
  if (isPlainObject(part) && part.type === 'image_url' && role === 'user' && policy.images) {
    images.count += 1;
    if (images.count > policy.images.maxImagesPerRequest) return `${where}: more than ${policy.images.maxImagesPerRequest} images in one request; send at most ${policy.images.maxImagesPerRequest}`;
    return checkImagePart(part, where, policy.images);
  }
  return `${where} is ${partTypeOf(part)}, which the model proxy refuses: ${passingParts(role, policy)}`;
}

function checkContent(message: Record<string, unknown>, where: string, role: string, policy: ContentPolicy, images: { count: number }): string | undefined {
  const content = message.content;
  if (typeof content === 'string' || (content === null && role === 'assistant')) return undefined;
  if (!Array.isArray(content)) return `${where}.content must be a string or an array of content parts${role === 'assistant' ? ' (or null beside tool calls)' : ''}`;
  for (const [index, part] of content.entries()) {
    const problem = checkPart(part, `${where}.content[${index}]`, role, policy, images);
    if (problem) return problem;
  }
  return undefined;
}

const TOOL_CALL_SHAPE = 'must be {id, type: "function", function: {name, arguments}} with strings for id, name and arguments';

function checkToolCalls(calls: unknown, where: string): string | undefined {
  if (calls === undefined) return undefined;
  if (!Array.isArray(calls)) return `${where}.tool_calls must be an array of tool calls`;
  for (const [index, call] of calls.entries()) {
    const at = `${where}.tool_calls[${index}]`;
    if (!isPlainObject(call)) return `${at} ${TOOL_CALL_SHAPE}`;
    const extra = unknownFields(call, ['id', 'type', 'function'], at);
    if (extra) return extra;
    const fn = call.function;
    if (typeof call.id !== 'string' || call.type !== 'function' || !isPlainObject(fn)) return `${at} ${TOOL_CALL_SHAPE}`;
    const extraFn = unknownFields(fn, ['name', 'arguments'], `${at}.function`);
    if (extraFn) return extraFn;
    if (typeof fn.name !== 'string' || typeof fn.arguments !== 'string') return `${at} ${TOOL_CALL_SHAPE}`;
  }
  return undefined;
}

/** What is wrong with the messages, or undefined when every field of every message is one the policy passes. */
export function checkMessages(messages: unknown, policy: ContentPolicy = TEXT_ONLY): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a non-empty array of {role, content} objects';
  const images = { count: 0 };
  for (const [index, message] of messages.entries()) {
    const where = `messages[${index}]`;
    if (!isPlainObject(message)) return `${where} must be an object with role and content`;
    const role = message.role;
    if (typeof role !== 'string' || !Object.hasOwn(ROLE_FIELDS, role)) return `${where}.role must be one of ${ROLES.join(', ')}, got ${JSON.stringify(typeof role === 'string' ? role.slice(0, 40) : role)}`;
    const extra = unknownFields(message, ROLE_FIELDS[role]!, `${where} (${role})`);
    if (extra) return extra;
    if (!Object.hasOwn(message, 'content')) return `${where} has no content`;
    if (message.name !== undefined && typeof message.name !== 'string') return `${where}.name must be a string`;
    if (message.reasoning_content !== undefined && typeof message.reasoning_content !== 'string') return `${where}.reasoning_content must be a string`;
    if (role === 'tool' && typeof message.tool_call_id !== 'string') return `${where}.tool_call_id must be the id of the tool call it answers`;
    const problem = checkContent(message, where, role, policy, images) ?? checkToolCalls(message.tool_calls, where);
    if (problem) return problem;
  }
  return undefined;
}

const TOOL_SHAPE = 'must be {type: "function", function: {name, description?, parameters?, strict?}}';

/** Function tools as the AI SDK declares them; a vendor's own tool types (search, code execution) cost more than tokens. */
export function checkTools(tools: unknown): string | undefined {
  if (!Array.isArray(tools)) return `tools must be an array of function tools; each ${TOOL_SHAPE}`;
  for (const [index, entry] of tools.entries()) {
    const where = `tools[${index}]`;
    if (!isPlainObject(entry) || entry.type !== 'function' || !isPlainObject(entry.function)) return `${where} ${TOOL_SHAPE}${isPlainObject(entry) && typeof entry.type === 'string' && entry.type !== 'function' ? `, not a ${JSON.stringify(entry.type.slice(0, 40))} tool` : ''}`;
    const fn = entry.function;
    const extra = unknownFields(entry, ['type', 'function'], where) ?? unknownFields(fn, ['name', 'description', 'parameters', 'strict'], `${where}.function`);
    if (extra) return extra;
    if (typeof fn.name !== 'string') return `${where}.function.name must be a string`;
    if (fn.description !== undefined && typeof fn.description !== 'string') return `${where}.function.description must be a string`;
    if (fn.parameters !== undefined && !isPlainObject(fn.parameters)) return `${where}.function.parameters must be a JSON schema object`;
    if (fn.strict !== undefined && typeof fn.strict !== 'boolean') return `${where}.function.strict must be true or false`;
  }
  return undefined;
}

/** The three response formats of the chat format; the schema is counted in the estimate like any other field. */
export function checkResponseFormat(format: unknown): string | undefined {
  const shape = 'response_format must be {type: "text"}, {type: "json_object"} or {type: "json_schema", json_schema: {name, schema?, description?, strict?}}';
  if (!isPlainObject(format)) return shape;
  if (format.type === 'text' || format.type === 'json_object') return unknownFields(format, ['type'], 'response_format');
  if (format.type !== 'json_schema' || !isPlainObject(format.json_schema)) return shape;
  const schema = format.json_schema;
  const extra = unknownFields(format, ['type', 'json_schema'], 'response_format') ?? unknownFields(schema, ['name', 'schema', 'description', 'strict'], 'response_format.json_schema');
  if (extra) return extra;
  if (typeof schema.name !== 'string' || (schema.schema !== undefined && !isPlainObject(schema.schema))) return shape;
  if ((schema.description !== undefined && typeof schema.description !== 'string') || (schema.strict !== undefined && typeof schema.strict !== 'boolean')) return shape;
  return undefined;
}

/**
 * The prompt as the estimate counts it: every field as sent, except that each image part's URL is left out and the
 * image counted instead, since a vendor bills an image by its pixels at a rate of its own, not by its base64 length.
 * Anything under `image_url` other than the URL stays in the text, so nothing the vendor reads is left uncounted.
 */
export function imagesApart(prompt: Record<string, unknown>): { text: string; images: number } {
  let images = 0;
  const messages = Array.isArray(prompt.messages) ? prompt.messages.map((message: unknown) => {
    if (!isPlainObject(message) || !Array.isArray(message.content)) return message;
    return {
      ...message,
      content: message.content.map((part: unknown) => {
        if (!isPlainObject(part) || part.type !== 'image_url') return part;
        images += 1;
        return isPlainObject(part.image_url) && typeof part.image_url.url === 'string' ? { ...part, image_url: { ...part.image_url, url: '' } } : part;
      }),
    };
  }) : prompt.messages;
  return { text: JSON.stringify({ ...prompt, messages }), images };
}
