import { factFingerprint } from '../fact-fingerprint';
import { isoOrNull, type NormalisedDelivery, type NormaliseOptions } from '../normalised-delivery';
import type { DiscussionFact } from '../../../workflows/ledger/observation';
import { sourceHostUserId } from '../../../workflows/person-commands/actor-identity';
import type { GitLabHook } from './gitlab-webhook-schema';
import { formatPullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';

const FINAL_PIPELINE_STATES = new Set(['success', 'failed', 'canceled', 'skipped']);

/** GitLab sometimes writes times as `2026-11-23 08:00:00 UTC`; make them ISO 8601 before parsing. */
export function gitlabTime(value: string | null | undefined): string | null {
  if (!value) return null;
  return isoOrNull(value.replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC$/, '$1T$2Z'));
}

type NoteAttributes = Extract<GitLabHook, { object_kind: 'note' }>['object_attributes'];

/**
 * Where a note was written, so that an answer can go to the same thread: its discussion, whether that is a thread
 * (a note whose type is set; a plain comment's type is null) and a diff note's place. GitLab's hook does not say
 * whether the note started its thread or replied in it; the discussion, read from the API, does.
 */
export function noteDiscussion(note: NoteAttributes): { discussion?: DiscussionFact } {
  if (!note.discussion_id) return {};
  const path = note.position?.new_path ?? note.position?.old_path ?? undefined;
  const line = note.position?.new_line ?? note.position?.old_line ?? undefined;
  return { discussion: { id: note.discussion_id, thread: note.type === 'DiscussionNote' || note.type === 'DiffNote', ...(path ? { path } : {}), ...(line ? { line } : {}) } };
}

/**
 * The project a hook's merge request lives in. Usually the hook's own project; but a pipeline of a merge request
 * from a fork runs in the fork (GitLab's default), so its hook comes from the fork, while the merge request (and its
 * iid) belongs to the target project: then the merge request's URL names that project, under the same instance root
 * (and self-managed path prefix) as the fork's own web URL.
 */
