import { z } from 'zod';
import { withHeartbeat } from './heartbeat';
import { deliverSourceHostObservation, deliverTrackerObservation, type DeliveryOutcome } from '../src/ingress/deliver-observation';
import type { LoopGuardOptions } from '../src/ingress/loop-guard';
import type { Logger } from '../src/logging/logger';
import type { TicketWorkflowsPort } from '../src/temporal/ticket-workflows';
import { collectScmhostDeliveries } from '../src/poller/scmhost-poll';
import { collectTrackerObservations } from '../src/poller/tracker-poll';
import { collectGitLabDeliveries, type PolledGitLabProject } from '../src/poller/gitlab-poll';
import { DEFAULT_POLL_OVERLAP_SECONDS, MAX_POLL_LOOKBACK_SECONDS, pollWindow } from '../src/poller/poll-window';
import type { ScmhostClient } from '../src/providers/scmhost/scmhost-client';
import type { TrackerClient } from '../src/providers/tracker/tracker-client';
import type { PollSummary, PollWorkflowInput } from '../workflows/polling/poll-types';

export interface PollActivityDeps {
  tracker?: Pick<TrackerClient, 'searchAllIssues' | 'getIssue' | 'getComments'>;
  scmhost?: () => Promise<Pick<ScmhostClient, 'listOpenPullRequestsByBranchPrefix' | 'listRecentlyClosedPullRequestsByBranchPrefix' | 'listReviews' | 'listCheckRuns' | 'listIssueComments'>>;
  scmhostRepositories: string[];
  /** The GitLab projects of the repository registry, each with the client of its connection (none without a registry). */
  gitlabProjects?: () => PolledGitLabProject[];
  workflows: TicketWorkflowsPort;
  guard: LoopGuardOptions;
  logger: Logger;
  now?: () => Date;
  /** How often a running poll heartbeats (tests shorten it). */
  heartbeatEveryMs?: number;
}

const pollInput = z.object({
  lookbackSeconds: z.number().int().positive().max(MAX_POLL_LOOKBACK_SECONDS),
  overlapSeconds: z.number().int().min(0).max(3600).default(DEFAULT_POLL_OVERLAP_SECONDS),
  watermark: z.string().datetime().nullish(),
});

function summarise(source: PollSummary['source'], outcomes: DeliveryOutcome[], skippedReason?: string, watermark?: Date): PollSummary {
  const summary: PollSummary = { source, observed: outcomes.length, started: 0, signalled: 0, ignored: 0, skipped: skippedReason ?? null, watermark: watermark?.toISOString() ?? null };
  for (const outcome of outcomes) {
    if (outcome.outcome === 'started') summary.started += 1;
    else if (outcome.outcome === 'signalled') summary.signalled += 1;
    else summary.ignored += 1;
  }
  return summary;
}

/**
 * The poller's activities: read the providers, rebuild the observations their webhooks would have carried, and
 * signal them through the same delivery path as the gateway. Each poll reads only what changed since the last
 * successful poll's watermark (less an overlap), so an idle ticket is not signalled at all; the facts in the overlap,
 * and the ones webhooks brought, come with the same identity and the ticket workflows' ledgers call them duplicates.
 */
export function createPollActivities(deps: PollActivityDeps) {
  const now = deps.now ?? (() => new Date());
  return {
    // Both polls heartbeat while they run: a poll on a worker that died is retried elsewhere after the heartbeat
    // timeout, not after the start-to-close timeout; until then the schedule (overlap SKIP) starts no other poll.
    pollTracker: (input: PollWorkflowInput) => withHeartbeat(() => pollTrackerOnce(input), deps.heartbeatEveryMs),
    pollScmhost: (input: PollWorkflowInput) => withHeartbeat(() => pollScmhostOnce(input), deps.heartbeatEveryMs),
    pollGitLab: (input: PollWorkflowInput) => withHeartbeat(() => pollGitLabOnce(input), deps.heartbeatEveryMs),
  };

  async function pollTrackerOnce(input: PollWorkflowInput): Promise<PollSummary> {
    const parsed = pollInput.parse(input);
    if (!deps.tracker) return summarise('tracker', [], 'tracker is not configured (TRACKER_BASE_URL, TRACKER_USER_EMAIL, TRACKER_API_TOKEN)');
    const started = now();
    const { lookbackSeconds } = pollWindow({ now: started, ...parsed });
    const observations = await collectTrackerObservations(deps.tracker, { lookbackSeconds, now: started });
    const outcomes: DeliveryOutcome[] = [];
    for (const observation of observations) outcomes.push(await deliverTrackerObservation(deps.workflows, observation, deps.guard));
    const summary = summarise('tracker', outcomes, undefined, started);
    deps.logger.info('tracker poll finished', { ...summary, lookback_seconds: lookbackSeconds });
    return summary;
  }

  async function pollScmhostOnce(input: PollWorkflowInput): Promise<PollSummary> {
    const parsed = pollInput.parse(input);
    if (!deps.scmhost) return summarise('scmhost', [], 'source host is not configured (SCMHOST_TOKEN)');
    if (deps.scmhostRepositories.length === 0) return summarise('scmhost', [], 'no repositories to poll (SCMHOST_KNOWN_REPOS, SCMHOST_DEFAULT_REPO)');
    const started = now();
    const { lookbackSeconds } = pollWindow({ now: started, ...parsed });
    const deliveries = await collectScmhostDeliveries(await deps.scmhost(), deps.scmhostRepositories, { now: started, lookbackSeconds });
    const outcomes: DeliveryOutcome[] = [];
    for (const delivery of deliveries) outcomes.push(await deliverSourceHostObservation(deps.workflows, delivery.observation, delivery.routing, deps.guard));
    const summary = summarise('scmhost', outcomes, undefined, started);
    deps.logger.info('source-host poll finished', { ...summary, lookback_seconds: lookbackSeconds });
    return summary;
  }

  async function pollGitLabOnce(input: PollWorkflowInput): Promise<PollSummary> {
    const parsed = pollInput.parse(input);
    const projects = deps.gitlabProjects?.() ?? [];
    if (projects.length === 0) return summarise('gitlab', [], 'no GitLab project in the repository registry (SERVICE_REPOS_CONFIG_PATH)');
    const started = now();
    const { lookbackSeconds } = pollWindow({ now: started, ...parsed });
    const deliveries = await collectGitLabDeliveries(projects, { now: started, lookbackSeconds });
    const outcomes: DeliveryOutcome[] = [];
    for (const delivery of deliveries) outcomes.push(await deliverSourceHostObservation(deps.workflows, delivery.observation, delivery.routing, deps.guard));
    const summary = summarise('gitlab', outcomes, undefined, started);
    deps.logger.info('GitLab poll finished', { ...summary, projects: projects.length, lookback_seconds: lookbackSeconds });
    return summary;
  }
}

export type PollActivities = ReturnType<typeof createPollActivities>;
