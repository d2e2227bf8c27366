import { BUILT_IN_DEFINITIONS } from '../../workflows/built-in-definitions';
import type { PinnedDefinition } from '../../workflows/built-in-definitions/definition-types';
import type { WorkflowKind } from '../../workflows/ledger/observation';
import { pinDefinition } from './definition-digest';

/**
 * REFERENCE: Feature and Story run the feature graph, Bug the bug graph, a standalone Task or Epic the takeover. The
 * one issue-type rule: the gateway names the workflow by it (`workflowKindFor`) and the workflow pins by it.
 */
const ROUTES: Readonly<Record<string, WorkflowKind>> = {
  feature: 'feature',
  story: 'feature',
  bug: 'bug',
  task: 'task_takeover',
  epic: 'task_takeover',
};

/** A type with no route is started as a takeover, whose workflow then blocks on `selectDefinition`'s reason. */
const UNROUTED_KIND: WorkflowKind = 'task_takeover';

function routeOf(issueType: string | null | undefined): WorkflowKind | undefined {
  return ROUTES[(issueType ?? '').trim().toLowerCase()];
}

/** The kind of workflow the gateway starts for a new ticket of this issue type. */
export function workflowKindFor(issueType: string | null | undefined): WorkflowKind {
  return routeOf(issueType) ?? UNROUTED_KIND;
}

export type DefinitionRoute =
  | { ok: true; kind: WorkflowKind; definition: PinnedDefinition }
  | { ok: false; kind: WorkflowKind; reason: string };

const pinned = new Map<WorkflowKind, PinnedDefinition>();

/** The built-in definition a new ticket pins, by issue type; an unknown type has no route (SPEC 3.2). */
export function selectDefinition(issueType: string | null | undefined): DefinitionRoute {
  const kind = routeOf(issueType);
  if (!kind) {
    return {
      ok: false,
      kind: UNROUTED_KIND,
      reason: `no workflow definition for issue type "${issueType ?? ''}" (routes: Feature and Story → feature, Bug → bug, Task and Epic → task_takeover)`,
    };
  }
  let definition = pinned.get(kind);
  if (!definition) {
    definition = pinDefinition(BUILT_IN_DEFINITIONS[kind]);
    pinned.set(kind, definition);
  }
  return { ok: true, kind, definition };
}
