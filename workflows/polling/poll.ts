import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { PollActivities } from '../../activities/poll-activities';
import type { PollSummary, PollWorkflowInput } from './poll-types';
import { lastPollWatermarks } from './poll-watermarks';

const { pollTracker, pollScmhost, pollGitLab } = proxyActivities<PollActivities>({
  startToCloseTimeout: '5 minutes',
  // The polls heartbeat: one on a worker that died is retried on another after this, not after five minutes (while it
  // counts as running the schedule skips every poll, and webhooks lost meanwhile wait for it).
  heartbeatTimeout: '20 seconds',
  // A poll that keeps failing is replaced by the next scheduled one; a few retries cover a provider blip.
  retry: { maximumAttempts: 3, initialInterval: '5 seconds', backoffCoefficient: 2 },
});

/**
 * One poll cycle, started by the poller schedule (overlap SKIP): the tracker, GitHub and GitLab, side by side. The
 * schedule hands each run the result of the last run that completed (a failed run leaves it as it was), so each
 * source reads only what changed since its last successful watermark.
 */
export async function pollWorkflow(input: PollWorkflowInput): Promise<PollSummary[]> {
  const watermarks = lastPollWatermarks(workflowInfo().lastResult);
  const polls = [
    pollTracker({ ...input, watermark: watermarks.tracker ?? null }),
    pollScmhost({ ...input, watermark: watermarks.scmhost ?? null }),
  ];
  // A poll that started before GitLab was polled replays without the third activity.
  if (patched('poll-gitlab')) polls.push(pollGitLab({ ...input, watermark: watermarks.gitlab ?? null }));
  return Promise.all(polls);
}
