/**
 * SERVICE_SHUTDOWN_GRACE_SECONDS: how long a stopping process (SIGTERM) lets its work finish. The gateway answers the
 * requests in flight for at most this long; the worker lets running activities finish for this long, then cancels
 * the rest (a container station removes its container on cancellation). An orchestrator's own limit
 * (terminationGracePeriodSeconds in Kubernetes) must be longer than this plus SHUTDOWN_MARGIN_SECONDS.
 */
export const SHUTDOWN_GRACE_VARIABLE = 'SERVICE_SHUTDOWN_GRACE_SECONDS';
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 30;
export const MAX_SHUTDOWN_GRACE_SECONDS = 3_600;

/**
 * After the grace, what cancelled work still needs: activities to confirm their cancellation and containers to be
 * removed (`podman rm` takes a second or two).
 */
export const SHUTDOWN_MARGIN_SECONDS = 15;

export interface WorkerShutdownTimes {
  /** The Temporal worker's shutdownGraceTime: running activities are cancelled after it. */
  shutdownGraceTime: string;
  /** The Temporal worker's shutdownForceTime: the SDK's own bound on a graceful shutdown that does not end. */
  shutdownForceTime: string;
  /** How long the stopping worker then waits for the containers it started to be removed. */
  containerRemovalMs: number;
}

export function workerShutdownTimes(graceSeconds: number): WorkerShutdownTimes {
  return {
    shutdownGraceTime: `${graceSeconds}s`,
    shutdownForceTime: `${graceSeconds + SHUTDOWN_MARGIN_SECONDS}s`,
    containerRemovalMs: SHUTDOWN_MARGIN_SECONDS * 1000,
  };
}
