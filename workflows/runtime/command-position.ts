import type { WorkflowDefinition } from '../built-in-definitions/definition-types';
import type { CommandPosition } from '../person-commands/command-types';
import { draftIdsAtGate } from '../person-commands/draft-gate';
import { proposalPosition } from '../person-commands/proposal-review';
import type { GateTraits } from './node-traits';
import { rcaOptionCount } from './routers';
import type { TicketState } from './ticket-state';

/** The pinned definition and the tables the command boundary reads of it (the driver keeps them; a view builds them). */
export interface PinnedTables {
  definition: WorkflowDefinition | null;
  accepts: Readonly<Record<string, readonly string[]>>;
  gates: Readonly<Record<string, GateTraits>>;
}

/**
 * Where the ticket stands, as the command boundary (workflows/person-commands/) judges a delivery: one reading for the
 * intake's parse, the kill switch's judgement of a stop that arrives while a station runs, and the execution view's
 * `permitted_commands`. `overrides` are the parts the caller judges itself (a corrected command reads the ticket as
 * unblocked; the kill switch's patch).
 */
export function commandPositionOf(
  state: Pick<TicketState, 'input' | 'checkpoint' | 'pull_requests' | 'runtime' | 'outputs'>,
  { definition, accepts, gates }: PinnedTables,
  overrides: Partial<Pick<CommandPosition, 'is_blocked' | 'kill_switch'>> = {},
): CommandPosition {
  const node = state.checkpoint.current_node;
  const spec = definition?.nodes[node];
  const here = spec?.kind === 'gate' ? spec : undefined;
  const outputs = state.outputs ?? {};
  return {
    workflow_kind: state.input.workflow_kind,
    current_node: node,
    accepts,
    gates,
    is_blocked: state.checkpoint.is_blocked,
    is_paused: state.checkpoint.is_paused,
    // A merged pull request still counts: what needs one (`/service rebase`) says itself that it is merged.
    has_pull_request: state.pull_requests.length > 0,
    yolo: state.runtime?.yolo ?? false,
    kill_switch: false,
    draft_item_ids: here?.artifact ? draftIdsAtGate(here.artifact, outputs) : undefined,
    rca_option_count: here?.gate === 'rca_option' ? rcaOptionCount(outputs) : undefined,
    ...proposalPosition(gates[node]?.reviews_proposal, outputs, state.runtime ?? {}),
    ...overrides,
  };
}
