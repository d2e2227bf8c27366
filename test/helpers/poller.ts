import { type Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { expect } from 'vitest';
import { pollerScheduleId } from '../../src/poller/poller-schedule';
import { withHooksLost, type LostHooks } from './lost-hooks';
import type { World } from './start-world';
import { eventually, getJson } from './webhooks';

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

/** One observation decision on a ticket's timeline: which way the fact came, and what the ticket made of it. */
export interface ObservationDecision {
  event_id: number;
  /** `webhook` or `poller`. */
  source: string;
  /** `accepted`, `duplicate`, `stale`, … */
  status: string;
  /** `issue_commented`, `issue_updated`, `pipeline`, `note`, `pull_request_review`, `merge_request`, … */
  event: string;
  identity: string;
}

/** The observation decisions of a ticket's timeline (every page, read through the gateway), oldest first. */
export async function observationDecisions(world: { stack: { api: string }; operatorToken: string }, key: string): Promise<ObservationDecision[]> {
  const decisions: ObservationDecision[] = [];
  let cursor: number | null = 0;
  while (cursor !== null) {
    const page = await getJson(`${world.stack.api}/api/v1/workflows/${key}/execution/timeline?cursor=${cursor}&limit=200`, world.operatorToken);
    if (page.status !== 200) throw new Error(`the timeline of ${key}: HTTP ${page.status}`);
    const body = page.body as { entries: Array<Record<string, any>>; next_cursor: number | null };
    for (const entry of body.entries) {
      if (entry.kind !== 'observation_decision') continue;
      decisions.push({ event_id: entry.event_id, source: entry.details.source, status: entry.status, event: entry.details.event, identity: entry.details.delivery_identity });
    }
    cursor = body.next_cursor;
  }
  return decisions;
}

/**
 * The person acts at `gate` (`act`) with the simulator's hooks lost: the ticket is still at the gate and was told
 * nothing; after one poll, the fact is on its timeline as `event`, accepted from the poller (the ticket moves on from
 * there). Answers the lost hooks, the fact's identity and the ticket's view before the act. The world has the tracker
 * and the GitLab simulator, and its poller runs when the test triggers it (`SERVICE_POLL_INTERVAL_SECONDS=3600`), so
 * a fact on the timeline from the poller can only have come from this poll.
 */
export async function lostAtGate(
  world: World, taskQueue: string, key: string, at: { gate: string; simulator: 'gitlab' | 'tracker'; event: string }, act: () => unknown,
): Promise<{ lost: LostHooks; identity: string; before: Record<string, any> }> {
  // What the simulators sent before (the service's own writes) is handed to the ticket first, so that the poll
  // cannot be the first to bring it.
  for (const sender of [world.tracker.webhooks, world.gitlab.webhooks]) await sender.flush();
  const since = (await observationDecisions(world, key)).at(-1)?.event_id ?? 0;
  const before = await world.execution(key);
  const lost = await withHooksLost(world, at.simulator, act);
  const after = await world.execution(key);
  expect([after.current_position, after.observations_received]).toEqual([at.gate, before.observations_received]);
  await pollNow(world.client, taskQueue);
  const brought = await eventually(async () => {
    const found = (await observationDecisions(world, key)).filter((d) => d.event_id > since && d.source === 'poller' && d.status === 'accepted' && d.event === at.event);
    return found.length > 0 ? found : undefined;
  }, 60_000, `the poller's ${at.event} on ${key}`);
  expect(brought).toHaveLength(1);
  return { lost, identity: brought[0]!.identity, before };
}

/** The lost hooks sent late reach the ticket as a duplicate of the fact the poller brought: it was seen once. */
export async function lateIsDuplicate(world: World, key: string, lost: LostHooks, identity: string, answer: number): Promise<void> {
  expect(await lost.sendLate()).toEqual(lost.deliveries.map(() => answer));
  const seen = await eventually(async () => {
    const found = (await observationDecisions(world, key)).filter((d) => d.identity === identity);
    return found.some((d) => d.source === 'webhook') ? found : undefined;
  }, 60_000, `the late hook of ${identity}`);
  expect(seen.map((d) => [d.source, d.status])).toEqual([['poller', 'accepted'], ['webhook', 'duplicate']]);
}
