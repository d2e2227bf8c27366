// The worker bundles this file: it must export every workflow function and nothing that does I/O.
import { setWorkflowOptions } from '@temporalio/workflow';
import { ticketWorkflow } from './ticket';

// With Worker Deployment Versioning on, a ticket runs to its end on the build it started on (DESIGN 6); an operator
// moves it only by migration. Without versioning this has no effect.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, ticketWorkflow);

export { ticketWorkflow };
export { pollWorkflow } from './poll';
export { definitionRegistryWorkflow } from './definition-registry';
