import { isChangelog, orderChangelog, recordedChangelog, type FieldRecord } from './changelog-order';
import type { LabelChange, Observation } from './observation';

/**
 * The observation ledger (SPEC 2.4): decides for each delivery whether it is a new fact (accepted), the same fact
 * again (duplicate), older than what is known (stale), or something that cannot be safely ordered or contradicts
 * accepted evidence (conflict). Pure and bounded: it lives in workflow state and is carried across continue-as-new.
 */

export type LedgerDecision = 'accepted' | 'duplicate' | 'stale' | 'conflict';

export interface LedgerVerdict {
  decision: LedgerDecision;
  reason: string;
  /**
   * For an accepted changelog: the label change still in force, without the operations a later accepted change of
   * the same label superseded. Commands are read from this, not from the delivery's own label change.
   */
  label_change?: LabelChange;
  /** What a later accepted change superseded (`+service:retry by the removal at revision 103`). */
  superseded?: string[];
}

interface ResourceRecord {
  /** Newest accepted revision for the resource. */
  revision: string;
  /** The identity and fingerprint accepted at that revision, to spot a different fact claiming the same revision. */
  identity: string;
  fingerprint: string;
}

export interface LedgerState {
  /** delivery identity -> fingerprint, oldest first (insertion order is the eviction order). */
  identities: Record<string, string>;
  identity_order: string[];
  /** `<source_system>:<kind>:<id>` -> newest accepted revision. */
  resources: Record<string, ResourceRecord>;
  resource_order: string[];
  /** `<resource>#<claim>` -> the identity that made the claim (bounded like the identities). */
  claims?: Record<string, string>;
  claim_order?: string[];
  /**
   * Tracker changelogs are ordered per field, not per issue: `<issue>|label:<name>` or `<issue>|field:<name>` ->
   * newest accepted revisions (see changelog-order.ts). Absent in states carried over from older builds.
   */
  fields?: Record<string, FieldRecord>;
  field_order?: string[];
  counts: Record<LedgerDecision, number>;
}

export const LEDGER_LIMITS = { identities: 2_000, resources: 1_000, fields: 2_000 } as const;

export function emptyLedger(): LedgerState {
  return { identities: {}, identity_order: [], resources: {}, resource_order: [], claims: {}, claim_order: [], fields: {}, field_order: [], counts: { accepted: 0, duplicate: 0, stale: 0, conflict: 0 } };
}

/**
 * Orders two revisions of one resource. Provider revisions are either numbers (Jira changelog ids) or ISO 8601 UTC
 * timestamps (normalised by the gateway to one format, so they compare as text). Numbers compare as numbers: "10"
 * is newer than "9".
 */
