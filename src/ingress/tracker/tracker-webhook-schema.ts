import { z } from 'zod';

/**
 * The fields of a tracker (Jira) webhook this service uses. Jira sends much more; unknown fields pass through
 * untouched. Event names are accepted as Jira sends them (`jira:issue_created`, `comment_created`) and as the spec
 * writes them (`tracker:issue_created`).
 */
export const TICKET_KEY = /^[A-Z][A-Z0-9_]*-[1-9][0-9]*$/;

const labelsSchema = z.array(z.string()).default([]);

export const trackerIssueSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String).optional(),
  key: z.string().transform((key) => key.trim().toUpperCase()).pipe(z.string().regex(TICKET_KEY, 'issue.key must look like PROJ-123')),
  fields: z.object({
    summary: z.string().optional(),
    labels: labelsSchema,
    issuetype: z.object({ name: z.string() }).partial().optional(),
    status: z.object({ name: z.string() }).partial().optional(),
    project: z.object({ key: z.string() }).partial().optional(),
    created: z.string().optional(),
    updated: z.string().optional(),
  }).loose().default({ labels: [] }),
}).loose();

export const trackerWebhookSchema = z.object({
  webhookEvent: z.string().min(1),
  issue_event_type_name: z.string().optional(),
  timestamp: z.number().optional(),
  issue: trackerIssueSchema,
  changelog: z.object({
    id: z.union([z.string(), z.number()]).transform(String).optional(),
    items: z.array(z.object({
      field: z.string(),
      fromString: z.string().nullable().optional(),
      toString: z.string().nullable().optional(),
    }).loose()).default([]),
  }).loose().optional(),
  comment: z.object({
    id: z.union([z.string(), z.number()]).transform(String),
    body: z.unknown(),
    author: z.object({
      accountId: z.string().optional(),
      emailAddress: z.string().optional(),
      displayName: z.string().optional(),
    }).loose().optional(),
    created: z.string().optional(),
    updated: z.string().optional(),
  }).loose().optional(),
}).loose();

export type TrackerWebhook = z.infer<typeof trackerWebhookSchema>;
