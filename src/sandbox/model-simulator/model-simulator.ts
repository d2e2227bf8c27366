import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, type ListeningServer } from '../../http/listen';
import { scriptedReplySchema, type ScriptedReply } from './model-script';

export type { ScriptedReply } from './model-script';

/** The fields of a chat-completions request the simulator and its tests look at. */
export interface ChatCompletionRequest {
  model?: string;
  messages?: Array<{ role: string; content?: unknown; [field: string]: unknown }>;
  stream?: boolean;
  max_tokens?: number;
  tools?: Array<{ type: string; function: { name: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  response_format?: unknown;
  [field: string]: unknown;
}

/** One request as received: the body plus what a test may want to check about the call itself. */
export interface ReceivedRequest {
  path: string;
  /** The Authorization header (the simulator accepts any; a test checks the client sends OPENAI_API_KEY). */
  authorization?: string;
  body: ChatCompletionRequest;
}

export interface ModelSimulator {
  /** The OpenAI-compatible API root (what a connection's base_url should be). */
  url: string;
  /** Queues replies (validated: a malformed script fails here, not as a confusing answer later). */
  script(...replies: ScriptedReply[]): void;
  /** Replies not used yet. */
  pending(): number;
  /** Request bodies in arrival order. */
  readonly requests: ChatCompletionRequest[];
  readonly received: ReceivedRequest[];
  /** Answers given so far (the number in the last response id), counted from `firstResponseNumber`. */
  responses(): number;
  /** Forgets queued replies and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<ChatCompletionRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
  return parsed as ChatCompletionRequest;
}

/** A rough token count (about four characters a token), so usage is never zero without being scripted. */
function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

/**
 * A model that speaks the OpenAI chat-completions wire format (non-streaming: the client's structured and text calls
 * never stream), scripted by tests and fixtures, so the real model client (the AI SDK's OpenAI-compatible provider)
 * runs end to end without a real model. Loopback only by default.
 */
export interface ModelSimulatorOptions {
  host?: string;
  port?: number;
  /** Queued at start. */
  replies?: ScriptedReply[];
  /**
   * Answers when nothing is queued (e.g. `service dev --sandbox`, where no test scripts the conversation); without it
   * an unscripted request gets a 500 that says so.
   */
  respond?: (request: ChatCompletionRequest) => ScriptedReply | undefined;
  /**
   * Response ids continue after this number (`chatcmpl-<n+1>`), so a simulator restarted on kept state (the sandbox)
   * never repeats an id it handed out.
   */
  firstResponseNumber?: number;
}

export async function startModelSimulator(options: ModelSimulatorOptions = {}): Promise<ModelSimulator> {
  const queue: ScriptedReply[] = [];
  const requests: ChatCompletionRequest[] = [];
  const received: ReceivedRequest[] = [];
  let counter = options.firstResponseNumber ?? 0;
  const script = (...replies: ScriptedReply[]) => {
    for (const reply of replies) queue.push(scriptedReplySchema.parse(reply));
  };
  if (options.replies) script(...options.replies);

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: `model simulator: ${(error as Error).message}`, type: 'server_error' } }));
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      return send(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: 'invalid_request_error' } });
    }
    let body: ChatCompletionRequest;
    try {
      body = await readJson(req);
    } catch {
      return send(res, 400, { error: { message: 'request body is not a JSON object', type: 'invalid_request_error' } });
    }
    requests.push(body);
    received.push({ path, authorization: req.headers.authorization, body });
    if (body.stream) return send(res, 400, { error: { message: 'the model simulator answers non-streaming requests only', type: 'invalid_request_error' } });
    const fallback = queue.length ? undefined : options.respond?.(body);
    const reply = queue.shift() ?? (fallback ? scriptedReplySchema.parse(fallback) : undefined);
    if (!reply) return send(res, 500, { error: { message: 'model simulator: no scripted reply left for this request', type: 'server_error' } });
    if (reply.delay_ms) await new Promise((resolve) => setTimeout(resolve, reply.delay_ms));
    if ('status' in reply) return send(res, reply.status, { error: { message: reply.message, type: reply.status >= 500 ? 'server_error' : 'invalid_request_error' } });
    counter += 1;
    const calls = 'tool_call' in reply ? [reply.tool_call] : 'tool_calls' in reply ? reply.tool_calls : [];
    const message = 'content' in reply
      ? { role: 'assistant', content: reply.content }
      : { role: 'assistant', content: null, tool_calls: calls.map((call, index) => ({ id: `call_${counter}_${index}`, type: 'function', function: call })) };
    const usage = reply.usage ?? { prompt_tokens: estimateTokens(body.messages), completion_tokens: estimateTokens(message) };
    send(res, 200, {
      id: `chatcmpl-${counter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, finish_reason: 'content' in reply ? (reply.finish_reason ?? 'stop') : 'tool_calls' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }

  const listening: ListeningServer = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0, 'model simulator');
  return {
    url: `${listening.url}/v1`,
    script,
    pending: () => queue.length,
    responses: () => counter,
    requests,
    received,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      received.length = 0;
    },
    close: () => listening.close(),
  };
}
