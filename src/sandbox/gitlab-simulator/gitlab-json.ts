/**
 * GitLab REST v4 object shapes (users, merge requests, notes, pipelines, branches) built from the GitLab simulator's
 * state. GitLab publishes no machine-readable description of its REST API in a package registry, so the contract
 * test (test/process/sandbox/gitlab-docs-contract.test.ts) holds these to the example responses of GitLab's API
 * documentation, kept under test/fixtures/gitlab/api/.
 */
import { createHash } from 'node:crypto';
import type { SimMergeRequest, SimPipeline, SimProject } from './gitlab-simulator';
import { checkPoint, knownMergeability } from '../scmhost-simulator/background-merge-check';

/**
 * Where GitLab's mergeability check of a merge request stands: its result, `checking` while the job a read started
 * runs, `unchecked` when nothing started one since the source or target branch moved.
 */
export type MergeabilityShown = boolean | 'checking' | 'unchecked';

/** The kept check when it is for the current heads of the source and target branches, else `unchecked`. */
export function keptMergeability(project: SimProject, mr: SimMergeRequest): MergeabilityShown {
  const target = project.branches.get(mr.targetBranch);
  const source = (mr.sourceProject ?? project).branches.get(mr.sourceBranch);
  return knownMergeability(mr.mergeCheck, target && source ? checkPoint(target, source) : undefined) ?? 'unchecked';
}

/** A draft by its title's prefix, as GitLab marks one. */
export function isDraftTitle(title: string): boolean {
  return /^(draft:|\[draft\]|\(draft\))/i.test(title);
}

/** GitLab's `merge_status`, `detailed_merge_status` and `has_conflicts` of a merge request. */
export function mergeStatusFields(mr: Pick<SimMergeRequest, 'state'>, draft: boolean, shown: MergeabilityShown) {
  const open = mr.state === 'opened';
  const mergeStatus = !open ? 'unchecked' : shown === true ? 'can_be_merged' : shown === false ? 'cannot_be_merged' : shown;
  const detailed = !open ? 'not_open' : typeof shown === 'string' ? shown : draft ? 'draft_status' : shown ? 'mergeable' : 'conflict';
  return { merge_status: mergeStatus, detailed_merge_status: detailed, has_conflicts: open && shown === false };
}
import { isResolvable, type SimDiscussion, type SimNote } from './gitlab-discussions';

export class GitLabJson {
  constructor(private readonly webUrl: () => string, private readonly namespaceOf: (project: SimProject) => { path: string; kind: 'user' | 'group'; group?: { id: number } }) {}

  projectUrl(project: SimProject): string { return `${this.webUrl()}/${project.path}`; }
  mergeRequestUrl(project: SimProject, mr: SimMergeRequest): string { return `${this.webUrl()}/${project.path}/-/merge_requests/${mr.iid}`; }

  /** GitLab's UserBasic. The simulator knows users by username only; the id is derived from it. */
  user(username: string) {
    return {
      id: userId(username),
      username,
      name: username,
      state: 'active',
      locked: false,
      avatar_url: null,
      web_url: `${this.webUrl()}/${username}`,
    };
  }

  /** A project as `GET /projects/:id`, a fork and the forks list show it (the fields the service reads). */
  project(project: SimProject) {
    return {
      id: project.id, path_with_namespace: project.path, default_branch: project.defaultBranch, web_url: `${this.webUrl()}/${project.path}`,
      namespace: this.namespace(project),
      ...(project.forkedFrom ? { forked_from_project: { id: project.forkedFrom.id, path_with_namespace: project.forkedFrom.path } } : {}),
    };
  }

  /** A project's namespace as GitLab shows it on a project: a user's own, or a group's. */
  namespace(project: SimProject) {
    const namespace = this.namespaceOf(project);
    const path = namespace.path.split('/').pop() ?? namespace.path;
    return {
      id: namespace.group?.id ?? userId(namespace.path), name: path, path, kind: namespace.kind, full_path: namespace.path,
      parent_id: null, avatar_url: null, web_url: `${this.webUrl()}/${namespace.kind === 'group' ? 'groups/' : ''}${namespace.path}`,
    };
  }

