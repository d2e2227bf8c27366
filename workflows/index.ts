// The worker bundles this file: it must export every workflow function and nothing that does I/O.
export { ticketWorkflow } from './ticket';
export { pollWorkflow } from './poll';
export { definitionRegistryWorkflow } from './definition-registry';
