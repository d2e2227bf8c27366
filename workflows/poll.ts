import { proxyActivities } from '@temporalio/workflow';
import type { PollActivities } from '../activities/poll-activities';
import type { PollSummary, PollWorkflowInput } from './poll-types';

const { pollTracker, pollScmhost } = proxyActivities<PollActivities>({
  startToCloseTimeout: '5 minutes',
  // A poll that keeps failing is replaced by the next scheduled one; a few retries cover a provider blip.
  retry: { maximumAttempts: 3, initialInterval: '5 seconds', backoffCoefficient: 2 },
});

/** One poll cycle, started by the poller schedule (overlap SKIP): the tracker and the source host, side by side. */
export async function pollWorkflow(input: PollWorkflowInput): Promise<PollSummary[]> {
  return Promise.all([pollTracker(input), pollScmhost(input)]);
}
