import { type Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { pollerScheduleId } from '../../src/poller/poller-schedule';
import { eventually } from './webhooks';

async function completedPolls(client: Client, taskQueue: string): Promise<number> {
  let n = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowType = "pollWorkflow" AND TaskQueue = "${taskQueue}" AND ExecutionStatus = "Completed"` })) n += 1;
  return n;
}

/** Triggers the worker's poller schedule now and waits until that poll completed. */
export async function pollNow(client: Client, taskQueue: string): Promise<void> {
  const before = await completedPolls(client, taskQueue);
  await client.schedule.getHandle(pollerScheduleId(taskQueue)).trigger(ScheduleOverlapPolicy.SKIP);
  await eventually(async () => ((await completedPolls(client, taskQueue)) > before ? true : undefined), 60_000, 'a completed poll');
}
