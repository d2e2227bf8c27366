import type { ExecutionView } from '../../../workflows/read-model/execution-view';

/**
 * One ticket workflow as Temporal visibility lists it: its search attributes, and the execution view from the read
 * model in its memo when the memo holds a current one (workflows/read-model/read-model-memo.ts). A workflow at work
 * marks its memo busy; then only the search attributes say where it stands.
 */
export interface ListedTicket {
  ticketKey: string;
  workflowId: string;
  /** Temporal's status of the run: RUNNING, COMPLETED, TERMINATED, FAILED, ... */
  runStatus: string;
  startedAt: string;
  closedAt: string | null;
  attributes: { status?: string; node?: string; blocked?: boolean; kind?: string; pullRequests: string[] };
  view: ExecutionView | undefined;
}
