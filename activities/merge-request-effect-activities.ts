import type { RegistryRepository } from '../src/config/repository-registry';
import { writtenBy, type DiffRefs, type Discussion, type GitLabClient } from '../src/providers/gitlab/gitlab-client';
import { isProviderError, RetryableProviderError } from '../src/providers/provider-errors';
import { redactSecrets } from '../src/redaction/redact-secrets';
import { serviceForkOf } from '../src/providers/gitlab/gitlab-fork';
import type { EffectOperation, ProviderEvidence } from '../workflows/effects/effect-types';
import { formatPullRequestRef } from '../workflows/vocabulary/pull-request-ref';

/**
 * The pull-request effects for a repository of the repository registry (GitLab): the same contract as the GitHub
 * ones in pull-request-effect-activities.ts, on merge requests and notes. The ticket's PR index keeps a merge
 * request as `<namespace>!<iid>`, which is how GitLab's webhooks name it too.
 */
export type MergeRequestClient = Pick<GitLabClient, 'findMergeRequestBySourceBranch' | 'createMergeRequest' | 'getProject' | 'getMergeRequest' | 'updateMergeRequest'
  | 'findNoteByIdempotencyKey' | 'createMergeRequestNote' | 'getMergeRequestDiscussion' | 'createMergeRequestDiscussionNote' | 'resolveMergeRequestDiscussion'
  | 'listMergeRequestDiscussions' | 'createMergeRequestDiscussion'
  | 'findOwnFork' | 'createFork' | 'serviceUsername'>;

/** A registry repository and the client of its connection. */
export interface GitLabRepository {
  entry: RegistryRepository;
  client: MergeRequestClient;
}

type Op<K extends EffectOperation['kind']> = Extract<EffectOperation, { kind: K }>;

function opened(namespace: string, iid: number, url: string, adopted: boolean, note?: string): ProviderEvidence {
  return { provider: 'gitlab', ids: { pull_request: formatPullRequestRef(namespace, iid, 'gitlab'), number: String(iid) }, url, ...(adopted ? { adopted: true } : {}), ...(note ? { note } : {}) };
}

/**
 * `scmhost.open_pr` on GitLab: the open merge request of the source branch is adopted, so a repeat never opens a
 * second one. In `fork` mode the branch lives on the service account's fork (found, or made, as the push does): the
 * merge request is created on the fork with the project as its target, and lives in the project, where it is
 * found again. Only a merge request from that fork is adopted then: a same-named branch elsewhere is not the ticket's.
 */
export async function openMergeRequestOnce(gitlab: GitLabRepository, operation: Op<'scmhost.open_pr'>): Promise<ProviderEvidence> {
  const { entry, client } = gitlab;
  const fork = operation.mode === 'fork' ? await serviceForkOf(client, entry.namespace) : undefined;
  const existing = await client.findMergeRequestBySourceBranch(entry.namespace, operation.head);
  const ours = existing && (!fork || existing.sourceProjectId === fork.id);
  if (ours && existing.state === 'opened') return opened(entry.namespace, existing.iid, existing.webUrl, true, 'an open merge request of this branch exists; adopted');
  const target = operation.base ?? entry.defaultBranch ?? (await client.getProject(entry.namespace)).defaultBranch;
  const created = await client.createMergeRequest(fork ? fork.pathWithNamespace : entry.namespace, {
    title: operation.title, description: redactSecrets(operation.body), sourceBranch: operation.head, targetBranch: target, draft: operation.draft ?? false,
    ...(fork ? { targetProjectId: fork.forkedFromId ?? (await client.getProject(entry.namespace)).id } : {}),
  });
  return opened(entry.namespace, created.iid, created.webUrl, false);
}

