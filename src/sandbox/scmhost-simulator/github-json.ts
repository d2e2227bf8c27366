/**
 * GitHub REST/webhook object shapes (users, repositories, pull requests, comments, reviews, check runs) built from
 * the simulator's state, with the URL fields GitHub fills in. The contract test
 * (test/process/sandbox/github-openapi-contract.test.ts) holds them to GitHub's OpenAPI description: every field it
 * requires is here, and nothing it does not declare.
 */
import type { ChangedFile, GitCommit } from './bare-repository';
import { checkPoint, knownMergeability, type MergeCheck } from './background-merge-check';

export interface SimUser { login: string; id: number; type: 'User' | 'Bot' }

/** A pull request's size as git counts it. */
export interface PullRequestSize { commits: number; additions: number; deletions: number; changedFiles: number }

export interface SimRepo {
  id: number;
  owner: SimUser;
  name: string;
  defaultBranch: string;
  private: boolean;
  fork: boolean;
  parentFullName?: string;
  branches: Map<string, string>;
  createdAt: string;
  nextNumber: number;
}

export interface SimPull {
  id: number;
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  mergedAt?: string;
  mergeCommitSha?: string;
  /** The last mergeability check, computed from git (background-merge-check.ts); stale once the base or head moved. */
  mergeCheck?: MergeCheck;
  headRef: string;
  headSha: string;
  headRepo: SimRepo;
  baseRef: string;
  baseSha: string;
  user: SimUser;
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
  mergedBy?: SimUser;
}

export interface SimIssueComment { id: number; number: number; body: string; user: SimUser; createdAt: string; updatedAt: string }
export interface SimReview { id: number; number: number; state: string; body: string; commitId: string; user: SimUser; submittedAt: string }
export interface SimReviewComment {
  id: number; number: number; reviewId: number; inReplyToId?: number; body: string; path: string; line: number;
  commitId: string; user: SimUser; createdAt: string; updatedAt: string;
}
export interface SimCheckRun {
  id: number; name: string; headSha: string; status: string; conclusion: string | null;
  startedAt: string; completedAt: string | null; output: { title: string | null; summary: string | null; text: string | null };
}

export class GitHubJson {
  constructor(private readonly apiUrl: () => string, private readonly webUrl: () => string) {}

  user(user: SimUser) {
    // Bot logins (`ci-bot[bot]`) are percent-encoded in URLs, as GitHub does.
    const login = encodeURIComponent(user.login);
    const api = `${this.apiUrl()}/users/${login}`;
    return {
      login: user.login,
      id: user.id,
      node_id: nodeId('U', user.id),
      avatar_url: `${this.webUrl()}/avatars/${user.id}`,
      gravatar_id: '',
      url: api,
      html_url: `${this.webUrl()}/${login}`,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
      type: user.type,
      site_admin: false,
    };
  }

  /** The token owner as `GET /user` shows it (GitHub's private-user): profile and account counters. */
  authenticatedUser(user: SimUser) {
    return {
      ...this.user(user),
      name: null,
      company: null,
      blog: '',
      location: null,
      email: null,
      hireable: null,
      bio: null,
      twitter_username: null,
      public_repos: 0,
      public_gists: 0,
      followers: 0,
      following: 0,
      // The simulator does not track account age; a fixed date is as good as any.
      created_at: ACCOUNT_CREATED_AT,
      updated_at: ACCOUNT_CREATED_AT,
      private_gists: 0,
      total_private_repos: 0,
      owned_private_repos: 0,
      disk_usage: 0,
      collaborators: 0,
      two_factor_authentication: true,
    };
  }

