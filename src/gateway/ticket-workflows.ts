import { Client, Connection, WorkflowNotFoundError, isGrpcServiceError } from '@temporalio/client';
import type { ExecutionView } from '../../workflows/execution-view';
import { executionQuery, observeSignal, searchAttributes, ticketWorkflowId, timelineQuery, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { Observation, TicketWorkflowInput } from '../../workflows/observation';
import type { TimelinePage } from '../../workflows/timeline';
import { TemporalUnavailableError } from './http-errors';

/**
 * What the gateway asks of Temporal. Every call is bounded by a deadline so that a webhook never hangs: when
 * Temporal cannot be reached the caller gets TemporalUnavailableError and answers 503, and the provider retries.
 */
export interface TicketWorkflowsPort {
  startOrSignal(input: TicketWorkflowInput, observation: Observation): Promise<{ workflowId: string }>;
  signal(ticketKey: string, observation: Observation): Promise<'signalled' | 'not_found'>;
  execution(ticketKey: string): Promise<ExecutionView | undefined>;
  timeline(ticketKey: string, cursor: number, limit: number): Promise<TimelinePage | undefined>;
  /** The PR-to-ticket index: which ticket's workflow recorded this pull request (`owner/repo#12`). */
  findTicketByPullRequest(pullRequestRef: string): Promise<string | undefined>;
}

const GRPC_NOT_FOUND = 5;

function isNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  if (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) return true;
  const cause = (error as { cause?: unknown })?.cause;
  return cause !== undefined && cause !== error && isNotFound(cause);
}

export class TemporalTicketWorkflows implements TicketWorkflowsPort {
  private readonly client: Client;

  constructor(
    private readonly connection: Connection,
    namespace: string,
    private readonly taskQueue: string,
    private readonly deadlineMs = { write: 5_000, read: 10_000 },
  ) {
    this.client = new Client({ connection, namespace });
  }

  /** A lazy connection lets the gateway start (and answer health checks) while Temporal is still down. */
  static lazy(address: string, namespace: string, taskQueue: string): TemporalTicketWorkflows {
    return new TemporalTicketWorkflows(Connection.lazy({ address, connectTimeout: 3_000 }), namespace, taskQueue);
  }

  private async bounded<T>(what: string, ms: number, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.connection.withDeadline(Date.now() + ms, fn);
    } catch (error) {
      if (isNotFound(error)) throw error;
      throw new TemporalUnavailableError(`Temporal did not accept ${what}: ${(error as Error).message}`, { cause: error });
    }
  }

  async startOrSignal(input: TicketWorkflowInput, observation: Observation): Promise<{ workflowId: string }> {
    const workflowId = ticketWorkflowId(input.ticket_key);
    await this.bounded(`signal-with-start of ${workflowId}`, this.deadlineMs.write, () => this.client.workflow.signalWithStart(TICKET_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: this.taskQueue,
      args: [input],
      signal: observeSignal,
      signalArgs: [observation],
      typedSearchAttributes: [
        { key: searchAttributes.ticketKey, value: input.ticket_key },
        { key: searchAttributes.workflowType, value: input.workflow_kind },
      ],
    }));
    return { workflowId };
  }

  async signal(ticketKey: string, observation: Observation): Promise<'signalled' | 'not_found'> {
    const workflowId = ticketWorkflowId(ticketKey);
    try {
      await this.bounded(`a signal to ${workflowId}`, this.deadlineMs.write, () => this.client.workflow.getHandle(workflowId).signal(observeSignal, observation));
      return 'signalled';
    } catch (error) {
      if (isNotFound(error)) return 'not_found';
      throw error;
    }
  }

  async execution(ticketKey: string): Promise<ExecutionView | undefined> {
    const workflowId = ticketWorkflowId(ticketKey);
    try {
      return await this.bounded(`the execution query of ${workflowId}`, this.deadlineMs.read, () => this.client.workflow.getHandle(workflowId).query(executionQuery));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async timeline(ticketKey: string, cursor: number, limit: number): Promise<TimelinePage | undefined> {
    const workflowId = ticketWorkflowId(ticketKey);
    try {
      return await this.bounded(`the timeline query of ${workflowId}`, this.deadlineMs.read, () => this.client.workflow.getHandle(workflowId).query(timelineQuery, { cursor, limit }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async findTicketByPullRequest(pullRequestRef: string): Promise<string | undefined> {
    const query = `${searchAttributes.pullRequests.name} = ${JSON.stringify(pullRequestRef)}`;
    return this.bounded(`the pull-request index lookup of ${pullRequestRef}`, this.deadlineMs.read, async () => {
      for await (const execution of this.client.workflow.list({ query, pageSize: 1 })) {
        const key = execution.typedSearchAttributes.get(searchAttributes.ticketKey);
        if (key) return key;
      }
      return undefined;
    });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
