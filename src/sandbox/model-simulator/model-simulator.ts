import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, type ListeningServer } from '../../http/listen';

/** One scripted answer of the model simulator, in the order the requests arrive. */
export type ScriptedReply =
  | { content: string }
  | { tool_call: { name: string; arguments: string } }
  | { status: number; message: string };

/** The fields of a chat-completions request the simulator and its tests look at. */
export interface ChatCompletionRequest {
  model?: string;
  messages?: unknown[];
  stream?: boolean;
  tools?: Array<{ type: string; function: { name: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  response_format?: unknown;
  [field: string]: unknown;
}

export interface ModelSimulator {
  /** The OpenAI-compatible API root (what a connection's base_url should be). */
  url: string;
  /** Queues replies; a request with nothing queued gets a 500 that names the problem. */
  script(...replies: ScriptedReply[]): void;
  readonly requests: ChatCompletionRequest[];
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
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as ChatCompletionRequest;
}

/**
 * A model that speaks the OpenAI chat-completions wire format (non-streaming), scripted by tests and fixtures, so the
 * real model client runs end to end without a real model.
 */
export async function startModelSimulator(options: { host?: string; port?: number } = {}): Promise<ModelSimulator> {
  const queue: ScriptedReply[] = [];
  const requests: ChatCompletionRequest[] = [];
  let counter = 0;
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return send(res, 404, { error: { message: `no route for ${req.method} ${req.url}`, type: 'invalid_request_error' } });
    }
    let body: ChatCompletionRequest;
    try {
      body = await readJson(req);
    } catch {
      return send(res, 400, { error: { message: 'request body is not JSON', type: 'invalid_request_error' } });
    }
    requests.push(body);
    if (body.stream) return send(res, 400, { error: { message: 'the simulator answers non-streaming requests only', type: 'invalid_request_error' } });
    const reply = queue.shift();
    if (!reply) return send(res, 500, { error: { message: 'model simulator: no scripted reply left for this request', type: 'server_error' } });
    if ('status' in reply) return send(res, reply.status, { error: { message: reply.message, type: 'api_error' } });
    counter += 1;
    const message = 'content' in reply
      ? { role: 'assistant', content: reply.content }
      : { role: 'assistant', content: null, tool_calls: [{ id: `call_${counter}`, type: 'function', function: reply.tool_call }] };
    const promptTokens = JSON.stringify(body.messages ?? []).length;
    const completionTokens = JSON.stringify(message).length;
    send(res, 200, {
      id: `chatcmpl-${counter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, finish_reason: 'content' in reply ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  });
  const listening: ListeningServer = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0, 'model simulator');
  return {
    url: `${listening.url}/v1`,
    script: (...replies) => queue.push(...replies),
    requests,
    close: () => listening.close(),
  };
}