/** `scmhost.update_pr` on GitLab: title and description; adopts when they are already as wanted. */
export async function updateMergeRequestOnce(gitlab: GitLabRepository, operation: Op<'scmhost.update_pr'>): Promise<ProviderEvidence> {
  const { entry, client } = gitlab;
  const current = await client.getMergeRequest(entry.namespace, operation.number);
  const description = operation.body === undefined ? undefined : redactSecrets(operation.body);
  // A draft keeps its prefix: GitLab keeps the draft state in the title.
  const title = operation.title === undefined ? undefined : current.draft && !/^draft:/i.test(operation.title) ? `Draft: ${operation.title}` : operation.title;
  const changes = {
    ...(title !== undefined && title !== current.title ? { title } : {}),
    ...(description !== undefined && description !== current.description ? { description } : {}),
  };
  if (Object.keys(changes).length === 0) return opened(entry.namespace, current.iid, current.webUrl, true, 'title and description were already as wanted');
  const updated = await client.updateMergeRequest(entry.namespace, operation.number, changes);
  return opened(entry.namespace, updated.iid, updated.webUrl, false);
}

/** The web link of the merge request of a branch; not opened yet is retryable (the opening effect runs first). */
export async function mergeRequestUrl(gitlab: GitLabRepository, operation: { head: string }): Promise<string> {
  const mr = await gitlab.client.findMergeRequestBySourceBranch(gitlab.entry.namespace, operation.head);
  if (!mr) {
    throw new RetryableProviderError(`no merge request for ${operation.head} in ${gitlab.entry.namespace} yet`, { provider: 'gitlab', operation: 'findMergeRequestBySourceBranch', method: 'GET', path: `/projects/${gitlab.entry.namespace}/merge_requests` });
  }
  return mr.webUrl;
}

/**
 * One note on a merge request, carrying the effect's key in a hidden marker so that a repeat finds it: `scmhost.pr_comment`.
 */
export async function noteOnMergeRequestOnce(gitlab: GitLabRepository, number: number, body: string, key: string): Promise<ProviderEvidence> {
  const { entry, client } = gitlab;
  const earlier = await client.findNoteByIdempotencyKey(entry.namespace, number, key);
  if (earlier) return { provider: 'gitlab', ids: { note_id: String(earlier.id) }, adopted: true };
  const note = await client.createMergeRequestNote(entry.namespace, number, redactSecrets(body), { idempotencyKey: key });
  return { provider: 'gitlab', ids: { note_id: String(note.id) } };
}

type Finding = NonNullable<Op<'scmhost.pr_review'>['comments']>[number];

/** The marker key of a review's finding thread: the effect's key and the finding's place in the review. */
export function findingKey(key: string, index: number): string {
  return `${key}:finding:${index}`;
}

/**
 * The review's summary note: its body, then the findings GitLab would not place on a line of the diff, in the
 * review's order, so that a repeat writes the same note.
 */
export function reviewAsNote(body: string, unplaced: readonly Finding[]): string {
  if (unplaced.length === 0) return body;
  const findings = unplaced.map((c) => `- \`${c.path}:${c.line}\`: ${c.body}`);
  return `${body}\n\nNot on a line of this merge request's diff:\n\n${findings.join('\n')}`;
}

/**
 * `scmhost.pr_review` on GitLab: each finding becomes a thread on its line of the diff ("Start a thread"), which a
 * reviewer answers and resolves like their own threads; the review's body, with the findings GitLab refuses to place
 * (400: the line is not in the diff), is one note, written last. Every thread and the note carry a hidden marker
 * (the effect's key, and the finding's index for a thread), so a repeat after a failure or an unknown outcome adopts
 * what the service wrote there (by its own account: a marker alone proves nothing) and writes only what is missing. Once the note is there the review is complete. An APPROVE is not
 * given by the service.
 */
