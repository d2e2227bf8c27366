/**
 * Adopting an earlier write is safe only when the service's own account made it. Idempotency keys are predictable
 * (`TICKET:<runId>:<node>:<visit>:<operation>`, and the run id shows in the markers of the service's earlier
 * comments), and anyone who may comment can copy a marker into their comment, or on Jira set the key's property on a
 * comment of their own. Adopting by key alone would let such a person's text stand in for the service's PRD, review
 * or reply, and the service would never write its own.
 */
import { ProviderError, RetryableProviderError, type ProviderName } from './provider-errors';

/**
 * Who the service is could not be learned, so no earlier write can be told apart from a forgery. Retryable: the
 * attempt must neither adopt a stranger's comment nor write blindly (a write whose outcome was unknown could then
 * appear twice), and the lookup usually works again once the provider does.
 */
export function serviceIdentityUnknown(provider: ProviderName, lookup: { method: string; path: string }, error: unknown): RetryableProviderError {
  const reason = error instanceof Error ? error.message : String(error);
  const failed = error instanceof ProviderError ? { operation: error.operation, ...(error.status !== undefined ? { status: error.status } : {}), requestId: error.requestId } : {};
  return new RetryableProviderError(
    `could not learn the service account, without which an earlier write of the service cannot be told from someone else's comment carrying its idempotency key: ${reason}`,
    { provider, ...lookup, ...failed, notSent: true, cause: error },
  );
}

/** Logins and usernames compare without letter case, as GitHub and GitLab treat them. */
export function sameLogin(author: string | undefined, service: string): boolean {
  return author !== undefined && author.toLowerCase() === service.toLowerCase();
}

/**
 * Caches a lookup of the service's identity for the life of a client. A failed lookup is not kept, so the next call
 * asks again.
 */
export function cachedIdentity(lookup: () => Promise<string>): () => Promise<string> {
  let value: Promise<string> | undefined;
  return () => {
    value ??= lookup().catch((error: unknown) => { value = undefined; throw error; });
    return value;
  };
}
