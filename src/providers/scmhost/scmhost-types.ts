/** What the source-host client returns: GitHub's payloads reduced to the fields the service uses. */

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface Repository {
  fullName: string;
  defaultBranch: string;
  private: boolean;
  fork: boolean;
  /** For a fork, the repository it was forked from. */
  parentFullName?: string;
  htmlUrl: string;
  cloneUrl: string;
}

export interface PullRequest {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  headRef: string;
  headSha: string;
  /** `owner/repo` of the head branch (differs from the base repository for a fork). */
  headRepoFullName?: string;
  baseRef: string;
  htmlUrl: string;
  author?: string;
  createdAt: string;
  updatedAt: string;
  /** Set once closed; a merged pull request also has its merge commit. */
  closedAt?: string;
  mergeCommitSha?: string;
}

export interface MergeState {
  merged: boolean;
  mergedAt?: string;
  mergeCommitSha?: string;
  /** null while GitHub is still computing it. */
  mergeable: boolean | null;
  /** clean, dirty (conflicts), blocked, behind, unstable, unknown, draft... */
  mergeableState: string;
}

export interface IssueComment {
  id: number;
  /** The body as written, including any idempotency marker. */
  body: string;
  author?: string;
  /** The author's numeric user id (never renamed nor handed to someone else). */
  authorId?: number;
  createdAt: string;
  updatedAt: string;
  htmlUrl: string;
  idempotencyKey?: string;
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';

export interface Review {
  id: number;
  state: ReviewState;
  body: string;
  commitId?: string;
  author?: string;
  /** The author's numeric user id (never renamed nor handed to someone else). */
  authorId?: number;
  submittedAt?: string;
  htmlUrl: string;
}

export interface ReviewComment {
  id: number;
  reviewId?: number;
  /** The comment this one answers; absent for the first comment of a thread. */
  inReplyToId?: number;
  body: string;
  path: string;
  line?: number;
  commitId: string;
  author?: string;
  createdAt: string;
  updatedAt: string;
  htmlUrl: string;
}

/** A review comment and its replies, oldest first. */
export interface ReviewThread {
  rootId: number;
  path: string;
  line?: number;
  comments: ReviewComment[];
}

export interface CheckRun {
  id: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed' | string;
  conclusion: string | null;
  headSha: string;
  detailsUrl?: string;
  htmlUrl?: string;
  output: { title?: string; summary?: string; text?: string };
  startedAt?: string;
  completedAt?: string;
}

export interface Branch {
  name: string;
  sha: string;
}
