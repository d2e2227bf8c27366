import { commandsAcceptedHere, nodeAccepts, RETURN_TARGET, type DefinitionNode, type PinnedDefinition, type WorkflowDefinition } from '../built-in-definitions/definition-types';
import type { MigrationDecision, MigrationRequest } from './migration-messages';
import { triggerLabelOf } from '../vocabulary/command-words';
import type { TicketState } from '../runtime/ticket-state';
import type { Position } from '../runtime/step-types';
import { gateTraits, reviewRetryTarget, stationTraits } from '../runtime/node-traits';

/**
 * Compatibility analysis for moving a run to another revision of its definition (DESIGN 6, SPEC 2.5 and 9): pure,
 * so the same function answers a dry run, guards an applied migration inside the workflow and is unit-tested alone.
 * A run moves only while it rests (paused at a gate or blocked), and only when every node it will come back to
 * (where it stands, where an answer returns, where service:retry resumes) exists in the new revision unchanged, or is
 * placed there by an explicit mapping to a node of the same kind.
 */

export interface MigrationPosition {
  current_node: string;
  is_paused: boolean;
  is_blocked: boolean;
  ended: 'completed' | null;
  return_to: string | null;
  resume_at: string | null;
}

export interface MigrationAnalysis {
  eligible: boolean;
  incompatibilities: string[];
  target_node: string | null;
  /** Old node → new node for every node the run refers to that the mapping renames. */
  renames: Record<string, string>;
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What changed in a node between two revisions, for people: `on.approved: generate_spec → done`. */
export function describeNodeChange(before: DefinitionNode, after: DefinitionNode): string[] {
  const changes: string[] = [];
  const a = before as unknown as Record<string, unknown>;
  const b = after as unknown as Record<string, unknown>;
  for (const field of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (stable(a[field]) === stable(b[field])) continue;
    if (field === 'on') {
      const on1 = (a.on ?? {}) as Record<string, string>;
      const on2 = (b.on ?? {}) as Record<string, string>;
      for (const outcome of [...new Set([...Object.keys(on1), ...Object.keys(on2)])].sort()) {
        if (on1[outcome] !== on2[outcome]) changes.push(`on.${outcome}: ${on1[outcome] ?? '(none)'} → ${on2[outcome] ?? '(none)'}`);
      }
    } else {
      changes.push(`${field}: ${a[field] === undefined ? '(none)' : stable(a[field])} → ${b[field] === undefined ? '(none)' : stable(b[field])}`);
    }
  }
  return changes;
}

/**
 * The node's `accepts` in one spelling whichever the body uses (an absent list stays absent), so a revision that
 * names the same triggers by id where the pinned one names them by their legacy labels is no change. The spelling is
 * the labels: one-to-one with the ids, so comparing them is comparing ids, and a change listed for people names the
 * triggers as people know them (as it did before ids).
 */
function withTriggersSpelledOneWay<T extends DefinitionNode>(node: T): T {
  if (node.kind === 'end' || node.accepts === undefined) return node;
  return { ...node, accepts: nodeAccepts(node).map(triggerLabelOf) };
}

/**
 * The node with the behaviour it has by its name written out (node-traits.ts), so a revision that declares what a
 * node already did (a built-in body pinned before the fields, and its successor that states them) is no change.
 * Its triggers are spelled one way for the same reason.
 */
function withTraits(id: string, spelled: DefinitionNode): DefinitionNode {
  const node = withTriggersSpelledOneWay(spelled);
  if (node.kind === 'gate') {
    const traits = gateTraits(id, node);
    return { ...node, reviews_proposal: traits.reviews_proposal ?? undefined, feedback_retriages: traits.feedback_retriages, retry_to: reviewRetryTarget(node) };
  }
  if (node.kind === 'station') {
    const traits = stationTraits(node);
    return { ...node, ...traits, resets_ci_fix_attempts_on: traits.resets_ci_fix_attempts_on ?? undefined };
  }
  return node;
}

/** Whether a run resting at `before` may rest at `after` instead: same kind, and for a gate the same gate and artifact. */
function kindProblem(before: DefinitionNode, after: DefinitionNode): string | null {
  if (before.kind !== after.kind) return `a ${before.kind} cannot become a ${after.kind}`;
  if (before.kind === 'gate' && after.kind === 'gate') {
    if (before.gate !== after.gate) return `a ${before.gate} gate cannot become a ${after.gate} gate`;
    if (before.artifact !== after.artifact) return `the gate shows ${before.artifact ?? 'no artifact'}, the new one ${after.artifact ?? 'no artifact'}`;
    if (before.pending_label !== after.pending_label) return `the gate's label ${before.pending_label ?? '(none)'} would become ${after.pending_label ?? '(none)'}`;
  }
  if (before.kind === 'end' && after.kind === 'end' && before.result !== after.result) return `a ${before.result} end cannot become a ${after.result} end`;
  return null;
}

const label = (d: Pick<WorkflowDefinition, 'name' | 'revision'>) => `${d.name} r${d.revision}`;

export function analyzeMigration(from: PinnedDefinition, to: PinnedDefinition, position: MigrationPosition, mapping: Record<string, string>): MigrationAnalysis {
  const problems: string[] = [];
  const renames: Record<string, string> = {};
  const refuse = (problem: string): MigrationAnalysis => ({ eligible: false, incompatibilities: [problem], target_node: null, renames: {} });
  if (to.name !== from.name) return refuse(`${label(to)} is not a revision of ${from.name}, the definition this ticket runs`);
  if (to.digest === from.digest) return refuse(`the ticket already runs ${label(to)} (digest ${to.digest.slice(0, 12)}…)`);
  if (position.ended === 'completed') return refuse(`the ticket completed at ${position.current_node}; there is nothing to migrate`);
  if (!position.is_paused && !position.is_blocked) {
    problems.push(`the ticket is working at ${position.current_node}; migrate while it waits at a gate or is blocked`);
  }
  for (const [old, next] of Object.entries(mapping)) {
    if (!from.body.nodes[old]) problems.push(`--map ${old}=${next}: ${old} is not a node of ${label(from)}`);
    if (!to.body.nodes[next]) problems.push(`--map ${old}=${next}: ${next} is not a node of ${label(to)}`);
  }
  // The nodes the run will come back to: where it stands, where a detour returns (only while on one), and where
  // service:retry resumes after an escalation (only while escalated).
  const here = from.body.nodes[position.current_node];
  const places: Array<[string, string]> = [[position.current_node, 'the ticket stands at']];
  if (position.return_to && here && here.kind !== 'end' && Object.values(here.on).includes(RETURN_TARGET)) places.push([position.return_to, 'the ticket returns to']);
  if (position.resume_at && here?.kind === 'end') places.push([position.resume_at, 'service:retry resumes at']);
  for (const [node, role] of places) {
    const explicit = mapping[node];
    const target = explicit ?? node;
    const before = from.body.nodes[node];
    const after = to.body.nodes[target];
    if (!before) {
      problems.push(`${role} ${node}, which is not a node of ${label(from)}`);
      continue;
    }
    if (!after) {
      if (!explicit) problems.push(`${role} ${node}, which ${label(to)} does not have: map it with --map ${node}=<node of r${to.revision}>`);
      continue;
    }
    const kind = kindProblem(before, after);
    if (kind) {
      problems.push(`${role} ${node}, mapped to ${target}: ${kind}`);
      continue;
    }
    if (!explicit) {
      const changes = describeNodeChange(withTraits(node, before), withTraits(node, after));
      if (changes.length > 0) problems.push(`${role} ${node}, which changed in ${label(to)} (${changes.join('; ')}): confirm where it stands with --map ${node}=<node of r${to.revision}>`);
    }
    if (target !== node) renames[node] = target;
  }
  const eligible = problems.length === 0;
  return { eligible, incompatibilities: problems, target_node: eligible ? (renames[position.current_node] ?? position.current_node) : null, renames: eligible ? renames : {} };
}

export function migrationPosition(state: TicketState): MigrationPosition {
  return {
    current_node: state.checkpoint.current_node,
    is_paused: state.checkpoint.is_paused,
    is_blocked: state.checkpoint.is_blocked,
    ended: state.runtime?.ended ?? null,
    return_to: state.runtime?.return_to ?? null,
    resume_at: state.runtime?.resume_at ?? null,
  };
}

/** The decision on a request, from the run's own state: a dry run, a refusal, or a migration to apply. */
export function decideMigration(state: TicketState, request: MigrationRequest, now: string): { decision: MigrationDecision; analysis: MigrationAnalysis } {
  const from = state.definition!;
  const analysis = analyzeMigration(from, request.to, migrationPosition(state), request.mapping);
  return {
    analysis,
    decision: {
      eligible: analysis.eligible,
      incompatibilities: analysis.incompatibilities,
      from: { name: from.name, revision: from.revision, digest: from.digest },
      to: { name: request.to.name, revision: request.to.revision, digest: request.to.digest },
      mapping: { ...request.mapping },
      current_node: state.checkpoint.current_node,
      target_node: analysis.target_node,
      dry_run: !request.apply,
      applied: request.apply && analysis.eligible,
      requested_by: request.requested_by,
      decided_at: now,
    },
  };
}

function renameKeys(counts: Record<string, number>, renames: Record<string, string>): void {
  for (const [old, next] of Object.entries(renames)) {
    if (counts[old] === undefined) continue;
    counts[next] = Math.max(counts[next] ?? 0, counts[old]!);
    delete counts[old];
  }
}

/**
 * Where an eligible run stands in the new revision: at the mapped node, with the nodes it returns to renamed, and
 * the visit and retry-bound counts moved with their node (so effect keys stay unique). Pure: `step` (event
 * `migrated`) asks it, and the driver writes the position as any other.
 */
export function migratedPosition(position: Position, analysis: Pick<MigrationAnalysis, 'target_node' | 'renames'>): Position {
  const { renames } = analysis;
  const visits = { ...position.visits };
  const boundCounts = { ...position.bound_counts };
  renameKeys(visits, renames);
  renameKeys(boundCounts, renames);
  return {
    ...position,
    node: analysis.target_node ?? position.node,
    visits,
    bound_counts: boundCounts,
    return_to: position.return_to ? renames[position.return_to] ?? position.return_to : position.return_to,
    resume_at: position.resume_at ? renames[position.resume_at] ?? position.resume_at : position.resume_at,
  };
}

/**
 * Swaps the pinned definition of an eligible run; a paused gate waits as the new one. The position follows in the
 * step that comes next (`migrated`, with the analysis): only `step` moves a ticket.
 */
export function applyMigration(state: TicketState, to: PinnedDefinition, analysis: MigrationAnalysis): void {
  state.definition = to;
  const node = analysis.target_node ?? state.checkpoint.current_node;
  const here = to.body.nodes[node];
  if (state.checkpoint.is_paused && !state.checkpoint.is_blocked && here?.kind === 'gate' && state.waiting) {
    state.waiting = { ...state.waiting, message: here.waiting_for ?? `waiting at ${node}`, recovery: commandsAcceptedHere(here) };
  }
}