export function mergeRequestProject(hook: GitLabHook): string {
  const own = hook.project.path_with_namespace;
  if (hook.object_kind !== 'pipeline' || !hook.merge_request) return own;
  const { target_project_id: target, url } = hook.merge_request;
  if (target === undefined || target === hook.project.id || !url) return own;
  const path = /^(.*?)\/-\/merge_requests\/\d+\/?$/.exec(safePath(url))?.[1];
  if (!path) return own;
  const ownPath = hook.project.web_url ? safePath(hook.project.web_url).replace(/\/+$/, '') : '';
  const prefix = ownPath.toLowerCase().endsWith(`/${own.toLowerCase()}`) ? ownPath.slice(0, -(own.length + 1)) : '';
  const rest = prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : path.replace(/^\//, '');
  return /^[^/\s]+(\/[^/\s]+)+$/.test(rest) ? decodeURIComponent(rest) : own;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** The numeric user ids of the people a hook names (`gitlab-id:<id>`), for the allowed-actor check. */
function userIds(...ids: Array<number | undefined>): { actor_ids?: string[] } {
  const tagged = [...new Set(ids.flatMap((id) => (id !== undefined ? [sourceHostUserId('gitlab', id)] : [])))];
  return tagged.length > 0 ? { actor_ids: tagged } : {};
}

type MergeRequestHook = Extract<GitLabHook, { object_kind: 'merge_request' }>;

/**
 * A reviewer's approval (the merge request hook with action `approved`, sent by the approver) is GitLab's approving
 * review: the same fact as GitHub's, so the ticket treats both alike (SPEC 3.2: accepted when approved or merged).
 * GitLab gives an approval no id: the approver and the head they approved name it.
 */
function approval(hook: MergeRequestHook, repository: string, base: { source: 'webhook' | 'poller'; source_system: 'gitlab'; received_at: string }): NormalisedDelivery {
  const mr = hook.object_attributes;
  if (!hook.user) return { kind: 'unsupported', reason: 'an approval without its approver' };
  const ref = formatPullRequestRef(repository, mr.iid, 'gitlab');
  const head = mr.last_commit?.id ?? 'unknown';
  const approver = hook.user.id !== undefined ? String(hook.user.id) : hook.user.username;
  const id = `approval:${approver}@${head}`;
  return {
    kind: 'observation',
    routing: { title: mr.title, branch: mr.source_branch, pull_request_ref: ref },
    observation: {
      ...base,
      event: 'pull_request_review',
      delivery_identity: `gitlab:mr:${ref}:approved:${approver}@${head}`,
      resource: { kind: 'review', id },
      claim: 'submitted',
      revision: null,
      fingerprint: factFingerprint({ mr: ref, approved_by: approver, head }),
      observed_at: gitlabTime(mr.updated_at),
      facts: {
        action: 'submitted',
        repository,
        pull_request: { number: mr.iid, title: mr.title, head_ref: mr.source_branch, head_sha: head },
        review: { id, state: 'approved', body: '', commit_id: head, author: hook.user.username },
        sender: hook.user.username,
        ...userIds(hook.user.id),
      },
    },
  };
}

/**
 * Turns a GitLab hook into an observation. GitLab has no revision for pushes and pipelines beyond their own ids and
 * SHAs, so those facts are identified by event identity (pipeline id + status, push ref + after SHA).
 */
export function normaliseGitLabEvent(hook: GitLabHook, options: NormaliseOptions = {}): NormalisedDelivery {
  const repository = mergeRequestProject(hook);
  const base = { source: options.source ?? 'webhook' as const, source_system: 'gitlab' as const, received_at: (options.receivedAt ?? new Date()).toISOString() };

  switch (hook.object_kind) {
    case 'merge_request': {
      if (hook.object_attributes.action === 'approved') return approval(hook, repository, base);
      if (hook.object_attributes.action === 'unapproved') return { kind: 'unsupported', reason: 'a withdrawn approval is not used (a merge request approved once stays accepted)' };
      const mr = hook.object_attributes;
      const ref = formatPullRequestRef(repository, mr.iid, 'gitlab');
      const merged = mr.state === 'merged' || mr.action === 'merge';
      const head = mr.last_commit?.id ?? null;
      const identity = merged
        ? `gitlab:mr:${ref}:merged:${mr.merge_commit_sha ?? head ?? 'unknown'}`
        : mr.state === 'closed'
          // By the head it was closed at, not by a time: a note written later touches the merge request's updated_at,
          // so the poller, which reads it later, would name the same close differently.
          ? `gitlab:mr:${ref}:closed:${head ?? 'unknown'}`
          : `gitlab:mr:${ref}:head:${head ?? 'unknown'}`;
      const updated = gitlabTime(mr.updated_at);
      return {
        kind: 'observation',
        routing: { title: mr.title, branch: mr.source_branch, pull_request_ref: ref },
        observation: {
          ...base,
          event: 'merge_request',
          delivery_identity: identity,
          resource: { kind: 'merge_request', id: ref },
          claim: merged ? 'merged' : undefined,
          revision: updated,
          fingerprint: factFingerprint({ mr: ref, state: merged ? 'merged' : mr.state, head, merge_commit_sha: mr.merge_commit_sha ?? null }),
          observed_at: updated,
          facts: {
            action: mr.action ?? mr.state,
            repository,
            pull_request: { number: mr.iid, title: mr.title, state: mr.state, merged, head_ref: mr.source_branch, head_sha: head ?? undefined, base_ref: mr.target_branch },
            sender: hook.user?.username,
            ...userIds(hook.user?.id),
          },
        },
      };
    }
    case 'note': {
      const note = hook.object_attributes;
      if (note.noteable_type !== 'MergeRequest' || !hook.merge_request) return { kind: 'unsupported', reason: `note on a ${note.noteable_type}, not on a merge request` };
      const mr = hook.merge_request;
      const created = gitlabTime(note.created_at);
      const updated = gitlabTime(note.updated_at) ?? created;
      // An edited note is a different fact from its creation, and only a creation commands.
      const edited = note.action === 'update' || (created !== null && updated !== null && created !== updated);
      return {
        kind: 'observation',
        routing: { title: mr.title, branch: mr.source_branch, pull_request_ref: formatPullRequestRef(repository, mr.iid, 'gitlab') },
        observation: {
          ...base,
          event: 'note',
          delivery_identity: `gitlab:note:${note.id}@${updated ?? 'unversioned'}`,
          resource: { kind: 'note', id: note.id },
          revision: updated,
          fingerprint: factFingerprint({ note: note.id, updated, body: note.note }),
          observed_at: updated,
          facts: {
            action: edited ? 'edited' : 'created',
            repository,
            pull_request: { number: mr.iid, title: mr.title, head_ref: mr.source_branch },
            comment: { id: note.id, body: note.note, author: hook.user?.username, created: created ?? undefined, updated: updated ?? undefined, ...noteDiscussion(note) },
            sender: hook.user?.username,
            ...userIds(hook.user?.id, note.author_id),
          },
        },
      };
    }
    case 'pipeline': {
      const pipeline = hook.object_attributes;
      if (!FINAL_PIPELINE_STATES.has(pipeline.status)) return { kind: 'unsupported', reason: `pipeline status "${pipeline.status}" is not final` };
      const mr = hook.merge_request ?? undefined;
      return {
        kind: 'observation',
        routing: { title: mr?.title, branch: mr?.source_branch ?? pipeline.ref, pull_request_ref: mr ? formatPullRequestRef(repository, mr.iid, 'gitlab') : undefined },
        observation: {
          ...base,
          event: 'pipeline',
          delivery_identity: `gitlab:pipeline:${pipeline.id}:${pipeline.status}`,
          resource: { kind: 'pipeline', id: pipeline.id },
          revision: null,
          fingerprint: factFingerprint({ pipeline: pipeline.id, status: pipeline.status, sha: pipeline.sha }),
          observed_at: gitlabTime(pipeline.finished_at) ?? gitlabTime(pipeline.created_at),
          facts: {
            action: 'completed',
            repository,
            pull_request: mr ? { number: mr.iid, title: mr.title, head_ref: mr.source_branch, head_sha: pipeline.sha } : undefined,
            pipeline: { id: pipeline.id, status: pipeline.status, sha: pipeline.sha, ref: pipeline.ref },
          },
        },
      };
    }
    case 'push': {
      return {
        kind: 'observation',
        routing: { branch: hook.ref },
        observation: {
          ...base,
          event: 'push',
          delivery_identity: `gitlab:push:${repository}:${hook.ref}:${hook.after}`,
          resource: { kind: 'branch', id: `${repository}:${hook.ref}` },
          revision: null,
          fingerprint: factFingerprint({ ref: hook.ref, before: hook.before ?? null, after: hook.after }),
          observed_at: null,
          facts: { action: 'push', repository, push: { ref: hook.ref, before: hook.before, after: hook.after }, sender: hook.user_username },
        },
      };
    }
  }
}
