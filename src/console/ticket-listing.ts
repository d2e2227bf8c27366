import type { Client, Connection, WorkflowExecutionInfo } from '@temporalio/client';
import { searchAttributes, TICKET_WORKFLOW_TYPE, ticketWorkflowId } from '../../workflows/messages';
import { executionViewFromMemo } from '../../workflows/read-model/read-model-memo';
import { TemporalUnavailableError } from '../temporal/temporal-unavailable-error';
import type { ListedTicket } from './board/listed-ticket';

/** What the console reads of the ticket workflows: read-only, from visibility and the read model in the memo. */
export interface ConsoleTicketsPort {
  /** Ticket workflows still running, and those that ended in the last `days` days. */
  list(days: number): Promise<ListedTicket[]>;
  /** One ticket's workflow as the board lists it; undefined when the ticket has none. */
  get(ticketKey: string): Promise<ListedTicket | undefined>;
}

/** A listed workflow execution as the console's ticket; undefined for executions that are not tickets. */
export function listedTicketOf(execution: Pick<WorkflowExecutionInfo, 'workflowId' | 'status' | 'startTime' | 'closeTime' | 'memo' | 'typedSearchAttributes'>): ListedTicket | undefined {
  const attributes = execution.typedSearchAttributes;
  const ticketKey = attributes.get(searchAttributes.ticketKey);
  if (!ticketKey) return undefined;
  return {
    ticketKey,
    workflowId: execution.workflowId,
    runStatus: execution.status.name,
    startedAt: execution.startTime.toISOString(),
    closedAt: execution.closeTime?.toISOString() ?? null,
    attributes: {
      status: attributes.get(searchAttributes.status),
      node: attributes.get(searchAttributes.node),
      blocked: attributes.get(searchAttributes.blocked),
      kind: attributes.get(searchAttributes.workflowType),
      pullRequests: attributes.get(searchAttributes.pullRequests) ?? [],
    },
    view: executionViewFromMemo(execution.memo),
  };
}

/**
 * The visibility query of the board. Runs that continued as new are left out (their successor is listed); the task
 * queue keeps another deployment sharing the namespace out.
 */
export function boardQuery(taskQueue: string, since: Date): string {
  return [
    `WorkflowType = ${JSON.stringify(TICKET_WORKFLOW_TYPE)}`,
    `TaskQueue = ${JSON.stringify(taskQueue)}`,
    `(ExecutionStatus = 'Running' OR CloseTime > ${JSON.stringify(since.toISOString())})`,
    `ExecutionStatus != 'ContinuedAsNew'`,
  ].join(' AND ');
}

/** One entry per ticket: a running run wins over an ended one, a newer start over an older. */
export function latestPerTicket(tickets: Iterable<ListedTicket>): ListedTicket[] {
  const byKey = new Map<string, ListedTicket>();
  for (const ticket of tickets) {
    const held = byKey.get(ticket.ticketKey);
    const running = (t: ListedTicket) => (t.runStatus === 'RUNNING' ? 1 : 0);
    const better = !held || running(ticket) > running(held) || (running(ticket) === running(held) && ticket.startedAt > held.startedAt);
    if (better) byKey.set(ticket.ticketKey, ticket);
  }
  return [...byKey.values()];
}

/**
 * The board's listing from Temporal visibility: one ListWorkflowExecutions walk that carries each run's memo, so no
 * workflow is described or queried and the worker is not involved. Bounded by one deadline, as the census is.
 * Several browsers refreshing at once share one listing, and a listing younger than `maxAgeMs` is served again.
 */
export class TemporalTicketListing implements ConsoleTicketsPort {
  private cached: { at: number; days: number; tickets: Promise<ListedTicket[]> } | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly options: { deadlineMs?: number; maxAgeMs?: number; now?: () => number } = {},
  ) {}

  list(days: number): Promise<ListedTicket[]> {
    const now = this.options.now?.() ?? Date.now();
    if (this.cached && this.cached.days === days && now - this.cached.at < (this.options.maxAgeMs ?? 2_000)) return this.cached.tickets;
    const tickets = this.walk(new Date(now - days * 86_400_000));
    this.cached = { at: now, days, tickets };
    tickets.catch(() => { if (this.cached?.tickets === tickets) this.cached = undefined; });
    return tickets;
  }

  private async walk(since: Date): Promise<ListedTicket[]> {
    const query = boardQuery(this.taskQueue, since);
    return this.bounded('the ticket listing', async () => {
      const found: ListedTicket[] = [];
      for await (const execution of this.client.workflow.list({ query, pageSize: 1000 })) {
        const ticket = listedTicketOf(execution);
        if (ticket) found.push(ticket);
      }
      return latestPerTicket(found);
    });
  }

  async get(ticketKey: string): Promise<ListedTicket | undefined> {
    const query = `WorkflowId = ${JSON.stringify(ticketWorkflowId(ticketKey))} AND ExecutionStatus != 'ContinuedAsNew'`;
    return this.bounded(`the workflow of ${ticketKey}`, async () => {
      const found: ListedTicket[] = [];
      for await (const execution of this.client.workflow.list({ query, pageSize: 20 })) {
        const ticket = listedTicketOf(execution);
        if (ticket) found.push(ticket);
      }
      return latestPerTicket(found)[0];
    });
  }

  private async bounded<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.connection.withDeadline(Date.now() + (this.options.deadlineMs ?? 10_000), fn);
    } catch (error) {
      throw new TemporalUnavailableError(`Temporal visibility did not answer ${what}: ${(error as Error).message}`, { cause: error });
    }
  }
}
