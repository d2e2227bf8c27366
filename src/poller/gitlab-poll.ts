import type { NormalisedDelivery } from '../ingress/normalised-delivery';
import { SERVICE_BRANCH_PREFIX } from '../ingress/ticket-routing';
import { gitlabHookSchema } from '../ingress/gitlab/gitlab-webhook-schema';
import { normaliseGitLabEvent } from '../ingress/gitlab/normalise-gitlab-event';
import type { DiscussionNote, GitLabClient, MergeRequest, Pipeline } from '../providers/gitlab/gitlab-client';

type Delivery = Extract<NormalisedDelivery, { kind: 'observation' }>;

export type GitLabPollClient = Pick<GitLabClient, 'listOpenMergeRequestsByBranchPrefix' | 'listMergeRequestsUpdatedSince' | 'listMergeRequestDiscussions' | 'listMergeRequestPipelines' | 'listMergeRequestApprovers'>;

/** A project of the repository registry to poll: its path on its instance and the client of its connection. */
export interface PolledGitLabProject {
  namespace: string;
  client: GitLabPollClient;
}

const FINAL_PIPELINE_STATES = new Set(['success', 'failed', 'canceled', 'skipped']);

/**
 * The poller reads GitLab's REST API and rebuilds the hook each fact would have had, then runs it through the hook's
 * own schema and normaliser, as the GitHub poller does: identities and fingerprints match the webhooks' by
 * construction, so a fact seen both ways is one observation.
 */
function asHook(payload: Record<string, unknown>, now: Date): Delivery | undefined {
  const parsed = gitlabHookSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const result = normaliseGitLabEvent(parsed.data, { source: 'poller', receivedAt: now });
  return result.kind === 'observation' ? result : undefined;
}

/** A fact is in the window when GitLab says it happened or changed at or after `since` (unknown: it is). */
function changedSince(time: string | null | undefined, since: Date): boolean {
  const at = time ? Date.parse(time) : NaN;
  return Number.isNaN(at) || at >= since.getTime();
}

/**
 * The merge request as its hook's `object_attributes` has it. Hooks always name the project the merge request lives
 * in (the target), and so does the poller: a merge request from a fork is listed, and polled, in its target project.
 */
function mergeRequestAttributes(mr: MergeRequest, action: string) {
  return {
    iid: mr.iid, title: mr.title, state: mr.state, action, source_branch: mr.sourceBranch, target_branch: mr.targetBranch,
    last_commit: mr.sha ? { id: mr.sha } : null, merge_commit_sha: mr.mergeCommitSha ?? null, updated_at: mr.updatedAt,
  };
}

/** The note hook's `merge_request`: the one the note was written on. */
function noteMergeRequest(mr: MergeRequest) {
  return { iid: mr.iid, title: mr.title, source_branch: mr.sourceBranch, url: mr.webUrl };
}

/**
 * The notes people wrote or edited in the window, as note hooks: read from the discussions, which say what the notes
 * list does not (the thread, and a diff note's place). System notes (GitLab's own "added 1 commit") send no hook.
 */
function noteHooks(project: { path_with_namespace: string }, mr: MergeRequest, notes: Array<DiscussionNote & { discussionId: string }>, since: Date, now: Date): Array<Delivery | undefined> {
  return notes.filter((note) => !note.system && changedSince(note.updatedAt, since)).map((note) => asHook({
    object_kind: 'note',
    user: note.author ? { username: note.author, ...(note.authorId !== undefined ? { id: note.authorId } : {}) } : undefined,
    project,
    object_attributes: {
      id: note.id, note: note.body, noteable_type: 'MergeRequest', ...(note.authorId !== undefined ? { author_id: note.authorId } : {}),
      // What GitLab's hook said when the note last changed: an edit is not a new note.
      action: note.updatedAt !== note.createdAt ? 'update' : 'create',
      created_at: note.createdAt, updated_at: note.updatedAt, discussion_id: note.discussionId, type: note.type,
      position: note.position ? { new_path: note.position.path, new_line: note.position.line ?? null } : null,
    },
    merge_request: noteMergeRequest(mr),
  }, now));
}

