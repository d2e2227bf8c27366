import { Context } from '@temporalio/activity';

/** The activity context when running as a Temporal activity; undefined when called directly (tests, tools). */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Runs long work (a model call with tool steps can take minutes) while heartbeating, so the workflow's heartbeat
 * timeout tells a dead worker from a slow model, and passes the activity's cancellation signal (`service:stop`, a
 * timeout) on so the request is abandoned rather than paid for in full.
 */
export async function withHeartbeat<T>(work: (signal: AbortSignal | undefined) => Promise<T>, everyMs = 5_000): Promise<T> {
  const context = activityContext();
  if (!context) return work(undefined);
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work(context.cancellationSignal);
  } catch (error) {
    // Cancelled: report the cancellation itself (Temporal's CancelledFailure), not the aborted request's error.
    if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason ?? error;
    throw error;
  } finally {
    clearInterval(timer);
  }
}