  repository(repo: SimRepo) {
    const fullName = `${repo.owner.login}/${repo.name}`;
    const api = `${this.apiUrl()}/repos/${fullName}`;
    const html = `${this.webUrl()}/${fullName}`;
    return {
      id: repo.id,
      node_id: nodeId('R', repo.id),
      name: repo.name,
      full_name: fullName,
      private: repo.private,
      owner: this.user(repo.owner),
      html_url: html,
      description: null,
      fork: repo.fork,
      url: api,
      forks_url: `${api}/forks`,
      keys_url: `${api}/keys{/key_id}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      teams_url: `${api}/teams`,
      hooks_url: `${api}/hooks`,
      issue_events_url: `${api}/issues/events{/number}`,
      events_url: `${api}/events`,
      assignees_url: `${api}/assignees{/user}`,
      branches_url: `${api}/branches{/branch}`,
      tags_url: `${api}/tags`,
      blobs_url: `${api}/git/blobs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      trees_url: `${api}/git/trees{/sha}`,
      statuses_url: `${api}/statuses/{sha}`,
      languages_url: `${api}/languages`,
      stargazers_url: `${api}/stargazers`,
      contributors_url: `${api}/contributors`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      commits_url: `${api}/commits{/sha}`,
      git_commits_url: `${api}/git/commits{/sha}`,
      comments_url: `${api}/comments{/number}`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      contents_url: `${api}/contents/{+path}`,
      compare_url: `${api}/compare/{base}...{head}`,
      merges_url: `${api}/merges`,
      archive_url: `${api}/{archive_format}{/ref}`,
      downloads_url: `${api}/downloads`,
      issues_url: `${api}/issues{/number}`,
      pulls_url: `${api}/pulls{/number}`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      labels_url: `${api}/labels{/name}`,
      releases_url: `${api}/releases{/id}`,
      deployments_url: `${api}/deployments`,
      created_at: repo.createdAt,
      updated_at: repo.createdAt,
      pushed_at: repo.createdAt,
      git_url: `git://${new URL(this.webUrl()).host}/${fullName}.git`,
      ssh_url: `git@${new URL(this.webUrl()).hostname}:${fullName}.git`,
      clone_url: `${html}.git`,
      svn_url: html,
      homepage: null,
      size: 0,
      stargazers_count: 0,
      watchers_count: 0,
      language: null,
      has_issues: true,
      has_projects: true,
      has_downloads: true,
      has_wiki: true,
      has_pages: false,
      has_discussions: false,
      forks_count: 0,
      mirror_url: null,
      archived: false,
      disabled: false,
      open_issues_count: 0,
      license: null,
      allow_forking: true,
      is_template: false,
      web_commit_signoff_required: false,
      topics: [] as string[],
      visibility: repo.private ? 'private' : 'public',
      forks: 0,
      open_issues: 0,
      watchers: 0,
      default_branch: repo.defaultBranch,
    };
  }

  /** A repository as `GET /repos/{owner}/{repo}` and forks show it (GitHub's full-repository). */
  fullRepository(repo: SimRepo, parent?: SimRepo) {
    return {
      ...this.repository(repo),
      network_count: 0,
      subscribers_count: 0,
      // A fork names the repository it came from (parent) and the root of the fork network (source).
      ...(parent ? { parent: this.repository(parent), source: this.repository(parent) } : {}),
    };
  }

  /** `GET /repos/{owner}/{repo}/branches/{branch}` (GitHub's branch-with-protection); no branch is protected. */
  branch(repo: SimRepo, name: string, sha: string) {
    const api = `${this.apiUrl()}/repos/${repo.owner.login}/${repo.name}`;
    const branchApi = `${api}/branches/${encodeURIComponent(name)}`;
    return {
      name,
      commit: this.commit(repo, sha),
      _links: { html: `${this.webUrl()}/${repo.owner.login}/${repo.name}/tree/${name}`, self: branchApi },
      protected: false,
      protection: { enabled: false, required_status_checks: { enforcement_level: 'off', contexts: [] as string[], checks: [] as Array<{ context: string; app_id: number | null }> } },
      protection_url: `${branchApi}/protection`,
    };
  }

  /** A commit the simulator only knows by its sha: author and message are placeholders. */
  commit(repo: SimRepo, sha: string) {
    const api = `${this.apiUrl()}/repos/${repo.owner.login}/${repo.name}`;
    const person = { name: repo.owner.login, email: `${repo.owner.id}+${repo.owner.login}@users.noreply.simulator`, date: repo.createdAt };
    return {
      sha,
      node_id: nodeId('C', Number.parseInt(sha.slice(0, 8), 16) || 0),
      commit: {
        author: person,
        committer: person,
        message: 'Simulated commit',
        tree: { sha, url: `${api}/git/trees/${sha}` },
        url: `${api}/git/commits/${sha}`,
        comment_count: 0,
        verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
      },
      url: `${api}/commits/${sha}`,
      html_url: `${this.webUrl()}/${repo.owner.login}/${repo.name}/commit/${sha}`,
      comments_url: `${api}/commits/${sha}/comments`,
      author: this.user(repo.owner),
      committer: this.user(repo.owner),
      parents: [] as Array<{ sha: string; url: string; html_url: string }>,
    };
  }

