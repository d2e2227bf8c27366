import {
  isCancellation, proxySinks, TemporalFailure, type Next, type WorkflowExecuteInput, type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { ServiceMetricsSinks } from './metrics-sink';

/**
 * service_workflows_failed_total: a ticket workflow whose run ends failed. Ticket workflows turn what goes wrong into
 * a block, so this counts what escaped that: an error Temporal fails a workflow for (an activity or child failure, an
 * ApplicationFailure) thrown out of the workflow function. Registered as a workflow interceptor module by the worker,
 * so the workflow code itself is unchanged; it emits no command (a sink call), so histories replay as before.
 */

/**
 * Whether an error thrown out of a workflow function fails the execution. Temporal fails it for its own failure types;
 * a cancellation ends it cancelled, continue-as-new continues it, and any other error fails only the workflow task,
 * which is retried (a bug, not an ended ticket).
 */
export function failsExecution(error: unknown): boolean {
  return error instanceof TemporalFailure && !isCancellation(error);
}

/** The ticket workflow's kind (feature, bug, task_takeover) from its input; undefined for other workflow types. */
function ticketKind(args: readonly unknown[]): string | undefined {
  const kind = (args[0] as { workflow_kind?: unknown } | undefined)?.workflow_kind;
  return typeof kind === 'string' ? kind : undefined;
}

export class WorkflowFailureCounter implements WorkflowInboundCallsInterceptor {
  constructor(private readonly sink: Pick<ServiceMetricsSinks['serviceMetrics'], 'workflowFailed'>) {}

  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    try {
      return await next(input);
    } catch (error) {
      const kind = ticketKind(input.args);
      if (kind !== undefined && failsExecution(error)) this.sink.workflowFailed(kind);
      throw error;
    }
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new WorkflowFailureCounter(proxySinks<ServiceMetricsSinks>().serviceMetrics)],
});
