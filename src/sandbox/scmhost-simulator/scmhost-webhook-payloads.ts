/** GitHub webhook bodies for the simulator's events, as GitHub's OpenAPI description (x-webhooks) defines them. */
import type { GitHubJson, PullRequestSize, SimPull, SimRepo } from './github-json';
import type { ScmhostSimEvent, ScmhostState } from './scmhost-state';

export function githubWebhookPayload(state: ScmhostState, json: GitHubJson, event: ScmhostSimEvent): Record<string, unknown> {
  const repository = json.repository(event.repo);
  const sender = json.user(event.sender);
  const stats = (pull: SimPull) => pullStats(state, event.repo, pull);
  switch (event.event) {
    case 'pull_request':
      return {
        action: event.action,
        number: event.pull.number,
        ...(event.action === 'edited' ? { changes: event.changes ?? {} } : {}),
        ...(event.action === 'synchronize' ? { before: event.before ?? event.pull.headSha, after: event.after ?? event.pull.headSha } : {}),
        pull_request: json.pullRequest(event.repo, event.pull, stats(event.pull)),
        repository,
        sender,
      };
    case 'pull_request_review':
      // Review events carry GitHub's "simple" pull request (no merge or size fields) and a lowercase review state.
      return {
        action: event.action,
        review: { ...json.review(event.repo, event.review), state: event.review.state.toLowerCase() },
        pull_request: json.pullRequestSimple(event.repo, event.pull),
        repository,
        sender,
      };
    case 'issue_comment':
      return { action: event.action, issue: issueOfPull(json, event.repo, event.pull, stats(event.pull).comments), comment: json.issueComment(event.repo, event.comment), repository, sender };
    case 'check_run':
      return { action: event.action, check_run: json.checkRun(event.repo, event.run, state.openPullsForSha(event.repo, event.run.headSha)), repository, sender };
  }
}

/**
 * Puts git's counters into a pull_request body in place (GitHub's `commits`, `additions`, `deletions`,
 * `changed_files`); the body is built when the event happens, the counters once git has answered.
 */
export function setPullRequestCounters(payload: Record<string, unknown>, size: PullRequestSize): void {
  const pull = payload.pull_request as Record<string, unknown> | undefined;
  if (!pull) return;
  Object.assign(pull, { commits: size.commits, additions: size.additions, deletions: size.deletions, changed_files: size.changedFiles });
}

export function pullStats(state: ScmhostState, repo: SimRepo, pull: SimPull): { comments: number; reviewComments: number } {
  const fullName = state.fullName(repo);
  return {
    comments: state.issueComments.filter((c) => c.repo === fullName && c.number === pull.number).length,
    reviewComments: state.reviewComments.filter((c) => c.repo === fullName && c.number === pull.number).length,
  };
}

/** A pull request seen as an issue, as in issue_comment events on PRs (with the `pull_request` link object). */
function issueOfPull(json: GitHubJson, repo: SimRepo, pull: SimPull, comments: number) {
  const pr = json.pullRequest(repo, pull, { comments, reviewComments: 0 });
  const repository = json.repository(repo);
  return {
    url: pr.issue_url,
    repository_url: repository.url,
    labels_url: `${pr.issue_url}/labels{/name}`,
    comments_url: pr.comments_url,
    events_url: `${pr.issue_url}/events`,
    html_url: pr.html_url,
    id: pull.id,
    node_id: pr.node_id,
    number: pull.number,
    title: pull.title,
    user: pr.user,
    labels: [],
    state: pull.state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    closed_at: pull.closedAt ?? null,
    author_association: 'OWNER',
    active_lock_reason: null,
    body: pull.body || null,
    reactions: json.reactions(pr.issue_url),
    pull_request: { url: pr.url, html_url: pr.html_url, diff_url: pr.diff_url, patch_url: pr.patch_url },
  };
}
