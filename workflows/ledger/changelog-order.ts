import type { LabelChange, Observation } from './observation';

/**
 * Orders tracker changelogs per field, not per issue. Every changelog of an issue shares one revision counter, but
 * each is its own change: a labels change (changelog 101) that arrives after an edit of the summary (changelog 102)
 * is not older than anything it touches, and dropping it would lose an approval or a retry request. So each change
 * is ordered only against later accepted changes of the same field, and labels as set operations: adding a label is
 * superseded only by a later accepted removal of that label, and a removal only by a later accepted addition.
 *
 * Pure workflow code: the record keeps revisions per field (never values), so it stays small.
 */

/** Newest accepted revisions of one field: `added`/`removed` for a label, `changed` for any other field. */
export interface FieldRecord {
  added?: string;
  removed?: string;
  changed?: string;
}

type OperationKind = keyof FieldRecord;

export interface FieldOperation {
  /** `<issue>|label:<name>` or `<issue>|field:<name>`. */
  key: string;
  kind: OperationKind;
  /** What a person reads: `+service:retry`, `-service:blocked`, `summary`. */
  name: string;
  label?: string;
}

export interface ChangelogOrdering {
  operations: FieldOperation[];
  /** Operations a later accepted change of the same field supersedes, each with why. */
  superseded: Array<{ operation: FieldOperation; by: string }>;
  /** The label change still in force (the superseded operations removed); undefined when the changelog had none. */
  labelChange: LabelChange | undefined;
}

export function isChangelog(observation: Observation): boolean {
  return observation.source_system === 'tracker' && observation.resource.kind === 'issue_changelog';
}

export function changelogOperations(observation: Observation): FieldOperation[] {
  const issue = observation.resource.id;
  const change = observation.facts.label_change;
  const labels = (kind: 'added' | 'removed', sign: string) => (change?.[kind] ?? []).map((label) => ({ key: `${issue}|label:${label}`, kind, name: `${sign}${label}`, label }));
  const fields = (observation.facts.changed_fields ?? [])
    .map((field) => field.toLowerCase())
    .filter((field) => field !== 'labels')
    .map((field) => ({ key: `${issue}|field:${field}`, kind: 'changed' as const, name: field }));
  return [...labels('added', '+'), ...labels('removed', '-'), ...fields];
}

/** The kind of a later accepted operation that supersedes this one. */
const SUPERSEDED_BY: Record<OperationKind, OperationKind> = { added: 'removed', removed: 'added', changed: 'changed' };

export function orderChangelog(
  fields: Readonly<Record<string, FieldRecord>>,
  observation: Observation,
  compare: (a: string, b: string) => number,
): ChangelogOrdering {
  const revision = observation.revision ?? '';
  const operations = changelogOperations(observation);
  const superseded: ChangelogOrdering['superseded'] = [];
  for (const operation of operations) {
    const later = fields[operation.key]?.[SUPERSEDED_BY[operation.kind]];
    if (later !== undefined && compare(later, revision) > 0) {
      const what = operation.kind === 'added' ? 'removal' : operation.kind === 'removed' ? 'addition' : 'change';
      superseded.push({ operation, by: `${operation.name} by the ${what} at revision ${later}` });
    }
  }
  const change = observation.facts.label_change;
  const gone = new Set(superseded.map((entry) => entry.operation.name));
  const labelChange = change && {
    added: change.added.filter((label) => !gone.has(`+${label}`)),
    removed: change.removed.filter((label) => !gone.has(`-${label}`)),
  };
  return { operations, superseded, labelChange };
}

/** The records an accepted changelog leaves: each field keeps the newest revision of each kind of change. */
export function recordedChangelog(
  fields: Readonly<Record<string, FieldRecord>>,
  operations: FieldOperation[],
  revision: string,
  compare: (a: string, b: string) => number,
): Array<[string, FieldRecord]> {
  const updated = new Map<string, FieldRecord>();
  for (const operation of operations) {
    const record = { ...(updated.get(operation.key) ?? fields[operation.key]) };
    const known = record[operation.kind];
    if (known === undefined || compare(revision, known) > 0) record[operation.kind] = revision;
    updated.set(operation.key, record);
  }
  return [...updated];
}
