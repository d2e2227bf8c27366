import { z } from 'zod';

/** The fields of GitHub webhooks this service uses (SPEC 4.3); the rest of GitHub's payload passes through. */
const id = z.union([z.number(), z.string()]).transform(String);
/** `id`: the numeric user id, which a rename keeps and nobody else ever gets (allowed actors' `github-id:`). */
const user = z.object({ login: z.string(), id: z.number().int().positive().optional(), type: z.string().optional() }).loose();
const repository = z.object({ full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'repository.full_name must be owner/repo') }).loose();
const head = z.object({ ref: z.string(), sha: z.string().optional() }).loose();

export const pullRequestEventSchema = z.object({
  action: z.string(),
  number: z.number().optional(),
  pull_request: z.object({
    number: z.number().int().positive(),
    title: z.string(),
    state: z.string(),
    merged: z.boolean().nullable().optional(),
    merge_commit_sha: z.string().nullable().optional(),
    head,
    base: z.object({ ref: z.string() }).loose().optional(),
    updated_at: z.string().optional(),
    closed_at: z.string().nullable().optional(),
  }).loose(),
  repository,
  sender: user.optional(),
}).loose();

export const pullRequestReviewEventSchema = z.object({
  action: z.string(),
  review: z.object({
    id,
    state: z.string().transform((s) => s.toLowerCase()),
    body: z.string().nullable().optional(),
    commit_id: z.string().nullable().optional(),
    submitted_at: z.string().nullable().optional(),
    user: user.nullable().optional(),
  }).loose(),
  pull_request: z.object({ number: z.number().int().positive(), title: z.string(), head, state: z.string().optional() }).loose(),
  repository,
  sender: user.optional(),
}).loose();

export const checkRunEventSchema = z.object({
  action: z.string(),
  check_run: z.object({
    id,
    name: z.string(),
    status: z.string(),
    conclusion: z.string().nullable().optional(),
    head_sha: z.string(),
    started_at: z.string().nullable().optional(),
    completed_at: z.string().nullable().optional(),
    pull_requests: z.array(z.object({ number: z.number().int().positive(), head: head.optional() }).loose()).default([]),
  }).loose(),
  repository,
  sender: user.optional(),
}).loose();

export const issueCommentEventSchema = z.object({
  action: z.string(),
  issue: z.object({
    number: z.number().int().positive(),
    title: z.string(),
    pull_request: z.object({ url: z.string().optional() }).loose().nullable().optional(),
  }).loose(),
  comment: z.object({
    id,
    body: z.string().nullable().optional(),
    user: user.nullable().optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  }).loose(),
  repository,
  sender: user.optional(),
}).loose();

export const SCMHOST_EVENT_SCHEMAS = {
  pull_request: pullRequestEventSchema,
  pull_request_review: pullRequestReviewEventSchema,
  check_run: checkRunEventSchema,
  issue_comment: issueCommentEventSchema,
} as const;

export type ScmhostEventName = keyof typeof SCMHOST_EVENT_SCHEMAS;
export type ScmhostPayload<E extends ScmhostEventName> = z.infer<(typeof SCMHOST_EVENT_SCHEMAS)[E]>;

export function isScmhostEventName(name: string): name is ScmhostEventName {
  return Object.prototype.hasOwnProperty.call(SCMHOST_EVENT_SCHEMAS, name);
}
