import { pullRequestUrl, safeHttpUrl } from '../safe-links';
import { parsePullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';

/** Where the console can link to: addresses from the configuration; any of them may be unknown. */
export interface LinkTargets {
  /** TRACKER_BASE_URL: the issue is `<base>/browse/<KEY>`. */
  trackerBaseUrl?: string;
  /** The web address of the GitHub host (from SCMHOST_API_URL), for `owner/repo#12`. */
  githubWebUrl?: string;
  /** The web address of the GitLab instance of a project (its registry connection's base_url), for `group/project!3`. */
  gitlabWebUrlOf?: (project: string) => string | undefined;
  /** TEMPORAL_UI_URL and the namespace: the workflow's page in the Temporal UI. */
  temporalUiUrl?: string;
  namespace: string;
}

/** The web address of a GitHub host from its API address: api.github.com → github.com, `<host>/api/v3` → `<host>`. */
export function githubWebUrl(apiUrl: string | undefined): string {
  if (!apiUrl) return 'https://github.com';
  const url = safeHttpUrl(apiUrl);
  if (!url) return 'https://github.com';
  const parsed = new URL(url);
  if (parsed.hostname === 'api.github.com') return 'https://github.com';
  return `${parsed.origin}${parsed.pathname.replace(/\/api\/v3\/?$/, '').replace(/\/$/, '')}`;
}

export function trackerIssueUrl(targets: LinkTargets, ticketKey: string): string | undefined {
  const base = safeHttpUrl(targets.trackerBaseUrl);
  return base ? `${base.replace(/\/$/, '')}/browse/${encodeURIComponent(ticketKey)}` : undefined;
}

export function temporalWorkflowUrl(targets: LinkTargets, workflowId: string): string | undefined {
  const base = safeHttpUrl(targets.temporalUiUrl);
  return base ? `${base.replace(/\/$/, '')}/namespaces/${encodeURIComponent(targets.namespace)}/workflows/${encodeURIComponent(workflowId)}` : undefined;
}

export function pullRequestLink(targets: LinkTargets, ref: string): string | undefined {
  const parsed = parsePullRequestRef(ref);
  const gitlab = parsed?.host === 'gitlab' ? targets.gitlabWebUrlOf?.(parsed.repository) : undefined;
  return pullRequestUrl(ref, { github: targets.githubWebUrl, gitlab });
}