  /**
   * A commit as git has it (`GET /repos/{o}/{r}/commits/{ref}`, a pull request's commits): GitHub links author and
   * committer to an account by e-mail and shows null when none has it; `changes` adds the stats and files.
   */
  gitCommit(repo: SimRepo, commit: GitCommit, accountOf: (email: string) => SimUser | undefined, changes?: { files: ChangedFile[] }) {
    const api = `${this.apiUrl()}/repos/${repo.owner.login}/${repo.name}`;
    const web = `${this.webUrl()}/${repo.owner.login}/${repo.name}`;
    const account = (email: string) => {
      const user = accountOf(email);
      return user ? this.user(user) : null;
    };
    const additions = changes?.files.reduce((sum, file) => sum + file.additions, 0) ?? 0;
    const deletions = changes?.files.reduce((sum, file) => sum + file.deletions, 0) ?? 0;
    return {
      sha: commit.sha,
      node_id: nodeId('C', Number.parseInt(commit.sha.slice(0, 8), 16) || 0),
      commit: {
        author: commit.author,
        committer: commit.committer,
        message: commit.message,
        tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
        url: `${api}/git/commits/${commit.sha}`,
        comment_count: 0,
        verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
      },
      url: `${api}/commits/${commit.sha}`,
      html_url: `${web}/commit/${commit.sha}`,
      comments_url: `${api}/commits/${commit.sha}/comments`,
      author: account(commit.author.email),
      committer: account(commit.committer.email),
      parents: commit.parents.map((sha) => ({ sha, url: `${api}/commits/${sha}`, html_url: `${web}/commit/${sha}` })),
      ...(changes ? {
        stats: { total: additions + deletions, additions, deletions },
        files: changes.files.map((file) => this.diffEntry(repo, file, commit.sha)),
      } : {}),
    };
  }

  /** One changed file (GitHub's diff-entry), its URLs at the commit `at`. */
  diffEntry(repo: SimRepo, file: ChangedFile, at: string) {
    const api = `${this.apiUrl()}/repos/${repo.owner.login}/${repo.name}`;
    const web = `${this.webUrl()}/${repo.owner.login}/${repo.name}`;
    const path = file.path.split('/').map(encodeURIComponent).join('/');
    return {
      sha: file.blobSha,
      filename: file.path,
      status: file.status,
      additions: file.additions,
      deletions: file.deletions,
      changes: file.additions + file.deletions,
      blob_url: `${web}/blob/${at}/${path}`,
      raw_url: `${web}/raw/${at}/${path}`,
      contents_url: `${api}/contents/${path}?ref=${at}`,
      ...(file.patch !== undefined ? { patch: file.patch } : {}),
      ...(file.previousPath !== undefined ? { previous_filename: file.previousPath } : {}),
    };
  }