/** Pipelines of the merge request that finished in the window, as pipeline hooks. */
function pipelineHooks(project: { path_with_namespace: string }, mr: MergeRequest, pipelines: Pipeline[], since: Date, now: Date): Array<Delivery | undefined> {
  return pipelines.filter((pipeline) => FINAL_PIPELINE_STATES.has(pipeline.status) && changedSince(pipeline.updatedAt, since)).reverse().map((pipeline) => asHook({
    object_kind: 'pipeline',
    project,
    object_attributes: { id: pipeline.id, ref: pipeline.ref, sha: pipeline.sha, status: pipeline.status, created_at: pipeline.createdAt, finished_at: pipeline.updatedAt },
    merge_request: { iid: mr.iid, title: mr.title, source_branch: mr.sourceBranch, url: mr.webUrl },
  }, now));
}

/**
 * The approvals of a merge request that changed in the window, as the hooks GitLab sent from each approver. GitLab's
 * API says who approved but not when: an approval writes a system note, which moves the merge request's updated_at,
 * so the approvals are read only when that moved in the window (and come again as duplicates while it keeps moving).
 */
async function approvalHooks(client: GitLabPollClient, project: { path_with_namespace: string }, mr: MergeRequest, since: Date, now: Date): Promise<Array<Delivery | undefined>> {
  if (!changedSince(mr.updatedAt, since)) return [];
  return (await client.listMergeRequestApprovers(project.path_with_namespace, mr.iid)).map((approver) => asHook({
    object_kind: 'merge_request', user: { username: approver.username, id: approver.id }, project, object_attributes: mergeRequestAttributes(mr, 'approved'),
  }, now));
}

async function factsOfMergeRequest(client: GitLabPollClient, namespace: string, mr: MergeRequest, since: Date, now: Date): Promise<Array<Delivery | undefined>> {
  const project = { path_with_namespace: namespace };
  const discussions = await client.listMergeRequestDiscussions(namespace, mr.iid);
  const notes = discussions.flatMap((discussion) => discussion.notes.map((note) => ({ ...note, discussionId: discussion.id })));
  // Oldest first, as the hooks came: a reviewer's note before the pipeline it asked for.
  notes.sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || a.id - b.id);
  return [
    ...noteHooks(project, mr, notes, since, now),
    ...pipelineHooks(project, mr, await client.listMergeRequestPipelines(namespace, mr.iid), since, now),
    ...await approvalHooks(client, project, mr, since, now),
  ];
}

/**
 * The facts of the window (now less `lookbackSeconds`) on the service's merge requests (`service/*` source branches)
 * of the given GitLab projects: for each open one, its new head when it changed in the window, and the notes and
 * finished pipelines made or changed in it and its approvals; for each merged or closed in the window, its last notes and pipelines and
 * then the merge or close (a lost merge hook must not leave a ticket waiting for ever, and a pipeline result whose
 * hook was lost just before the merge must still reach the ticket). GitLab does not redeliver a hook after its own
 * retries, so this is the only way back for one that was lost. An open merge request where nothing happened costs
 * API reads but no delivery.
 */
export async function collectGitLabDeliveries(projects: PolledGitLabProject[], options: { now: Date; lookbackSeconds: number }): Promise<Delivery[]> {
  const deliveries: Delivery[] = [];
  const push = (...found: Array<Delivery | undefined>) => {
    for (const delivery of found) if (delivery) deliveries.push(delivery);
  };
  const since = new Date(options.now.getTime() - options.lookbackSeconds * 1000);
  for (const { namespace, client } of projects) {
    const project = { path_with_namespace: namespace };
    const ended = (await client.listMergeRequestsUpdatedSince(namespace, SERVICE_BRANCH_PREFIX, since)).filter((mr) => mr.state === 'merged' || mr.state === 'closed');
    for (const mr of ended) {
      push(...await factsOfMergeRequest(client, namespace, mr, since, options.now));
      push(asHook({ object_kind: 'merge_request', project, object_attributes: mergeRequestAttributes(mr, mr.state === 'merged' ? 'merge' : 'close') }, options.now));
    }
    for (const mr of await client.listOpenMergeRequestsByBranchPrefix(namespace, SERVICE_BRANCH_PREFIX)) {
      if (changedSince(mr.updatedAt, since)) push(asHook({ object_kind: 'merge_request', project, object_attributes: mergeRequestAttributes(mr, 'update') }, options.now));
      push(...await factsOfMergeRequest(client, namespace, mr, since, options.now));
    }
  }
  return deliveries;
}