export function compareRevisions(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) {
    if (a.length !== b.length) return a.length - b.length;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function resourceKey(observation: Observation): string {
  return `${observation.source_system}:${observation.resource.kind}:${observation.resource.id}`;
}

/**
 * A comment's creation happens once and is a different fact from its edits: a creation that arrives after an edit
 * is still new (and may command, once), so it is not ordered against the comment's update times. A comment whose
 * update time equals its creation time was never edited; without both times, the provider's action says which.
 */
export function isCommentCreation(observation: Observation): boolean {
  const { comment, action } = observation.facts;
  if (!comment || action === 'edited') return false;
  if (comment.created !== undefined && comment.updated !== undefined) return comment.updated === comment.created;
  return action === 'created' || (comment.created !== undefined && comment.updated === undefined);
}

function classifyChangelog(ledger: LedgerState, observation: Observation): LedgerVerdict {
  const revision = observation.revision ?? '';
  const ordering = orderChangelog(ledger.fields ?? {}, observation, compareRevisions);
  const superseded = ordering.superseded.map((entry) => entry.by);
  if (ordering.operations.length > 0 && ordering.superseded.length === ordering.operations.length) {
    return { decision: 'stale', reason: `every change of changelog ${revision} on issue ${observation.resource.id} was superseded: ${superseded.join('; ')}`, superseded };
  }
  const partly = superseded.length > 0 ? `; superseded and not acted on: ${superseded.join('; ')}` : '';
  return {
    decision: 'accepted',
    reason: `new change at changelog ${revision} (ordered per field)${partly}`,
    ...(ordering.labelChange ? { label_change: ordering.labelChange } : {}),
    ...(superseded.length > 0 ? { superseded } : {}),
  };
}

/** Decides without changing the ledger. */
export function classifyObservation(ledger: LedgerState, observation: Observation): LedgerVerdict {
  const seen = ledger.identities[observation.delivery_identity];
  if (seen !== undefined) {
    return seen === observation.fingerprint
      ? { decision: 'duplicate', reason: `delivery ${observation.delivery_identity} was already accepted` }
      : { decision: 'conflict', reason: `delivery ${observation.delivery_identity} was accepted before with different content` };
  }
  if (observation.claim !== undefined) {
    const claimedBy = ledger.claims?.[`${resourceKey(observation)}#${observation.claim}`];
    if (claimedBy !== undefined && claimedBy !== observation.delivery_identity) {
      return { decision: 'conflict', reason: `${observation.resource.kind} ${observation.resource.id} was already ${observation.claim} as ${claimedBy}; ${observation.delivery_identity} contradicts it` };
    }
  }
  if (isChangelog(observation) && observation.revision !== null) return classifyChangelog(ledger, observation);
  if (isCommentCreation(observation)) return { decision: 'accepted', reason: `new comment ${observation.resource.id} (a creation is not ordered against the comment's edits)` };
  const revision = observation.revision;
  const known = ledger.resources[resourceKey(observation)];
  // Equal revisions are not ordered: provider clocks tick in seconds, and two real facts (opened, then merged by a
  // bot) can share one. Only what is strictly older is stale; contradictions are caught by identity and claims.
  if (revision !== null && known && compareRevisions(revision, known.revision) < 0) {
    return { decision: 'stale', reason: `revision ${revision} of ${observation.resource.kind} ${observation.resource.id} is older than accepted revision ${known.revision}` };
  }
  return { decision: 'accepted', reason: revision === null ? 'new fact (no provider revision; identified by its event identity)' : `new fact at revision ${revision}` };
}

function remember<T>(map: Record<string, T>, order: string[], key: string, value: T, limit: number): void {
  if (!(key in map)) order.push(key);
  map[key] = value;
  while (order.length > limit) {
    const evicted = order.shift();
    if (evicted !== undefined) delete map[evicted];
  }
}

function recordRevision(ledger: LedgerState, observation: Observation): void {
  if (observation.revision === null) return;
  if (isChangelog(observation)) {
    ledger.fields ??= {};
    ledger.field_order ??= [];
    const operations = orderChangelog(ledger.fields, observation, compareRevisions).operations;
    for (const [key, record] of recordedChangelog(ledger.fields, operations, observation.revision, compareRevisions)) {
      remember(ledger.fields, ledger.field_order, key, record, LEDGER_LIMITS.fields);
    }
    return;
  }
  if (isCommentCreation(observation)) return;
  const known = ledger.resources[resourceKey(observation)];
  if (!known || compareRevisions(observation.revision, known.revision) > 0) {
    remember(ledger.resources, ledger.resource_order, resourceKey(observation), {
      revision: observation.revision, identity: observation.delivery_identity, fingerprint: observation.fingerprint,
    }, LEDGER_LIMITS.resources);
  }
}

/** Classifies and records the decision. Only accepted facts move a resource's (or a field's) revision. */
export function applyObservation(ledger: LedgerState, observation: Observation): LedgerVerdict {
  const verdict = classifyObservation(ledger, observation);
  ledger.counts[verdict.decision] += 1;
  if (verdict.decision === 'accepted') {
    remember(ledger.identities, ledger.identity_order, observation.delivery_identity, observation.fingerprint, LEDGER_LIMITS.identities);
    recordRevision(ledger, observation);
    if (observation.claim !== undefined) {
      ledger.claims ??= {};
      ledger.claim_order ??= [];
      remember(ledger.claims, ledger.claim_order, `${resourceKey(observation)}#${observation.claim}`, observation.delivery_identity, LEDGER_LIMITS.identities);
    }
  }
  return verdict;
}
