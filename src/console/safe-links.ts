import { parsePullRequestRef } from '../../workflows/vocabulary/pull-request-ref';

/**
 * Addresses the console links to come from ticket data and configuration. Only absolute http(s) addresses become
 * links: `javascript:`, `data:` and anything else is shown as text, never as an href.
 */
export function safeHttpUrl(candidate: string | null | undefined): string | undefined {
  if (!candidate) return undefined;
  try {
    const url = new URL(candidate);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}


/** Where a pull request is shown on its host, when the host's web address is known. */
export function pullRequestUrl(ref: string, webBase: { github?: string; gitlab?: string }): string | undefined {
  const parsed = parsePullRequestRef(ref);
  if (!parsed) return undefined;
  const base = safeHttpUrl(parsed.host === 'github' ? webBase.github : webBase.gitlab);
  if (!base) return undefined;
  const path = parsed.host === 'github' ? `${parsed.repository}/pull/${parsed.number}` : `${parsed.repository}/-/merge_requests/${parsed.number}`;
  return new URL(path, base.endsWith('/') ? base : `${base}/`).href;
}