  /**
   * `stats.size`, when git has the pull request's commits, gives its real counters; without it (a head the state
   * alone knows) they stay at one commit with one added line. `stats.mergeable` is what a read of the pull request
   * found (PullRequestGit.mergeableOnRead); without it, the kept check when it is for the current base and head, else
   * null, as GitHub shows a pull request whose mergeability it has not computed since the last push.
   */
  pullRequest(repo: SimRepo, pull: SimPull, stats: { comments: number; reviewComments: number; size?: PullRequestSize; mergeable?: boolean | null }) {
    const known = stats.mergeable !== undefined ? stats.mergeable : knownMergeability(pull.mergeCheck, checkPoint(repo.branches.get(pull.baseRef) ?? '', pull.headSha)) ?? null;
    const mergeable = pull.state === 'open' ? known : null;
    const fullName = `${repo.owner.login}/${repo.name}`;
    const api = `${this.apiUrl()}/repos/${fullName}`;
    const html = `${this.webUrl()}/${fullName}/pull/${pull.number}`;
    return {
      url: `${api}/pulls/${pull.number}`,
      id: pull.id,
      node_id: nodeId('PR', pull.id),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: `${api}/issues/${pull.number}`,
      number: pull.number,
      state: pull.state,
      locked: false,
      title: pull.title,
      user: this.user(pull.user),
      body: pull.body || null,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: pull.closedAt ?? null,
      merged_at: pull.mergedAt ?? null,
      merge_commit_sha: pull.mergeCommitSha ?? null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      labels: [],
      milestone: null,
      commits_url: `${api}/pulls/${pull.number}/commits`,
      review_comments_url: `${api}/pulls/${pull.number}/comments`,
      review_comment_url: `${api}/pulls/comments{/number}`,
      comments_url: `${api}/issues/${pull.number}/comments`,
      statuses_url: `${api}/statuses/${pull.headSha}`,
      head: {
        label: `${pull.headRepo.owner.login}:${pull.headRef}`,
        ref: pull.headRef,
        sha: pull.headSha,
        user: this.user(pull.headRepo.owner),
        repo: this.repository(pull.headRepo),
      },
      base: {
        label: `${repo.owner.login}:${pull.baseRef}`,
        ref: pull.baseRef,
        sha: pull.baseSha,
        user: this.user(repo.owner),
        repo: this.repository(repo),
      },
      _links: {
        self: { href: `${api}/pulls/${pull.number}` },
        html: { href: html },
        issue: { href: `${api}/issues/${pull.number}` },
        comments: { href: `${api}/issues/${pull.number}/comments` },
        review_comments: { href: `${api}/pulls/${pull.number}/comments` },
        review_comment: { href: `${api}/pulls/comments{/number}` },
        commits: { href: `${api}/pulls/${pull.number}/commits` },
        statuses: { href: `${api}/statuses/${pull.headSha}` },
      },
      author_association: 'OWNER',
      auto_merge: null,
      active_lock_reason: null,
      draft: pull.draft,
      merged: pull.merged,
      mergeable,
      rebaseable: mergeable,
      mergeable_state: mergeableState(pull, mergeable),
      merged_by: pull.mergedBy ? this.user(pull.mergedBy) : null,
      comments: stats.comments,
      review_comments: stats.reviewComments,
      maintainer_can_modify: false,
      commits: stats.size?.commits ?? 1,
      additions: stats.size?.additions ?? 1,
      deletions: stats.size?.deletions ?? 0,
      changed_files: stats.size?.changedFiles ?? 1,
    };
  }

  /** GitHub's pull-request-simple, as lists and review events carry it: no merge, size or counter fields. */
  pullRequestSimple(repo: SimRepo, pull: SimPull) {
    const full: Record<string, unknown> = this.pullRequest(repo, pull, { comments: 0, reviewComments: 0 });
    return Object.fromEntries(Object.entries(full).filter(([key]) => !FULL_ONLY_FIELDS.includes(key)));
  }

  issueComment(repo: SimRepo, comment: SimIssueComment) {
    const fullName = `${repo.owner.login}/${repo.name}`;
    return {
      url: `${this.apiUrl()}/repos/${fullName}/issues/comments/${comment.id}`,
      html_url: `${this.webUrl()}/${fullName}/pull/${comment.number}#issuecomment-${comment.id}`,
      issue_url: `${this.apiUrl()}/repos/${fullName}/issues/${comment.number}`,
      id: comment.id,
      node_id: nodeId('IC', comment.id),
      user: this.user(comment.user),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      author_association: 'OWNER',
      body: comment.body,
      performed_via_github_app: null,
      reactions: this.reactions(`${this.apiUrl()}/repos/${fullName}/issues/comments/${comment.id}`),
    };
  }

  /** No one reacts in the simulator: every count is zero. */
  reactions(subjectUrl: string) {
    return { url: `${subjectUrl}/reactions`, total_count: 0, '+1': 0, '-1': 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 };
  }

  review(repo: SimRepo, review: SimReview) {
    const fullName = `${repo.owner.login}/${repo.name}`;
    const pullHtml = `${this.webUrl()}/${fullName}/pull/${review.number}`;
    return {
      id: review.id,
      node_id: nodeId('PRR', review.id),
      user: this.user(review.user),
      body: review.body || null,
      commit_id: review.commitId,
      submitted_at: review.submittedAt,
      state: review.state,
      html_url: `${pullHtml}#pullrequestreview-${review.id}`,
      pull_request_url: `${this.apiUrl()}/repos/${fullName}/pulls/${review.number}`,
      author_association: 'OWNER',
      _links: { html: { href: `${pullHtml}#pullrequestreview-${review.id}` }, pull_request: { href: `${this.apiUrl()}/repos/${fullName}/pulls/${review.number}` } },
    };
  }

