import { z } from 'zod';
import { deliverSourceHostObservation, deliverTrackerObservation, type DeliveryOutcome } from '../src/ingress/deliver-observation';
import type { LoopGuardOptions } from '../src/ingress/loop-guard';
import type { Logger } from '../src/logging/logger';
import type { TicketWorkflowsPort } from '../src/temporal/ticket-workflows';
import { collectScmhostDeliveries } from '../src/poller/scmhost-poll';
import { collectTrackerObservations } from '../src/poller/tracker-poll';
import type { ScmhostClient } from '../src/providers/scmhost/scmhost-client';
import type { TrackerClient } from '../src/providers/tracker/tracker-client';
import type { PollSummary } from '../workflows/poll-types';

export interface PollActivityDeps {
  tracker?: Pick<TrackerClient, 'searchAllIssues' | 'getIssue' | 'getComments'>;
  scmhost?: () => Promise<Pick<ScmhostClient, 'listOpenPullRequestsByBranchPrefix' | 'listRecentlyClosedPullRequestsByBranchPrefix' | 'listReviews' | 'listCheckRuns' | 'listIssueComments'>>;
  scmhostRepositories: string[];
  workflows: TicketWorkflowsPort;
  guard: LoopGuardOptions;
  logger: Logger;
  now?: () => Date;
}

const pollInput = z.object({ lookbackSeconds: z.number().int().positive().max(7 * 24 * 3600) });

function summarise(source: PollSummary['source'], outcomes: DeliveryOutcome[], skippedReason?: string): PollSummary {
  const summary: PollSummary = { source, observed: outcomes.length, started: 0, signalled: 0, ignored: 0, skipped: skippedReason ?? null };
  for (const outcome of outcomes) {
    if (outcome.outcome === 'started') summary.started += 1;
    else if (outcome.outcome === 'signalled') summary.signalled += 1;
    else summary.ignored += 1;
  }
  return summary;
}

/**
 * The poller's activities: read the providers, rebuild the observations their webhooks would have carried, and
 * signal them through the same delivery path as the gateway. The ticket workflows' ledgers call facts already
 * delivered duplicates, so polling is safe to repeat.
 */
export function createPollActivities(deps: PollActivityDeps) {
  const now = deps.now ?? (() => new Date());
  return {
    async pollTracker(input: { lookbackSeconds: number }): Promise<PollSummary> {
      const { lookbackSeconds } = pollInput.parse(input);
      if (!deps.tracker) return summarise('tracker', [], 'tracker is not configured (TRACKER_BASE_URL, TRACKER_USER_EMAIL, TRACKER_API_TOKEN)');
      const observations = await collectTrackerObservations(deps.tracker, { lookbackSeconds, now: now() });
      const outcomes: DeliveryOutcome[] = [];
      for (const observation of observations) outcomes.push(await deliverTrackerObservation(deps.workflows, observation, deps.guard));
      const summary = summarise('tracker', outcomes);
      deps.logger.info('tracker poll finished', { ...summary });
      return summary;
    },

    async pollScmhost(input: { lookbackSeconds: number }): Promise<PollSummary> {
      const { lookbackSeconds } = pollInput.parse(input);
      if (!deps.scmhost) return summarise('scmhost', [], 'source host is not configured (SCMHOST_TOKEN)');
      if (deps.scmhostRepositories.length === 0) return summarise('scmhost', [], 'no repositories to poll (SCMHOST_KNOWN_REPOS, SCMHOST_DEFAULT_REPO)');
      const deliveries = await collectScmhostDeliveries(await deps.scmhost(), deps.scmhostRepositories, { now: now(), lookbackSeconds });
      const outcomes: DeliveryOutcome[] = [];
      for (const delivery of deliveries) outcomes.push(await deliverSourceHostObservation(deps.workflows, delivery.observation, delivery.routing, deps.guard));
      const summary = summarise('scmhost', outcomes);
      deps.logger.info('source-host poll finished', { ...summary });
      return summary;
    },
  };
}

export type PollActivities = ReturnType<typeof createPollActivities>;
