import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The replies a model simulator gives, in the order the requests arrive. Tests script them inline or load them from
 * a fixture file (`{"description": "...", "replies": [...]}`) so a flow test reads like the conversation it stands for.
 */
const usage = z.object({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0) }).strict();
const toolCall = z.object({ name: z.string().min(1), arguments: z.string() }).strict();
const common = { usage: usage.optional(), delay_ms: z.number().int().min(0).max(60_000).optional() };

export const scriptedReplySchema = z.union([
  /** Assistant text; JSON output is text too (and malformed JSON is just text that does not parse). */
  z.object({ content: z.string(), finish_reason: z.enum(['stop', 'length', 'content_filter']).optional(), ...common }).strict(),
  /** One tool call; `arguments` is the raw JSON string, so malformed arguments can be scripted. */
  z.object({ tool_call: toolCall, ...common }).strict(),
  z.object({ tool_calls: z.array(toolCall).min(1), ...common }).strict(),
  /** An HTTP error in the OpenAI error shape. */
  z.object({ status: z.number().int().min(400).max(599), message: z.string(), delay_ms: common.delay_ms }).strict(),
]);

export type ScriptedReply = z.infer<typeof scriptedReplySchema>;

export const modelScriptSchema = z.object({ description: z.string().optional(), replies: z.array(scriptedReplySchema).min(1) }).strict();

/** Reads and validates a fixture; a broken fixture fails the test that loads it, naming the file and the field. */
export function loadModelScript(path: string): ScriptedReply[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`model script ${path}: ${(error as Error).message}`);
  }
  const parsed = modelScriptSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`model script ${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data.replies;
}