  reviewComment(repo: SimRepo, comment: SimReviewComment) {
    const fullName = `${repo.owner.login}/${repo.name}`;
    const api = `${this.apiUrl()}/repos/${fullName}`;
    return {
      url: `${api}/pulls/comments/${comment.id}`,
      pull_request_review_id: comment.reviewId,
      id: comment.id,
      node_id: nodeId('PRRC', comment.id),
      diff_hunk: '@@ -1,1 +1,1 @@',
      path: comment.path,
      commit_id: comment.commitId,
      original_commit_id: comment.commitId,
      user: this.user(comment.user),
      body: comment.body,
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      html_url: `${this.webUrl()}/${fullName}/pull/${comment.number}#discussion_r${comment.id}`,
      pull_request_url: `${api}/pulls/${comment.number}`,
      author_association: 'OWNER',
      _links: {
        self: { href: `${api}/pulls/comments/${comment.id}` },
        html: { href: `${this.webUrl()}/${fullName}/pull/${comment.number}#discussion_r${comment.id}` },
        pull_request: { href: `${api}/pulls/${comment.number}` },
      },
      ...(comment.inReplyToId !== undefined ? { in_reply_to_id: comment.inReplyToId } : {}),
      line: comment.line,
      original_line: comment.line,
      side: 'RIGHT',
      start_line: null,
      original_start_line: null,
      start_side: null,
      original_position: 1,
      position: 1,
    };
  }

  checkRun(repo: SimRepo, run: SimCheckRun, pulls: SimPull[]) {
    const fullName = `${repo.owner.login}/${repo.name}`;
    const api = `${this.apiUrl()}/repos/${fullName}`;
    const repoRef = { id: repo.id, url: api, name: repo.name };
    return {
      id: run.id,
      node_id: nodeId('CR', run.id),
      head_sha: run.headSha,
      external_id: '',
      url: `${api}/check-runs/${run.id}`,
      html_url: `${this.webUrl()}/${fullName}/runs/${run.id}`,
      details_url: `${this.webUrl()}/${fullName}/runs/${run.id}`,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.startedAt,
      completed_at: run.completedAt,
      output: { ...run.output, annotations_count: 0, annotations_url: `${api}/check-runs/${run.id}/annotations` },
      name: run.name,
      // One check suite per app and commit, as on GitHub; its id only needs to be stable for the commit.
      check_suite: { id: Number.parseInt(run.headSha.slice(0, 8), 16) || run.id },
      app: this.ciApp(),
      pull_requests: pulls.map((pull) => ({
        url: `${api}/pulls/${pull.number}`,
        id: pull.id,
        number: pull.number,
        head: { ref: pull.headRef, sha: pull.headSha, repo: repoRef },
        base: { ref: pull.baseRef, sha: pull.baseSha, repo: repoRef },
      })),
    };
  }

  /** The GitHub App that reports the simulator's check runs (its bot user is `ci-bot[bot]`). */
  ciApp() {
    return {
      id: CI_APP_ID,
      slug: 'ci-bot',
      node_id: nodeId('A', CI_APP_ID),
      owner: this.user(CI_APP_OWNER),
      name: 'CI Bot',
      description: null,
      external_url: `${this.webUrl()}/apps/ci-bot`,
      html_url: `${this.webUrl()}/apps/ci-bot`,
      created_at: ACCOUNT_CREATED_AT,
      updated_at: ACCOUNT_CREATED_AT,
      permissions: { checks: 'write', metadata: 'read', pull_requests: 'read' },
      events: ['check_run', 'check_suite', 'pull_request'],
    };
  }
}

/**
 * GitHub's `mergeable_state`: `draft` for an open draft, `unknown` once merged or closed and while mergeability is
 * being computed, `dirty` when the head conflicts with the base branch, else `clean` (no branch protection or
 * required checks here, so never `blocked`, `behind` or `unstable`).
 */
export function mergeableState(pull: Pick<SimPull, 'merged' | 'draft' | 'state'>, mergeable: boolean | null): string {
  if (pull.merged || pull.state !== 'open') return 'unknown';
  if (pull.draft) return 'draft';
  if (mergeable === null) return 'unknown';
  return mergeable ? 'clean' : 'dirty';
}

const ACCOUNT_CREATED_AT = '2020-01-01T00:00:00Z';
const CI_APP_ID = 15368;
const CI_APP_OWNER: SimUser = { login: 'ci-org', id: 9919, type: 'User' };

const FULL_ONLY_FIELDS = ['merged', 'mergeable', 'rebaseable', 'mergeable_state', 'merged_by', 'comments', 'review_comments', 'maintainer_can_modify', 'commits', 'additions', 'deletions', 'changed_files'];

function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(`sim:${id}`).toString('base64url')}`;
}
