import { startWebhookRelay } from '../../src/sandbox/fault-injector';
import type { WebhookDelivery } from '../../src/sandbox/webhook-sender';
import type { World } from './start-world';

/** The webhooks a simulator sent while `act` ran, none of which reached the gateway. */
export interface LostHooks {
  /** What the simulator sent (its event name, payload, signed body and headers), in order. */
  readonly deliveries: WebhookDelivery[];
  /** The simulator's names of the events lost, in order (`pipeline`, `note`, `merge_request`; `comment_created`, …). */
  readonly events: string[];
  /**
   * Sends every lost delivery to the gateway now, byte for byte as it was signed then (as a provider that redelivers
   * by hand would): the gateway's HTTP answers, in order. The poller has usually brought the same facts by then, so
   * the ticket must call them duplicates.
   */
  sendLate(): Promise<number[]>;
}

/**
 * Runs `act` (a person's action on the simulator) with that simulator's webhooks to the gateway lost on the way: GitLab
 * gives up on a hook after its retries and never sends it again, and Jira's redelivery is as unreliable; only the
 * poller brings those facts back. The loss is the fault campaign's own mechanism: the simulator sends to the webhook
 * relay of `src/sandbox/fault-injector.ts`, whose odds drop every delivery (the sender is told 200, as a provider
 * whose delivery was lost in between would be), and points at the gateway again afterwards. Deliveries queued before
 * `act` keep going to the gateway. Fails when `act` sent no webhook at all (nothing would have been lost) or when one
 * reached the relay's target.
 */
export async function withHooksLost(world: Pick<World, 'gitlab' | 'tracker'>, simulator: 'gitlab' | 'tracker', act: () => unknown): Promise<LostHooks> {
  const sender = simulator === 'gitlab' ? world.gitlab.webhooks : world.tracker.webhooks;
  const target = sender.target;
  if (!target) throw new Error(`the ${simulator} simulator sends no webhooks to lose (it has no target)`);
  const gateway = new URL(target.url);
  const relay = await startWebhookRelay({ target: gateway.origin, odds: { drop: 1, duplicate: 0, delay: 0, maxDelayMs: 0 }, random: () => 0 });
  const from = sender.deliveries.length;
  let deliveries: WebhookDelivery[];
  try {
    // The sender fixes a delivery's address when it is queued: what `act` causes goes to the relay, even if it is sent
    // after the gateway is the target again.
    sender.setTarget({ ...target, url: `${relay.url}${gateway.pathname}` });
    try {
      await act();
    } finally {
      sender.setTarget(target);
    }
    await sender.flush();
    deliveries = sender.deliveries.slice(from);
  } finally {
    await relay.close();
  }
  if (deliveries.length === 0) throw new Error(`nothing was lost: the ${simulator} simulator sent no webhook while the action ran`);
  const dropped = relay.records.filter((record) => record.fate === 'drop' && record.answers.length === 0);
  if (dropped.length !== deliveries.length || deliveries.some((d) => !d.url.startsWith(relay.url) || d.status !== 200)) {
    throw new Error(`the relay dropped ${dropped.length} of ${deliveries.length} ${simulator} webhooks: ${JSON.stringify(deliveries.map((d) => [d.event, d.url, d.status, d.error]))}`);
  }
  return {
    deliveries,
    events: deliveries.map((d) => d.event),
    sendLate: async () => {
      const answers: number[] = [];
      for (const delivery of deliveries) {
        const response = await fetch(target.url, { method: 'POST', headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        answers.push(response.status);
      }
      return answers;
    },
  };
}
