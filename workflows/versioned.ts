// The bundle of a worker with Worker Deployment Versioning on (SERVICE_DEPLOYMENT_NAME + SERVICE_BUILD_ID): the same
// workflows as index.ts, with ticketWorkflow PINNED, so a ticket runs to its end on the build it started on (DESIGN 6)
// and moves only by an operator's migration. An unversioned worker must not declare a behavior (the server refuses
// its workflow tasks), so it bundles index.ts, where interpreter changes go behind patched() instead.
import { setWorkflowOptions } from '@temporalio/workflow';
import { ticketWorkflow } from './ticket';

setWorkflowOptions({ versioningBehavior: 'PINNED' }, ticketWorkflow);

export { ticketWorkflow };
export { pollWorkflow } from './polling/poll';
export { definitionRegistryWorkflow } from './registry/definition-registry';
export { endedTicketReplyWorkflow } from './ended-ticket-reply';
