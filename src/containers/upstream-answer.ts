import type { TokenUsage } from './proxy-request-policy';

/**
 * What the model proxy passes back to the container for one call, whichever way the call went upstream (forwarded
 * as chat completions, or translated to another vendor's API and back).
 */
export interface UpstreamAnswer {
  status: number;
  contentType: string;
  /** The body the container gets (redacted by the proxy before it is sent). */
  text: string;
  /** The usage the backend reported, or undefined when it reported none that can be trusted as a count. */
  usage: TokenUsage | undefined;
  /** The choices, for a trace. */
  output?: string;
  /** A rate limit's `retry-after`, passed on so the agent waits as long as the backend asked. */
  retryAfter?: string;
}

export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
}

/** Reads an upstream answer up to the limit; a runaway answer is cancelled, not buffered. */
export async function readAnswer(answer: Response, limit: number): Promise<string> {
  const tooBig = `the model's answer is over the model proxy's limit of ${limit} bytes`;
  const declared = Number(answer.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await answer.body?.cancel();
    throw new AnswerTooLargeError(`${tooBig} (content-length ${declared})`);
  }
  if (!answer.body) return '';
  const reader = answer.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new AnswerTooLargeError(tooBig);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
