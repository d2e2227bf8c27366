import { z } from 'zod';
import type { TrackerClient } from '../src/providers/tracker/tracker-client';
import { redactSecrets } from '../src/redaction/redact-secrets';
import type { EffectOperation, ProviderEvidence } from '../workflows/effects/effect-types';

/**
 * The tracker issue effects: creating a sub-ticket (epic, task, a bug's fix task) and moving an issue's status. Both
 * are reconciled before they write, so a repeat after a crash, a retry or an operator's replay never creates or moves
 * twice: an issue is found by its identity label (a JQL search) and adopted; a transition to the status the issue
 * already has is a no-op.
 */
export type IssueEffectTracker = Pick<TrackerClient, 'searchIssues' | 'createIssue' | 'transitionIssue' | 'getIssue' | 'linkIssues'>;

/** The link a bug's fix task has to its bug (REFERENCE "Tracker conventions": linked "Related"). */
export const RELATES_LINK = 'Relates';

const label = z.string().min(1).max(255).regex(/^\S+$/, 'labels cannot contain spaces');

export const trackerIssueOperationSchemas = [
  z.object({
    kind: z.literal('tracker.create_issue'),
    project_key: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be a project key'),
    issue_type: z.string().min(1),
    summary: z.string().trim().min(1).max(255),
    description: z.string().optional(),
    parent_key: z.string().regex(/^[A-Z][A-Z0-9_]*-\d+$/, 'must be an issue key').optional(),
    labels: z.array(label),
    identity_label: label,
    relates_to: z.string().regex(/^[A-Z][A-Z0-9_]*-\d+$/, 'must be an issue key').optional(),
  }).refine((op) => op.labels.includes(op.identity_label), { message: 'identity_label must be one of labels', path: ['identity_label'] }),
  z.object({ kind: z.literal('tracker.transition'), issue_key: z.string().min(1), target: z.string().trim().min(1) }),
] as const;

type CreateIssue = Extract<EffectOperation, { kind: 'tracker.create_issue' }>;
type Transition = Extract<EffectOperation, { kind: 'tracker.transition' }>;

/** A JQL string literal: labels may hold quotes or backslashes. */
function jqlString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export async function createIssueOnce(client: IssueEffectTracker, operation: CreateIssue): Promise<ProviderEvidence> {
  const jql = `project = ${jqlString(operation.project_key)} AND labels = ${jqlString(operation.identity_label)} ORDER BY created ASC`;
  const found = await client.searchIssues(jql, { maxResults: 2 });
  const existing = found.issues[0];
  if (existing) {
    const notes = found.issues.length > 1 ? [`more than one issue carries ${operation.identity_label}; adopted the oldest`] : [];
    // A crash between creating the issue and linking it leaves it unlinked: the repeat adds only the missing link.
    if (operation.relates_to && !(await relatesAlready(client, existing.key, operation.relates_to))) {
      await client.linkIssues(RELATES_LINK, existing.key, operation.relates_to);
      notes.push(`linked to ${operation.relates_to}`);
    }
    return {
      provider: 'tracker', ids: { issue_key: existing.key, issue_id: existing.id }, adopted: true,
      note: notes.length ? notes.join('; ') : undefined,
    };
  }
  const created = await client.createIssue({
    projectKey: operation.project_key,
    issueType: operation.issue_type,
    summary: operation.summary,
    description: operation.description === undefined ? undefined : redactSecrets(operation.description),
    labels: operation.labels,
    parentKey: operation.parent_key,
    ...(operation.relates_to ? { links: [{ type: RELATES_LINK, issueKey: operation.relates_to }] } : {}),
  });
  return { provider: 'tracker', ids: { issue_key: created.key, issue_id: created.id }, url: created.self };
}

/** Whether the issue has a "Relates" link to `other` already, in either direction (the link type is symmetric). */
async function relatesAlready(client: IssueEffectTracker, issueKey: string, other: string): Promise<boolean> {
  const issue = await client.getIssue(issueKey);
  return (issue.links ?? []).some((link) => link.type.toLowerCase() === RELATES_LINK.toLowerCase() && link.issueKey.toUpperCase() === other.toUpperCase());
}

export async function transitionOnce(client: IssueEffectTracker, operation: Transition): Promise<ProviderEvidence> {
  const result = await client.transitionIssue(operation.issue_key, operation.target);
  return {
    provider: 'tracker', ids: { status: result.status }, adopted: !result.transitioned,
    note: result.transitioned ? undefined : `the issue was already in "${result.status}"`,
  };
}
