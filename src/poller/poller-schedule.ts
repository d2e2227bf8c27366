import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';

/** One poller per task queue: deployments sharing a namespace on different queues each poll for themselves. */
export function pollerScheduleId(taskQueue: string): string {
  return `service-poller-${taskQueue}`;
}
export const POLL_WORKFLOW_TYPE = 'pollWorkflow';

export interface PollerSchedulePlan {
  intervalSeconds: number;
  lookbackSeconds: number;
  /** Read again before the last watermark (clock skew, late visibility). */
  overlapSeconds: number;
  taskQueue: string;
}

/**
 * How far back the first poll looks (no watermark yet): several intervals. Later polls read from the last successful
 * poll's watermark, so a failed or skipped poll loses nothing either way.
 */
export function pollLookbackSeconds(intervalSeconds: number, configured?: number): number {
  return configured ?? Math.max(3 * intervalSeconds, 600);
}

function scheduleOptions(plan: PollerSchedulePlan) {
  return {
    spec: { intervals: [{ every: `${plan.intervalSeconds}s` }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: POLL_WORKFLOW_TYPE,
      workflowId: pollerScheduleId(plan.taskQueue),
      taskQueue: plan.taskQueue,
      args: [{ lookbackSeconds: plan.lookbackSeconds, overlapSeconds: plan.overlapSeconds }],
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: `${plan.intervalSeconds}s` },
  };
}

/**
 * Creates the poller schedule, or brings an existing one up to date, at every worker start: several workers may
 * start at once, and all must end with one schedule that matches the configuration.
 */
export async function ensurePollerSchedule(client: Client, plan: PollerSchedulePlan): Promise<'created' | 'updated'> {
  const options = scheduleOptions(plan);
  try {
    await client.schedule.create({ scheduleId: pollerScheduleId(plan.taskQueue), ...options });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await client.schedule.getHandle(pollerScheduleId(plan.taskQueue)).update((previous) => ({
    ...previous,
    spec: options.spec,
    action: options.action,
    policies: { ...previous.policies, ...options.policies },
    state: { ...previous.state, paused: false },
  }));
  return 'updated';
}

/** With polling switched off the schedule stays (its history is useful) but is paused. */
export async function pausePollerSchedule(client: Client, taskQueue: string, note: string): Promise<boolean> {
  try {
    await client.schedule.getHandle(pollerScheduleId(taskQueue)).pause(note);
    return true;
  } catch {
    return false;
  }
}
