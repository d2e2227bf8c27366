import type { Client, Connection, WorkflowExecutionInfo } from '@temporalio/client';
import { defaultPayloadConverter, TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { searchAttributes, TICKET_WORKFLOW_TYPE, ticketWorkflowId } from '../../workflows/messages';
import { executionViewFromMemo, isExecutionViewKey } from '../../workflows/read-model/read-model-memo';
import { TemporalUnavailableError } from '../temporal/temporal-unavailable-error';
import type { ListedTicket } from './board/listed-ticket';
import { boardTicketOf, type BoardTicket } from './board/board-ticket';
import { ListingCache, type ListingCacheOptions, type TicketListing } from './listing-cache';

export type { TicketListing } from './listing-cache';

/** What the console reads of the ticket workflows: read-only, from visibility and the read model in the memo. */
export interface ConsoleTicketsPort {
  /** Ticket workflows still running, and those that ended in the last `days` days (as the board shows them), as of when they were listed. */
  list(days: number): Promise<TicketListing>;
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

type RawExecution = temporal.api.workflow.v1.IWorkflowExecutionInfo;
const STATUS_PREFIX = 'WORKFLOW_EXECUTION_STATUS_';

function dateOf(timestamp: temporal.api.workflow.v1.IWorkflowExecutionInfo['startTime']): Date | undefined {
  if (!timestamp) return undefined;
  const seconds = typeof timestamp.seconds === 'number' ? timestamp.seconds : Number(timestamp.seconds?.toString() ?? 0);
  return new Date(seconds * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6));
}

/**
 * A listed execution as the gRPC answer carries it, decoded as far as the board reads it: the ticket's search
 * attributes, and of the memo only the read model's header and view (its timeline chunks, most of the memo's bytes,
 * are left undecoded). The SDK's own listing decodes every memo field of every execution through the data converter
 * and keeps the raw answer beside it: at 10,000 tickets that was four times the CPU of this. The service uses the
 * default data converter (JSON payloads); a payload codec would need decoding here too.
 */
export function listedTicketOfRaw(raw: RawExecution): ListedTicket | undefined {
  const fields = raw.searchAttributes?.indexedFields ?? {};
  const pairs: SearchAttributePair[] = [];
  for (const key of Object.values(searchAttributes)) {
    const payload = fields[key.name];
    if (payload) pairs.push({ key, value: defaultPayloadConverter.fromPayload(payload) } as SearchAttributePair);
  }
  const memo: Record<string, unknown> = {};
  for (const [key, payload] of Object.entries(raw.memo?.fields ?? {})) {
    if (isExecutionViewKey(key)) memo[key] = defaultPayloadConverter.fromPayload(payload);
  }
  const statusName = (temporal.api.enums.v1.WorkflowExecutionStatus[raw.status ?? 0] ?? 'UNKNOWN').replace(STATUS_PREFIX, '');
  return listedTicketOf({
    workflowId: raw.execution?.workflowId ?? '',
    status: { code: raw.status ?? 0, name: (statusName === 'CANCELED' ? 'CANCELLED' : statusName) as WorkflowExecutionInfo['status']['name'] },
    startTime: dateOf(raw.startTime) ?? new Date(0),
    closeTime: dateOf(raw.closeTime),
    memo,
    typedSearchAttributes: new TypedSearchAttributes(pairs),
  });
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

type Run = Pick<ListedTicket, 'runStatus' | 'startedAt'>;

/** Whether `candidate` stands for its ticket rather than `held`: a running run wins over an ended one, then the newer start. */
export function isBetterRun(candidate: Run, held: Run | undefined): boolean {
  const running = (t: Run) => (t.runStatus === 'RUNNING' ? 1 : 0);
  return !held || running(candidate) > running(held) || (running(candidate) === running(held) && candidate.startedAt > held.startedAt);
}

/** One entry per ticket: a running run wins over an ended one, a newer start over an older. */
export function latestPerTicket(tickets: Iterable<ListedTicket>): ListedTicket[] {
  const byKey = new Map<string, ListedTicket>();
  for (const ticket of tickets) {
    if (isBetterRun(ticket, byKey.get(ticket.ticketKey))) byKey.set(ticket.ticketKey, ticket);
  }
  return [...byKey.values()];
}

/** Executions per page of the listing (about 5 KB of memo each for a parked ticket): small pages keep each decode short. */
export const LISTING_PAGE_SIZE = 100;

/**
 * The board's listing from Temporal visibility: one ListWorkflowExecutions walk that carries each run's memo, so no
 * workflow is described or queried and the worker is not involved. The listing is kept (ListingCache): requests are
 * answered from it at once, and one walk at a time reads it again in the background once it is a few seconds old.
 * A walk is bounded by one deadline (`walkDeadlineMs`, 2 minutes), as the census is; it reads every page of the window.
 */
export class TemporalTicketListing implements ConsoleTicketsPort {
  private readonly cache: ListingCache;

  constructor(
    private readonly connection: Connection,
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly options: ListingCacheOptions & { deadlineMs?: number; walkDeadlineMs?: number; pageSize?: number } = {},
  ) {
    this.cache = new ListingCache((days) => this.walk(new Date((options.now?.() ?? Date.now()) - days * 86_400_000)), options);
  }

  list(days: number): Promise<TicketListing> {
    return this.cache.list(days);
  }

  /**
   * Every page of the window, straight from ListWorkflowExecutions (listedTicketOfRaw says why not the SDK's list).
   * Each ticket is kept as the board shows it (BoardTicket), not with its whole execution view: what a listing holds
   * is then a few MB at 10,000 tickets, and the rest of each page is garbage at once.
   */
  private async walk(since: Date): Promise<BoardTicket[]> {
    const query = boardQuery(this.taskQueue, since);
    return this.bounded('the ticket listing', this.options.walkDeadlineMs ?? 120_000, async () => {
      const byKey = new Map<string, { run: Run; ticket: BoardTicket }>();
      let nextPageToken: Uint8Array | undefined;
      do {
        const page = await this.connection.workflowService.listWorkflowExecutions({
          namespace: this.client.options.namespace, query, pageSize: this.options.pageSize ?? LISTING_PAGE_SIZE, nextPageToken,
        });
        for (const raw of page.executions) {
          const listed = listedTicketOfRaw(raw);
          if (!listed || !isBetterRun(listed, byKey.get(listed.ticketKey)?.run)) continue;
          byKey.set(listed.ticketKey, { run: { runStatus: listed.runStatus, startedAt: listed.startedAt }, ticket: boardTicketOf(listed) });
        }
        nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
        // Requests waiting on the event loop are answered between pages (a page is decoded in one go).
        await new Promise((resolve) => setImmediate(resolve));
      } while (nextPageToken);
      return [...byKey.values()].map((entry) => entry.ticket);
    });
  }

  async get(ticketKey: string): Promise<ListedTicket | undefined> {
    const query = `WorkflowId = ${JSON.stringify(ticketWorkflowId(ticketKey))} AND ExecutionStatus != 'ContinuedAsNew'`;
    return this.bounded(`the workflow of ${ticketKey}`, this.options.deadlineMs ?? 10_000, async () => {
      const found: ListedTicket[] = [];
      for await (const execution of this.client.workflow.list({ query, pageSize: 20 })) {
        const ticket = listedTicketOf(execution);
        if (ticket) found.push(ticket);
      }
      return latestPerTicket(found)[0];
    });
  }

  private async bounded<T>(what: string, deadlineMs: number, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.connection.withDeadline(Date.now() + deadlineMs, fn);
    } catch (error) {
      throw new TemporalUnavailableError(`Temporal visibility did not answer ${what}: ${(error as Error).message}`, { cause: error });
    }
  }
}
