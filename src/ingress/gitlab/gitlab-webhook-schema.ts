import { z } from 'zod';

/** The fields of GitLab webhooks (merge request, note, pipeline, push) this service uses. */
const id = z.union([z.number(), z.string()]).transform(String);
const project = z.object({
  path_with_namespace: z.string().regex(/^[^/\s]+(\/[^/\s]+)+$/, 'project.path_with_namespace must be group/project'),
  id: z.number().int().optional(),
  web_url: z.string().optional(),
}).loose();
/** `id`: the numeric user id, which a rename keeps and nobody else ever gets (allowed actors' `gitlab-id:`). */
const user = z.object({ username: z.string(), id: z.number().int().positive().optional() }).loose();
const mergeRequestRef = z.object({
  iid: z.number().int().positive(),
  title: z.string().optional(),
  source_branch: z.string().optional(),
  // A pipeline hook's merge request: from a fork, the pipeline (and its hook) is the fork's while the merge request
  // lives in the target project, which these name.
  source_project_id: z.number().int().optional(),
  target_project_id: z.number().int().optional(),
  url: z.string().optional(),
}).loose();

export const mergeRequestHookSchema = z.object({
  object_kind: z.literal('merge_request'),
  user: user.optional(),
  project,
  object_attributes: z.object({
    iid: z.number().int().positive(),
    title: z.string(),
    state: z.string(),
    action: z.string().optional(),
    source_branch: z.string(),
    target_branch: z.string().optional(),
    last_commit: z.object({ id: z.string() }).loose().nullable().optional(),
    merge_commit_sha: z.string().nullable().optional(),
    updated_at: z.string().optional(),
  }).loose(),
}).loose();

export const noteHookSchema = z.object({
  object_kind: z.literal('note'),
  user: user.optional(),
  project,
  object_attributes: z.object({
    id,
    note: z.string(),
    noteable_type: z.string(),
    author_id: z.number().int().positive().optional(),
    /** `create` or `update` (GitLab 15+); older GitLab tells an edit only by its update time. */
    action: z.string().optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
    /** Every note has one; a plain comment's is its own. */
    discussion_id: z.string().min(1).optional(),
    /** null for a plain comment, `DiscussionNote` in a thread, `DiffNote` in a thread on a line of the diff. */
    type: z.string().nullable().optional(),
    position: z.object({
      new_path: z.string().nullable().optional(),
      old_path: z.string().nullable().optional(),
      new_line: z.number().int().nullable().optional(),
      old_line: z.number().int().nullable().optional(),
    }).loose().nullable().optional(),
  }).loose(),
  merge_request: mergeRequestRef.nullable().optional(),
}).loose();

export const pipelineHookSchema = z.object({
  object_kind: z.literal('pipeline'),
  project,
  object_attributes: z.object({
    id,
    ref: z.string().optional(),
    sha: z.string(),
    status: z.string(),
    created_at: z.string().nullable().optional(),
    finished_at: z.string().nullable().optional(),
  }).loose(),
  merge_request: mergeRequestRef.nullable().optional(),
}).loose();

export const pushHookSchema = z.object({
  object_kind: z.literal('push'),
  ref: z.string(),
  before: z.string().optional(),
  after: z.string(),
  project,
  user_username: z.string().optional(),
}).loose();

export const gitlabHookSchema = z.discriminatedUnion('object_kind', [mergeRequestHookSchema, noteHookSchema, pipelineHookSchema, pushHookSchema]);
export type GitLabHook = z.infer<typeof gitlabHookSchema>;
