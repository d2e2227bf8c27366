import type { Sinks } from '@temporalio/workflow';

/**
 * Workflow code cannot touch prom-client (it is replayed in a sandbox); it reports through this sink, which the
 * worker implements against its Prometheus registry. Sinks are not called during replay, so counts are not inflated.
 */
export interface ServiceMetricsSinks extends Sinks {
  serviceMetrics: {
    workflowStarted(workflowType: string): void;
    workflowCompleted(workflowType: string): void;
    workflowFailed(workflowType: string): void;
    /** A wait (blocked, or at a gate) ended after this many seconds. */
    waitEnded(seconds: number): void;
    /** The ticket left a node of its definition after this many seconds there (service_phase_duration_seconds). */
    phaseEnded(phase: string, seconds: number): void;
    /** The ticket became blocked with this code (service_tickets_blocked_total). Not a command: no history change. */
    ticketBlocked(reason: string): void;
  };
}