  /**
   * A merge request as lists show it (GitLab's MergeRequestBasic). `shown` is what a read of it found
   * (MergeRequestGit.mergeabilityOnRead); without it, the kept check when still current, else `unchecked`.
   */
  mergeRequestBasic(project: SimProject, mr: SimMergeRequest, shown: MergeabilityShown = keptMergeability(project, mr)) {
    const draft = isDraftTitle(mr.title);
    const status = mergeStatusFields(mr, draft, shown);
    return {
      id: mr.id,
      iid: mr.iid,
      project_id: project.id,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      imported: false,
      imported_from: 'none',
      merged_by: mr.mergedBy ? this.user(mr.mergedBy) : null,
      merge_user: mr.mergedBy ? this.user(mr.mergedBy) : null,
      merged_at: mr.mergedAt ?? null,
      merge_after: null,
      prepared_at: mr.createdAt,
      // Who closed it is left out: the documentation's examples (the contract test's reference) show it as null only.
      closed_by: null,
      closed_at: mr.closedAt ?? null,
      created_at: mr.createdAt,
      updated_at: mr.updatedAt,
      target_branch: mr.targetBranch,
      source_branch: mr.sourceBranch,
      upvotes: 0,
      downvotes: 0,
      author: this.user(mr.author),
      assignee: null,
      assignees: [] as unknown[],
      reviewers: [] as unknown[],
      source_project_id: (mr.sourceProject ?? project).id,
      target_project_id: project.id,
      labels: [...(mr.labels ?? [])],
      draft,
      work_in_progress: draft,
      milestone: null,
      merge_when_pipeline_succeeds: false,
      merge_status: status.merge_status,
      detailed_merge_status: status.detailed_merge_status,
      sha: (mr.sourceProject ?? project).branches.get(mr.sourceBranch) ?? '',
      merge_commit_sha: mr.mergeCommitSha ?? null,
      squash_commit_sha: mr.squashCommitSha ?? null,
      user_notes_count: mr.notes.filter((note) => !note.system).length,
      discussion_locked: null,
      should_remove_source_branch: null,
      force_remove_source_branch: false,
      web_url: `${this.webUrl()}/${project.path}/-/merge_requests/${mr.iid}`,
      reference: `!${mr.iid}`,
      references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${project.path}!${mr.iid}` },
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      squash: mr.squashCommitSha !== undefined,
      squash_on_merge: false,
      task_completion_status: { count: 0, completed_count: 0 },
      has_conflicts: status.has_conflicts,
      blocking_discussions_resolved: true,
    };
  }

  /** A single merge request (GitLab's MergeRequest): the list shape plus pipeline, diff and permission fields. */
  mergeRequest(project: SimProject, mr: SimMergeRequest, shown?: MergeabilityShown) {
    const basic = this.mergeRequestBasic(project, mr, shown);
    // Pipelines run in the source project (a fork's, for a merge request from a fork) and show here with its id.
    const source = mr.sourceProject ?? project;
    const head = [...source.pipelines].reverse().find((pipeline) => pipeline.sha === basic.sha);
    const targetSha = project.branches.get(mr.targetBranch) ?? '';
    return {
      ...basic,
      subscribed: true,
      changes_count: '1',
      latest_build_started_at: null,
      latest_build_finished_at: null,
      first_deployed_to_production_at: null,
      // The merge request's pipelines are shown without a name, as GitLab's documentation of this answer has them.
      pipeline: head ? withoutKey(this.pipeline(source, head), 'name') : null,
      head_pipeline: head ? this.pipelineDetails(source, head, mr.author) : null,
      diff_refs: { base_sha: targetSha, head_sha: basic.sha, start_sha: targetSha },
      merge_error: null,
      first_contribution: false,
      user: { can_merge: true },
    };
  }

  /** A merge request's approval state (`GET …/approvals`): who approved it, each as a user. */
  approvals(project: SimProject, mr: SimMergeRequest) {
    const approvedBy = (mr.approvals ?? []).map((approval) => ({ user: this.user(approval.user) }));
    return {
      id: mr.id, iid: mr.iid, project_id: project.id, title: mr.title, description: mr.description, state: mr.state,
      created_at: mr.createdAt, updated_at: mr.updatedAt, merge_status: this.mergeRequestBasic(project, mr).merge_status,
      approved: approvedBy.length > 0, approvals_required: 0, approvals_left: 0, require_password_to_approve: false,
      approved_by: approvedBy, suggested_approvers: [] as unknown[], approvers: [] as unknown[], approver_groups: [] as unknown[],
      user_has_approved: false, user_can_approve: true, approval_rules_left: [] as unknown[], has_approval_rules: false, merge_request_approvers_available: false, multiple_approval_rules_available: false,
    };
  }

  /** A note (GitLab's Note entity, the same in the notes list and in discussions): a diff note has its position. */
  note(project: SimProject, mr: SimMergeRequest, note: SimNote) {
    const resolvable = isResolvable(note);
    return {
      id: note.id,
      type: note.type,
      body: note.body,
      attachment: null,
      author: this.user(note.author),
      created_at: note.createdAt,
      updated_at: note.updatedAt,
      system: note.system,
      noteable_id: mr.id,
      noteable_type: 'MergeRequest',
      project_id: project.id,
      ...(note.position ? { commit_id: note.position.head_sha, position: { ...note.position } } : {}),
      noteable_iid: mr.iid,
      resolvable,
      // GitLab shows the resolution only on notes that can be resolved.
      ...(resolvable ? { resolved: note.resolvedAt !== undefined, resolved_by: note.resolvedBy ? this.user(note.resolvedBy) : null, resolved_at: note.resolvedAt ?? null } : {}),
      confidential: false,
      internal: false,
    };
  }

  discussion(project: SimProject, mr: SimMergeRequest, discussion: SimDiscussion) {
    return { id: discussion.id, individual_note: discussion.individualNote, notes: discussion.notes.map((note) => this.note(project, mr, note)) };
  }

  /** A pipeline as lists show it (GitLab's PipelineBasic). */
  pipeline(project: SimProject, pipeline: SimPipeline) {
    return {
      id: pipeline.id,
      iid: pipeline.iid,
      project_id: project.id,
      status: pipeline.status,
      source: 'merge_request_event',
      ref: pipeline.ref,
      sha: pipeline.sha,
      name: null,
      web_url: `${this.webUrl()}/${project.path}/-/pipelines/${pipeline.id}`,
      created_at: pipeline.createdAt,
      updated_at: pipeline.updatedAt,
    };
  }

  /** The head pipeline of a merge request, with timing and status details. */
  pipelineDetails(project: SimProject, pipeline: SimPipeline, username: string) {
    const finished = ['success', 'failed', 'canceled', 'skipped'].includes(pipeline.status);
    return {
      ...withoutKey(this.pipeline(project, pipeline), 'name'),
      before_sha: pipeline.sha,
      tag: false,
      yaml_errors: null,
      user: withoutKey(this.user(username), 'locked'),
      started_at: pipeline.createdAt,
      finished_at: finished ? pipeline.updatedAt : null,
      committed_at: null,
      duration: finished ? Math.max(0, Math.round((Date.parse(pipeline.updatedAt) - Date.parse(pipeline.createdAt)) / 1000)) : null,
      queued_duration: 0,
      coverage: null,
      detailed_status: {
        icon: `status_${pipeline.status}`,
        text: pipeline.status,
        label: pipeline.status,
        group: pipeline.status,
        tooltip: pipeline.status,
        has_details: true,
        details_path: `/${project.path}/-/pipelines/${pipeline.id}`,
        illustration: null,
        favicon: `/assets/ci_favicons/favicon_status_${pipeline.status}.png`,
      },
    };
  }

  /** A branch; the simulator knows a commit by its sha only, so author and message are placeholders. */
  branch(project: SimProject, name: string, sha: string) {
    const time = '2020-01-01T00:00:00.000+00:00';
    return {
      name,
      merged: false,
      protected: false,
      default: name === project.defaultBranch,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      web_url: `${this.webUrl()}/${project.path}/-/tree/${name}`,
      commit: {
        author_email: 'simulator@example.invalid',
        author_name: 'Simulator',
        authored_date: time,
        committed_date: time,
        committer_email: 'simulator@example.invalid',
        committer_name: 'Simulator',
        id: sha,
        short_id: sha.slice(0, 8),
        title: 'Simulated commit',
        message: 'Simulated commit',
        parent_ids: [] as string[],
      },
    };
  }
}

function withoutKey<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

function userId(username: string): number {
  return Number.parseInt(createHash('sha1').update(username).digest('hex').slice(0, 6), 16);
}
