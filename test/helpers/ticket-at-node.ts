import type { WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import type { WorkflowKind } from '../../workflows/ledger/observation';
import { initialRuntime, initialTicketState, type TicketState } from '../../workflows/runtime/ticket-state';

/** A ticket pinned to `body`, standing at `node`: paused there (and waiting) when it is a gate, running otherwise. */
export function ticketAtNode(body: WorkflowDefinition, kind: WorkflowKind, node: string, now = '2026-11-27T10:00:00.000Z'): TicketState {
  const state = initialTicketState({ ticket_key: 'SBX-1', project_key: 'SBX', issue_type: 'Feature', workflow_kind: kind }, 'run', now);
  state.definition = { name: body.name, revision: body.revision, digest: 'digest', body };
  state.runtime = initialRuntime(now);
  state.outputs = {};
  state.checkpoint.current_node = node;
  state.checkpoint.is_paused = body.nodes[node]?.kind === 'gate';
  state.status = state.checkpoint.is_paused ? 'waiting' : 'running';
  return state;
}
