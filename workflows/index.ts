// The worker bundles this file: it must export every workflow function and nothing that does I/O.
// A versioned worker bundles workflows/versioned.ts instead, which adds the PINNED declaration.
export { ticketWorkflow } from './ticket';
export { pollWorkflow } from './polling/poll';
export { definitionRegistryWorkflow } from './registry/definition-registry';
export { endedTicketReplyWorkflow } from './ended-ticket-reply';
