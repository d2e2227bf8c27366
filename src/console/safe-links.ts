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

/** `owner/repo#12` (GitHub) or `group/project!12` (GitLab), as the workflows record pull requests. */
export interface PullRequestRef {
  repository: string;
  number: number;
  host: 'github' | 'gitlab';
}

export function parsePullRequestRef(ref: string): PullRequestRef | undefined {
  const match = /^([A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)+)([#!])([1-9][0-9]*)$/.exec(ref);
  if (!match) return undefined;
  return { repository: match[1]!, number: Number(match[3]), host: match[2] === '!' ? 'gitlab' : 'github' };
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
