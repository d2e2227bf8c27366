import { RETURN_TARGET, type WorkflowDefinition } from '../built-in-definitions/definition-types';
import type { Position, Transition } from './step-types';

/** The node a ticket goes to when a retry bound runs out and the node names none (`on_exhausted`). */
export const ESCALATE_NODE = 'escalate_blocked';
export const DEFAULT_EXHAUSTED_CODE = 'retry_bound_exhausted';

/** `returned`: the target is where a detour (`$return`) goes back to, not a node the outcome names. */
export type Resolution = { ok: true; target: string; returned: boolean } | { ok: false; reason: string };

/** Where `outcome` at `from` leads in the definition; `$return` goes back to the node that sent the ticket here. */
export function resolveOutcome(definition: WorkflowDefinition, returnTo: string | null, from: string, outcome: string): Resolution {
  const node = definition.nodes[from];
  if (!node || node.kind === 'end') return { ok: false, reason: `${from} is not a node that leads anywhere in ${definition.name} r${definition.revision}` };
  const target = node.on[outcome];
  if (target === undefined) {
    return { ok: false, reason: `${from} has no transition for outcome "${outcome}" in ${definition.name} r${definition.revision} (it maps: ${Object.keys(node.on).join(', ')})` };
  }
  if (target === RETURN_TARGET) {
    return returnTo ? { ok: true, target: returnTo, returned: true } : { ok: false, reason: `${from} returns to the node that sent the ticket here, but none is recorded` };
  }
  return { ok: true, target, returned: false };
}

/**
 * The position after entering `target`: the visit is counted, and a station's retry bound applies (exhausted: the
 * escalation node instead, with the bounded node kept for service:retry). A gate pauses once its label is set.
 * `countsBound: false` enters without counting against the bound (the ticket comes back from a detour it did not fail).
 */
export function enter(definition: WorkflowDefinition, position: Position, target: string, countsBound = true): { position: Position; visit: number; exhausted?: Transition['exhausted'] } {
  const spec = definition.nodes[target];
  let node = target;
  let exhausted: Transition['exhausted'];
  let boundCounts = position.bound_counts;
  let resumeAt = position.resume_at;
  if (spec?.kind === 'station' && spec.retry_bound !== undefined && countsBound) {
    const count = (boundCounts[target] ?? 0) + 1;
    if (count > spec.retry_bound) {
      node = spec.on_exhausted ?? ESCALATE_NODE;
      exhausted = { node: target, bound: spec.retry_bound, code: spec.exhausted_code ?? DEFAULT_EXHAUSTED_CODE };
      resumeAt = target;
    } else {
      boundCounts = { ...boundCounts, [target]: count };
    }
  }
  const visit = (position.visits[node] ?? 0) + 1;
  return {
    position: { ...position, node, paused: false, visits: { ...position.visits, [node]: visit }, bound_counts: boundCounts, resume_at: resumeAt },
    visit,
    ...(exhausted ? { exhausted } : {}),
  };
}
