import { BUILT_IN_DEFINITIONS } from '../built-in-definitions';
import type { PinnedDefinition, WorkflowDefinition } from '../built-in-definitions/definition-types';

/**
 * The definition registry's state (DESIGN 6): published revisions of custom definitions, kept by a long-lived
 * workflow in Temporal itself. Pure functions, so the publish rules are unit-tested without Temporal and the
 * registry workflow replays deterministically. Bodies were validated and digested outside workflow code.
 */

export interface PublishedRevision extends PinnedDefinition {
  published_at: string;
  published_by: string;
}

export interface RegistryState {
  /** Every kept revision, oldest first per name. */
  revisions: PublishedRevision[];
}

export interface PublishRequest {
  definition: PinnedDefinition;
  published_by: string;
}

export interface PublishResult {
  /** false: this revision with this digest was already published (publishing is idempotent). */
  created: boolean;
  name: string;
  revision: number;
  digest: string;
  published_at: string;
}

/** One line of `service definitions list` and `GET /api/v1/definitions`. */
export interface DefinitionSummary {
  name: string;
  revision: number;
  digest: string;
  source: 'built_in' | 'published';
  published_at: string | null;
  published_by: string | null;
  /** The revision a new ticket of this name pins. */
  latest: boolean;
  description: string | null;
}

/** Revisions kept per name: enough to migrate back a few steps while the state stays a small payload. */
export const REVISIONS_KEPT_PER_NAME = 20;

export type PublishDecision =
  | { type: 'publish' }
  | { type: 'existing'; revision: PublishedRevision }
  | { type: 'refuse'; reason: string };

export function emptyRegistry(): RegistryState {
  return { revisions: [] };
}

const BUILT_INS: Readonly<Record<string, WorkflowDefinition>> = Object.fromEntries(Object.values(BUILT_IN_DEFINITIONS).map((d) => [d.name, d]));

/** The newest published revision of `name`, if any. */
export function latestPublished(state: RegistryState, name: string): PublishedRevision | undefined {
  let latest: PublishedRevision | undefined;
  for (const revision of state.revisions) if (revision.name === name && (!latest || revision.revision > latest.revision)) latest = revision;
  return latest;
}

/**
 * Whether a publish may happen: only names a ticket can select (the built-in definitions' names), revisions that
 * increase past the built-in and every published one, and the same revision again only with the same digest.
 */
export function decidePublish(state: RegistryState, definition: PinnedDefinition): PublishDecision {
  const { name, revision, digest, body } = definition;
  if (body.name !== name || body.revision !== revision) return { type: 'refuse', reason: `the pinned name and revision (${name} r${revision}) differ from the body's (${body.name} r${body.revision})` };
  if (!/^[0-9a-f]{64}$/.test(digest)) return { type: 'refuse', reason: `digest "${digest}" is not a sha256 hex digest` };
  const builtIn = BUILT_INS[name];
  if (!builtIn) {
    return { type: 'refuse', reason: `no issue type selects a definition named "${name}"; publish a revision of ${Object.keys(BUILT_INS).sort().join(', ')}` };
  }
  const same = state.revisions.find((r) => r.name === name && r.revision === revision);
  if (same) {
    if (same.digest === digest) return { type: 'existing', revision: same };
    return { type: 'refuse', reason: `${name} r${revision} is already published with digest ${same.digest.slice(0, 12)}…; publish the change as r${nextRevision(state, name)}` };
  }
  const published = latestPublished(state, name)?.revision ?? 0;
  const latest = Math.max(builtIn.revision, published);
  if (revision <= latest) return { type: 'refuse', reason: `${name} r${revision} is not newer than the latest revision, r${latest}${published < builtIn.revision ? ' (built in)' : ''}; publish it as r${latest + 1}` };
  return { type: 'publish' };
}

export function nextRevision(state: RegistryState, name: string): number {
  return Math.max(BUILT_INS[name]?.revision ?? 0, latestPublished(state, name)?.revision ?? 0) + 1;
}

/** Adds a revision and drops the oldest of its name beyond REVISIONS_KEPT_PER_NAME. */
export function addRevision(state: RegistryState, revision: PublishedRevision, keep = REVISIONS_KEPT_PER_NAME): void {
  state.revisions.push(revision);
  const ofName = state.revisions.filter((r) => r.name === revision.name).sort((a, b) => a.revision - b.revision);
  const drop = new Set(ofName.slice(0, Math.max(0, ofName.length - keep)));
  if (drop.size > 0) state.revisions = state.revisions.filter((r) => !drop.has(r));
}

/** Built-in and published revisions, by name then revision; `latest` marks what a new ticket pins. */
export function summarize(state: RegistryState, builtIns: readonly PinnedDefinition[]): DefinitionSummary[] {
  const rows: DefinitionSummary[] = [
    ...builtIns.map((d) => ({ name: d.name, revision: d.revision, digest: d.digest, source: 'built_in' as const, published_at: null, published_by: null, latest: false, description: d.body.description ?? null })),
    ...state.revisions.map((r) => ({ name: r.name, revision: r.revision, digest: r.digest, source: 'published' as const, published_at: r.published_at, published_by: r.published_by, latest: false, description: r.body.description ?? null })),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.revision - b.revision));
  const newest = new Map<string, DefinitionSummary>();
  for (const row of rows) newest.set(row.name, row);
  for (const row of newest.values()) row.latest = true;
  return rows;
}

/** The newest published revision of every name: what the registry's memo carries for ticket starts. */
export function latestOfEach(state: RegistryState): Record<string, PinnedDefinition> {
  const latest: Record<string, PinnedDefinition> = {};
  for (const r of state.revisions) {
    if (!latest[r.name] || latest[r.name]!.revision < r.revision) latest[r.name] = { name: r.name, revision: r.revision, digest: r.digest, body: r.body };
  }
  return latest;
}
