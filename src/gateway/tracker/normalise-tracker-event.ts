import type { LabelChange, Observation, ObservationSource } from '../../../workflows/observation';
import { factFingerprint } from '../../ingress/fact-fingerprint';
import { commentBodyText } from './adf-text';
import type { TrackerWebhook } from './tracker-webhook-schema';

export type TrackerEvent = 'issue_created' | 'issue_updated' | 'issue_commented';

export type NormaliseResult =
  | { kind: 'observation'; event: TrackerEvent; observation: Observation }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'invalid'; reason: string };

/** Maps the spec's and Jira's event names onto the three tracker events of SPEC 4.2. */
export function trackerEventName(payload: Pick<TrackerWebhook, 'webhookEvent' | 'issue_event_type_name' | 'comment'>): TrackerEvent | undefined {
  const name = payload.webhookEvent.trim().toLowerCase().replace(/^(tracker|jira):/, '');
  switch (name) {
    case 'issue_created':
      return 'issue_created';
    case 'issue_commented':
    case 'comment_created':
    case 'comment_updated':
      return 'issue_commented';
    case 'issue_updated':
      // Jira reports a comment added to an issue as an issue update of type issue_commented.
      if (payload.comment && /^issue_comment(ed|_edited)$/.test(payload.issue_event_type_name ?? '')) return 'issue_commented';
      return 'issue_updated';
    default:
      return undefined;
  }
}

function splitLabels(value: string | null | undefined): string[] {
  return (value ?? '').split(/\s+/).filter(Boolean);
}

/** Label changes come from the changelog (`fromString`/`toString` of the `labels` field), never from a diff we guess. */
export function labelChangeFrom(changelog: TrackerWebhook['changelog']): LabelChange | undefined {
  const items = (changelog?.items ?? []).filter((item) => item.field.toLowerCase() === 'labels');
  if (items.length === 0) return undefined;
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const item of items) {
    const before = new Set(splitLabels(item.fromString));
    const after = new Set(splitLabels(item.toString));
    for (const label of after) if (!before.has(label)) added.add(label);
    for (const label of before) if (!after.has(label)) removed.add(label);
  }
  return { added: [...added].sort(), removed: [...removed].sort() };
}

function isoOrNull(value: string | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/**
 * Turns a validated tracker webhook into an observation. The delivery identity is made of provider facts only
 * (issue id, changelog id, comment id and its update time), so the poller reading the same fact later produces the
 * same identity and a redelivered webhook is recognisably the same delivery.
 */
export function normaliseTrackerEvent(
  payload: TrackerWebhook,
  options: { source?: ObservationSource; receivedAt?: Date } = {},
): NormaliseResult {
  const event = trackerEventName(payload);
  if (!event) return { kind: 'unsupported', reason: `unsupported tracker event "${payload.webhookEvent}"` };
  const issue = payload.issue;
  const issueId = issue.id ?? issue.key;
  const fields = issue.fields;
  const base = {
    source: options.source ?? 'webhook',
    source_system: 'tracker' as const,
    event,
    ticket_key: issue.key,
    received_at: (options.receivedAt ?? new Date()).toISOString(),
  };
  const facts: Observation['facts'] = {
    issue_type: fields.issuetype?.name,
    summary: fields.summary,
    status: fields.status?.name,
    labels: fields.labels,
  };

  if (event === 'issue_created') {
    return {
      kind: 'observation',
      event,
      observation: {
        ...base,
        delivery_identity: `tracker:issue:${issueId}:created`,
        resource: { kind: 'issue', id: issueId },
        // Creation happens once per issue: there is nothing to order it against.
        revision: null,
        fingerprint: factFingerprint({ issue: issueId, created: isoOrNull(fields.created) }),
        observed_at: isoOrNull(fields.created) ?? (payload.timestamp ? new Date(payload.timestamp).toISOString() : null),
        facts,
      },
    };
  }

  if (event === 'issue_commented') {
    const comment = payload.comment;
    if (!comment) return { kind: 'invalid', reason: 'a comment event needs a comment object with an id' };
    const updated = isoOrNull(comment.updated) ?? isoOrNull(comment.created);
    const body = commentBodyText(comment.body);
    return {
      kind: 'observation',
      event,
      observation: {
        ...base,
        delivery_identity: `tracker:comment:${comment.id}@${updated ?? 'unversioned'}`,
        resource: { kind: 'comment', id: comment.id },
        revision: updated,
        fingerprint: factFingerprint({ comment: comment.id, updated, body }),
        observed_at: updated,
        facts: {
          ...facts,
          comment: {
            id: comment.id,
            body,
            author: comment.author?.emailAddress ?? comment.author?.accountId ?? comment.author?.displayName,
            created: isoOrNull(comment.created) ?? undefined,
            updated: updated ?? undefined,
          },
        },
      },
    };
  }

  const changelogId = payload.changelog?.id;
  const updated = isoOrNull(fields.updated);
  if (!changelogId && !updated) {
    return { kind: 'invalid', reason: 'an issue_updated event needs changelog.id or issue.fields.updated to identify the change' };
  }
  const labelChange = labelChangeFrom(payload.changelog);
  return {
    kind: 'observation',
    event,
    observation: {
      ...base,
      delivery_identity: changelogId ? `tracker:changelog:${changelogId}` : `tracker:issue:${issueId}:updated@${updated}`,
      // Changelog ids and update times are different orders: each gets a resource of its own.
      resource: changelogId ? { kind: 'issue_changelog', id: issueId } : { kind: 'issue_fields', id: issueId },
      revision: changelogId ?? updated,
      fingerprint: factFingerprint(changelogId
        ? { changelog: changelogId, items: (payload.changelog?.items ?? []).map((i) => [i.field, i.fromString ?? null, i.toString ?? null]) }
        : { issue: issueId, updated, status: fields.status?.name, labels: [...fields.labels].sort() }),
      observed_at: updated,
      facts: labelChange ? { ...facts, label_change: labelChange } : facts,
    },
  };
}
