import { BUILT_IN_DEFINITIONS } from '../../workflows/built-in-definitions';
import type { PinnedDefinition } from '../../workflows/built-in-definitions/definition-types';
import type { WorkflowKind } from '../../workflows/ledger/observation';
import { pinDefinition } from './definition-digest';

/** REFERENCE: Feature and Story run the feature graph, Bug the bug graph, a standalone Task or Epic the takeover. */
const ROUTES: Readonly<Record<string, WorkflowKind>> = {
  feature: 'feature',
  story: 'feature',
  bug: 'bug',
  task: 'task_takeover',
  epic: 'task_takeover',
};

export type DefinitionRoute =
  | { ok: true; kind: WorkflowKind; definition: PinnedDefinition }
  | { ok: false; kind: WorkflowKind; reason: string };

const pinned = new Map<WorkflowKind, PinnedDefinition>();

/** The built-in definition a new ticket pins, by issue type; an unknown type has no route (SPEC 3.2). */
export function selectDefinition(issueType: string | null | undefined): DefinitionRoute {
  const type = (issueType ?? '').trim().toLowerCase();
  const kind = ROUTES[type];
  if (!kind) {
    return {
      ok: false,
      kind: 'task_takeover',
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