export async function reviewOnMergeRequestOnce(gitlab: GitLabRepository, operation: Op<'scmhost.pr_review'>, key: string): Promise<ProviderEvidence> {
  const { entry, client } = gitlab;
  const findings = operation.comments ?? [];
  const self = await client.serviceUsername();
  const discussions = await client.listMergeRequestDiscussions(entry.namespace, operation.number);
  // A thread someone else started with a copied marker is theirs: the service starts its own beside it.
  const markedBy = (wanted: string) => discussions.find((d) => d.notes[0] !== undefined && writtenBy(d.notes[0], self, wanted));
  const threads = findings.map((_, index) => markedBy(findingKey(key, index))?.id);
  // Written last, the note is there only when every finding has its thread or is listed in it.
  const written = (noteId: number, adopted: boolean): ProviderEvidence => {
    const unplaced = threads.filter((id) => id === undefined).length;
    return {
      provider: 'gitlab',
      ids: { note_id: String(noteId), discussion_ids: threads.filter((id): id is string => id !== undefined).join(',') },
      ...(adopted ? { adopted: true } : {}),
      ...(unplaced ? { note: `${unplaced} finding(s) not on a line of the diff are listed in the note` } : {}),
    };
  };
  const summary = markedBy(key)?.notes[0];
  if (summary) return written(summary.id, true);

  const unplaced: Finding[] = [];
  let diffRefs: DiffRefs | undefined;
  for (const [index, finding] of findings.entries()) {
    if (threads[index] !== undefined) continue;
    diffRefs ??= (await client.getMergeRequest(entry.namespace, operation.number)).diffRefs;
    if (!diffRefs) {
      unplaced.push(finding);
      continue;
    }
    try {
      const thread = await client.createMergeRequestDiscussion(entry.namespace, operation.number, redactSecrets(finding.body), {
        position: { diffRefs, path: finding.path, newLine: finding.line }, idempotencyKey: findingKey(key, index),
      });
      threads[index] = thread.id;
    } catch (error) {
      if (!isProviderError(error) || error.status !== 400) throw error;
      unplaced.push(finding);
    }
  }
  const note = await client.createMergeRequestNote(entry.namespace, operation.number, redactSecrets(reviewAsNote(operation.body, unplaced)), { idempotencyKey: key });
  return written(note.id, false);
}

/** What resolving a thread after its reply takes: nothing (not asked, or resolved already), nothing possible, or a request. */
export type Resolution = 'not_asked' | 'already_resolved' | 'not_resolvable' | 'resolve';

export function resolutionStep(discussion: Pick<Discussion, 'resolvable' | 'resolved'>, wanted: boolean): Resolution {
  if (!wanted) return 'not_asked';
  if (!discussion.resolvable) return 'not_resolvable';
  return discussion.resolved ? 'already_resolved' : 'resolve';
}

/**
 * `scmhost.review_reply` on GitLab: one reply in the discussion `comment_id`, carrying the effect's key in the hidden
 * marker, so a repeat after an unknown outcome finds it among the discussion's notes and adopts it (only a note by the
 * service's own account). With `resolve`,
 * the thread is then resolved if it can be. GitLab refusing that (403: the user may not, 400) leaves the thread open
 * for a person to resolve and is kept in the evidence: the reply, which is what the reviewer reads, stands.
 */
export async function replyInDiscussionOnce(gitlab: GitLabRepository, operation: Op<'scmhost.review_reply'>, key: string): Promise<ProviderEvidence> {
  const { entry, client } = gitlab;
  const id = String(operation.comment_id);
  const self = await client.serviceUsername();
  const discussion = await client.getMergeRequestDiscussion(entry.namespace, operation.number, id);
  const earlier = discussion.notes.find((note) => writtenBy(note, self, key));
  const reply = earlier ?? await client.createMergeRequestDiscussionNote(entry.namespace, operation.number, id, redactSecrets(operation.body), { idempotencyKey: key });
  const replied = (resolution?: string, note?: string): ProviderEvidence => ({
    provider: 'gitlab', ids: { note_id: String(reply.id), discussion_id: id, ...(resolution ? { resolution } : {}) }, ...(earlier ? { adopted: true } : {}), ...(note ? { note } : {}),
  });
  const step = resolutionStep(discussion, operation.resolve === true);
  if (step === 'not_asked') return replied();
  if (step !== 'resolve') return replied(step, step === 'not_resolvable' ? 'the discussion cannot be resolved; left as it is' : undefined);
  try {
    await client.resolveMergeRequestDiscussion(entry.namespace, operation.number, id);
    return replied('resolved');
  } catch (error) {
    if (!isProviderError(error) || (error.status !== 403 && error.status !== 400)) throw error;
    return replied('refused', `GitLab refused to resolve the thread (${error.status}); it stays open for a person to resolve`);
  }
}
