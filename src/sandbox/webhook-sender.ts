/**
 * Delivers the simulators' webhooks to a gateway: signed like the real providers, one at a time in the order the
 * changes happened (providers do not guarantee order, but tests are easier to read when the simulator does).
 */
import { createHmac, randomUUID } from 'node:crypto';

export interface WebhookTarget {
  url: string;
  /** Signs the raw body with HMAC-SHA256 when set; an empty secret sends no signature. */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  payload: unknown;
  /** The gateway's HTTP status, or undefined when it could not be reached. */
  status?: number;
  error?: string;
  deliveredAt?: string;
}

export interface WebhookSender {
  /**
   * Queues a delivery; the promise of `flush()` settles once everything queued so far was attempted. With `ready`,
   * the payload is completed in place before it is signed and sent (values a simulator reads from git), and the
   * order of deliveries stays the order of the changes.
   */
  send(event: string, payload: unknown, headers: (body: string, deliveryId: string) => Record<string, string>, ready?: Promise<unknown>): WebhookDelivery;
  flush(): Promise<void>;
  readonly deliveries: WebhookDelivery[];
  /** Points deliveries at another gateway (or stops them with undefined). */
  setTarget(target: WebhookTarget | undefined): void;
  readonly target: WebhookTarget | undefined;
}

export function hmacSha256Hex(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function createWebhookSender(initial: WebhookTarget | undefined, options: { timeoutMs?: number } = {}): WebhookSender {
  let target = initial;
  let chain: Promise<void> = Promise.resolve();
  const deliveries: WebhookDelivery[] = [];

  const deliver = async (delivery: WebhookDelivery): Promise<void> => {
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      delivery.status = response.status;
      await response.arrayBuffer();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    delivery.deliveredAt = new Date().toISOString();
  };

  return {
    deliveries,
    get target() { return target; },
    setTarget(next) { target = next; },
    send(event, payload, headers, ready) {
      const id = randomUUID();
      const delivery: WebhookDelivery = { id, event, url: target?.url ?? '', headers: {}, body: '', payload };
      const seal = () => {
        delivery.body = JSON.stringify(payload);
        delivery.headers = { 'content-type': 'application/json', 'user-agent': 'service-sandbox-webhooks', ...headers(delivery.body, id) };
      };
      // A payload that failed to complete is sent as it stands: a lost webhook would hide more than a rough counter.
      const sealed = ready?.catch(() => undefined).then(seal);
      if (!sealed) seal();
      deliveries.push(delivery);
      if (target) chain = chain.then(() => sealed).then(() => deliver(delivery));
      else {
        delivery.error = 'no webhook target configured';
        if (sealed) chain = chain.then(() => sealed);
      }
      return delivery;
    },
    flush() { return chain; },
  };
}
