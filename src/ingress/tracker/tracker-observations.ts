import type { LabelChange, Observation, ObservationSource } from '../../../workflows/ledger/observation';
import { trackerActorIds, type TrackerUserIds } from '../../../workflows/person-commands/actor-identity';
import { factFingerprint } from '../fact-fingerprint';
import { isoOrNull } from '../normalised-delivery';

/**
 * Tracker facts as observations, built the same way whether they came from a webhook or from the poller reading the
 * REST API, so both converge on one delivery identity and one fingerprint per fact.
 */

export interface TrackerIssueFacts {
  id: string;
  key: string;
  issueType?: string;
  summary?: string;
  status?: string;
  /** Absent when the delivery did not carry the issue's fields (a Server/DC comment event). */
  labels?: string[];
  created?: string;
  updated?: string;
}

export interface TrackerChangelogFacts {
  id: string;
  created?: string;
  items: Array<{ field: string; fromString?: string | null; toString?: string | null }>;
  /** Who made the change (the webhook's `user`, the changelog entry's `author`): approvals count only from allowed actors. */
  author?: TrackerUserIds;
}

export interface TrackerCommentFacts {
  id: string;
  /** Markdown (ADF converted with the tracker client's converter) or the plain text the provider sent. */
  body: string;
  /** A label for people (e-mail, account id or user name); never matched as an identity. */
  author?: string;
  /** Every identity of the author, tagged (`tracker-email:`, `tracker:`), for allowed-actor checks and the loop guard. */
  authorIds?: string[];
  created?: string;
  updated?: string;
}

export interface ObservationContext {
  source: ObservationSource;
  receivedAt: Date;
}

/**
 * A comment author's label and identities. The display name is neither: anyone can set theirs to a colleague's
 * name or to the service's e-mail, so it is left out even as a last resort (no identity then means "unknown actor").
 */
export function trackerCommentAuthor(user: TrackerUserIds | undefined): Pick<TrackerCommentFacts, 'author' | 'authorIds'> {
  const label = [user?.emailAddress, user?.accountId, user?.name].find((id): id is string => typeof id === 'string' && id.trim() !== '');
  return { author: label, authorIds: trackerActorIds(user) };
}

function splitLabels(value: string | null | undefined): string[] {
  return (value ?? '').split(/\s+/).filter(Boolean);
}

/** Label changes come from the changelog (`fromString`/`toString` of the `labels` field), never from a guessed diff. */
export function labelChangeFrom(items: TrackerChangelogFacts['items']): LabelChange | undefined {
  const labelItems = items.filter((item) => item.field.toLowerCase() === 'labels');
  if (labelItems.length === 0) return undefined;
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const item of labelItems) {
    const before = new Set(splitLabels(item.fromString));
    const after = new Set(splitLabels(item.toString));
    for (const label of after) if (!before.has(label)) added.add(label);
    for (const label of before) if (!after.has(label)) removed.add(label);
  }
  return { added: [...added].sort(), removed: [...removed].sort() };
}

function issueFacts(issue: TrackerIssueFacts): Observation['facts'] {
  return { issue_type: issue.issueType, summary: issue.summary, status: issue.status, labels: issue.labels };
}

function common(issue: TrackerIssueFacts, context: ObservationContext) {
  return { source: context.source, source_system: 'tracker' as const, ticket_key: issue.key, received_at: context.receivedAt.toISOString() };
}

/**
 * The creation of an issue. `creator` (the webhook's `user`, the issue's `creator` field on the poller's path) names
 * who started it: `service:yolo` standing at the start counts only from an allowed actor.
 */
export function issueCreatedObservation(issue: TrackerIssueFacts, context: ObservationContext, fallbackTime?: string, creator?: TrackerUserIds): Observation {
  const created = isoOrNull(issue.created);
  const actorIds = trackerActorIds(creator);
  return {
    ...common(issue, context),
    event: 'issue_created',
    delivery_identity: `tracker:issue:${issue.id}:created`,
    resource: { kind: 'issue', id: issue.id },
    // Creation happens once per issue: there is nothing to order it against.
    revision: null,
    fingerprint: factFingerprint({ issue: issue.id, created }),
    observed_at: created ?? fallbackTime ?? null,
    facts: { ...issueFacts(issue), ...(actorIds.length > 0 ? { actor_ids: actorIds } : {}) },
  };
}

export function changelogObservation(issue: TrackerIssueFacts, changelog: TrackerChangelogFacts, context: ObservationContext): Observation {
  const labelChange = labelChangeFrom(changelog.items);
  // The ledger orders a changelog per field it changed, so the field names travel with it (never their values).
  const changedFields = [...new Set(changelog.items.map((item) => item.field.toLowerCase()))].sort();
  const actorIds = trackerActorIds(changelog.author);
  const facts = { ...issueFacts(issue), changed_fields: changedFields, ...(actorIds.length > 0 ? { actor_ids: actorIds } : {}) };
  return {
    ...common(issue, context),
    event: 'issue_updated',
    delivery_identity: `tracker:changelog:${changelog.id}`,
    resource: { kind: 'issue_changelog', id: issue.id },
    revision: changelog.id,
    fingerprint: factFingerprint({ changelog: changelog.id, items: changelog.items.map((i) => [i.field, i.fromString ?? null, i.toString ?? null]) }),
    observed_at: isoOrNull(changelog.created) ?? isoOrNull(issue.updated),
    facts: labelChange ? { ...facts, label_change: labelChange } : facts,
  };
}

/** An update without a changelog (some field edits): ordered by the issue's update time. */
export function fieldsUpdatedObservation(issue: TrackerIssueFacts, updated: string, context: ObservationContext): Observation {
  return {
    ...common(issue, context),
    event: 'issue_updated',
    delivery_identity: `tracker:issue:${issue.id}:updated@${updated}`,
    resource: { kind: 'issue_fields', id: issue.id },
    revision: updated,
    fingerprint: factFingerprint({ issue: issue.id, updated, status: issue.status, labels: [...(issue.labels ?? [])].sort() }),
    observed_at: updated,
    facts: issueFacts(issue),
  };
}

export function commentObservation(issue: TrackerIssueFacts, comment: TrackerCommentFacts, context: ObservationContext): Observation {
  const updated = isoOrNull(comment.updated) ?? isoOrNull(comment.created);
  return {
    ...common(issue, context),
    event: 'issue_commented',
    delivery_identity: `tracker:comment:${comment.id}@${updated ?? 'unversioned'}`,
    resource: { kind: 'comment', id: comment.id },
    revision: updated,
    fingerprint: factFingerprint({ comment: comment.id, updated, body: comment.body }),
    observed_at: updated,
    facts: {
      ...issueFacts(issue),
      comment: { id: comment.id, body: comment.body, author: comment.author, created: isoOrNull(comment.created) ?? undefined, updated: updated ?? undefined },
      ...(comment.authorIds?.length ? { actor_ids: comment.authorIds } : {}),
    },
  };
}
