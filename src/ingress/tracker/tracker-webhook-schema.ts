import { z } from 'zod';

/**
 * The fields of a tracker (Jira) webhook this service uses. Jira sends much more; unknown fields pass through
 * untouched. Event names are accepted as Jira sends them (`jira:issue_created`, `comment_created`) and as the spec
 * writes them (`tracker:issue_created`).
 */
export const TICKET_KEY = /^[A-Z][A-Z0-9_]*-[1-9][0-9]*$/;

export const trackerIssueSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String).optional(),
  key: z.string().transform((key) => key.trim().toUpperCase()).pipe(z.string().regex(TICKET_KEY, 'issue.key must look like PROJ-123')),
  fields: z.object({
    summary: z.string().optional(),
    /**
     * Absent, not empty, when the delivery leaves the field out: Jira Cloud's comment events carry only summary,
     * issuetype, project, assignee, priority and status, and say nothing about the issue's labels.
     */
    labels: z.array(z.string()).optional(),
    issuetype: z.object({ name: z.string() }).partial().optional(),
    status: z.object({ name: z.string() }).partial().optional(),
    project: z.object({ key: z.string() }).partial().optional(),
    created: z.string().optional(),
    updated: z.string().optional(),
  }).loose().default({}),
}).loose();

export const trackerCommentSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  /** `.../rest/api/2/issue/<issue id>/comment/<id>`: the only pointer to the issue in Server/DC comment events. */
  self: z.string().optional(),
  body: z.unknown(),
  // No displayName: it is not an identity (anyone can set theirs to anything), so nothing should read it.
  author: z.object({
    accountId: z.string().optional(),
    emailAddress: z.string().optional(),
    name: z.string().optional(),
  }).loose().optional(),
  created: z.string().optional(),
  updated: z.string().optional(),
}).loose();

/**
 * What every tracker delivery is read by first: which event it is. Only then is it validated for what that event
 * needs, so an event the service does not use (worklog, attachment, sprint, ...) is answered, never refused.
 */
export const trackerEnvelopeSchema = z.object({
  webhookEvent: z.string().min(1),
  issue_event_type_name: z.string().optional(),
  issue: z.unknown().optional(),
  comment: z.unknown().optional(),
}).loose();

export type TrackerEnvelope = z.infer<typeof trackerEnvelopeSchema>;

/** A comment event without an issue object (Jira Server/Data Center): the issue is looked up by its id. */
export const issuelessCommentWebhookSchema = z.object({
  webhookEvent: z.string().min(1),
  timestamp: z.number().optional(),
  comment: trackerCommentSchema.extend({ self: z.string() }),
}).loose();

export type IssuelessCommentWebhook = z.infer<typeof issuelessCommentWebhookSchema>;

export const trackerWebhookSchema = z.object({
  webhookEvent: z.string().min(1),
  issue_event_type_name: z.string().optional(),
  timestamp: z.number().optional(),
  issue: trackerIssueSchema,
  changelog: z.object({
    id: z.union([z.string(), z.number()]).transform(String).optional(),
    /** Jira's webhook changelog has no time (the body's `timestamp` is the change's); the REST changelog has one. */
    created: z.string().optional(),
    items: z.array(z.object({
      field: z.string(),
      fromString: z.string().nullable().optional(),
      toString: z.string().nullable().optional(),
    }).loose()).default([]),
  }).loose().optional(),
  comment: trackerCommentSchema.optional(),
  /** The person whose action the delivery reports (Jira's `user`; `name` is the Server/DC user name). */
  user: z.object({ accountId: z.string().optional(), emailAddress: z.string().optional(), name: z.string().optional() }).loose().optional(),
}).loose();

export type TrackerWebhook = z.infer<typeof trackerWebhookSchema>;
