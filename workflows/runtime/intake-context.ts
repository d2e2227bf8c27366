import type { TicketWorkflowInput } from '../ledger/observation';
import type { TicketDriver } from './ticket-driver';
import type { TicketState } from './ticket-state';

/**
 * What the command intake's steps work with: the run's input, the ticket's state and the driver members the intake
 * uses. Each step takes only the part it reads or writes (`Pick<IntakeContext, ...>`), so its signature says what it
 * can touch.
 */
export type IntakeContext = Pick<
  TicketDriver,
  | 'runtime' | 'artifacts' | 'outputs' | 'ticketKey' | 'publish' | 'timeline' | 'visit' | 'effect' | 'runIntents' | 'block' | 'reply'
  | 'decide' | 'decideNow' | 'actorAllowed' | 'ignoreUntrusted' | 'gateWaiting' | 'stopTicket' | 'definition' | 'accepts' | 'gates'
> & {
  input: TicketWorkflowInput;
  state: TicketState;
};

/**
 * The intake's context, taken from the driver once, when the handler is made. The pinned definition and its accept
 * and gate tables are asked of the driver at each use: an operator's migration swaps them while the run is idle.
 */
export function intakeContext(input: TicketWorkflowInput, state: TicketState, driver: TicketDriver): IntakeContext {
  const { runtime, artifacts, outputs, ticketKey, publish, timeline, visit, effect, runIntents, block, reply, decide, decideNow, actorAllowed, ignoreUntrusted, gateWaiting, stopTicket } = driver;
  return {
    input, state, runtime, artifacts, outputs, ticketKey, publish, timeline, visit, effect, runIntents, block, reply, decide, decideNow, actorAllowed, ignoreUntrusted, gateWaiting, stopTicket,
    definition: () => driver.definition(),
    accepts: () => driver.accepts(),
    gates: () => driver.gates(),
  };
}
