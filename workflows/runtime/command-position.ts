import type { CommandPosition } from '../person-commands/command-types';
import { draftIdsAtGate } from '../person-commands/draft-gate';
import { proposalPosition } from '../person-commands/proposal-review';
import { rcaOptionCount } from './routers';
import type { IntakeContext } from './intake-context';

/**
 * Where the ticket stands, as the command boundary (workflows/person-commands/) judges a delivery: one reading for the
 * intake's parse and the kill switch's judgement of a stop that arrives while a station runs. `overrides` are the
 * parts the caller judges itself (a corrected command reads the ticket as unblocked; the kill switch's patch).
 */
export function commandPositionOf(
  { input, state, runtime, outputs, definition, accepts, gates }: Pick<IntakeContext, 'input' | 'state' | 'runtime' | 'outputs' | 'definition' | 'accepts' | 'gates'>,
  overrides: Partial<Pick<CommandPosition, 'is_blocked' | 'kill_switch'>> = {},
): CommandPosition {
  const node = state.checkpoint.current_node;
  const here = definition()?.nodes[node];
  return {
    workflow_kind: input.workflow_kind,
    current_node: node,
    accepts: accepts(),
    gates: gates(),
    is_blocked: state.checkpoint.is_blocked,
    is_paused: state.checkpoint.is_paused,
    has_pull_request: state.pull_requests.length > 0,
    yolo: runtime.yolo,
    kill_switch: false,
    draft_item_ids: here?.kind === 'gate' && here.artifact ? draftIdsAtGate(here.artifact, outputs) : undefined,
    rca_option_count: here?.kind === 'gate' && here.gate === 'rca_option' ? rcaOptionCount(outputs) : undefined,
    ...proposalPosition(gates()[node]?.reviews_proposal, outputs, runtime),
    ...overrides,
  };
}
