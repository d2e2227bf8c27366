import express, { type Request, type Response, type Router } from 'express';
import { deliverSourceHostObservation } from '../../ingress/deliver-observation';
import type { LoopGuardOptions } from '../../ingress/loop-guard';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import { normaliseScmhostEvent } from '../../ingress/scmhost/normalise-scmhost-event';
import { isScmhostEventName, SCMHOST_EVENT_SCHEMAS, type ScmhostEventName, type ScmhostPayload } from '../../ingress/scmhost/scmhost-webhook-schema';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';
import { answerDelivery, describeIssues, parseWebhookBody, WebhookReply } from '../webhook-reply';
import { RefusalLog } from '../refusal-log';
import { SCMHOST_WEBHOOK_BODY_LIMIT_BYTES } from '../webhook-body';
import { readSignedWebhook } from '../webhook-intake';
import type { PendingBodyBudget } from '../pending-body-budget';
import { webhookResponseCounter } from '../webhook-response-counter';

export interface ScmhostWebhookDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  webhookSecret?: string;
  /** SERVICE_ALLOW_UNSIGNED_WEBHOOKS: without a secret, deliveries are refused unless this is set. */
  allowUnsigned?: boolean;
  /** The service's own accounts and comment prefix: their comments are dropped (loop guard). */
  guard: LoopGuardOptions;
  /** SCMHOST_WEBHOOK_BODY_LIMIT_BYTES (4 MiB) unless given. */
  bodyLimitBytes?: number;
  /** The gateway's budget of bodies read before their signature is checked; without it, only the size limit holds. */
  pendingBodies?: PendingBodyBudget;
}

/**
 * POST /api/v1/webhooks/scmhost (GitHub). The event name comes from `X-Scmhost-Event` (the spec's header) or
 * `X-GitHub-Event` (what GitHub sends). Deliveries are routed to a ticket and signalled; a delivery that belongs to no
 * ticket is answered 200, counted and logged, so GitHub does not redeliver something nobody can take.
 */
export function scmhostWebhookRouter(deps: ScmhostWebhookDeps): Router {
  const router = express.Router();
  const refusals = new RefusalLog(deps.logger);
  router.post(
    '/api/v1/webhooks/scmhost',
    webhookResponseCounter('scmhost', deps.metrics),
    async (req: Request, res: Response) => {
      const reply = new WebhookReply('scmhost', res, deps.metrics, deps.logger, 200, refusals);
      // Authenticated before parsed: the signature header is checked before the body is read, the body when read.
      const raw = await readSignedWebhook(req, reply, {
        secret: deps.webhookSecret, allowUnsigned: deps.allowUnsigned ?? false, header: 'X-Hub-Signature-256',
        secretVariable: 'SCMHOST_WEBHOOK_SECRET', limitBytes: deps.bodyLimitBytes ?? SCMHOST_WEBHOOK_BODY_LIMIT_BYTES,
        ...(deps.pendingBodies ? { pending: { budget: deps.pendingBodies, route: 'scmhost' } } : {}),
      });
      if (raw === undefined) return;
      const eventHeader = (req.get('x-scmhost-event') ?? req.get('x-github-event'))?.trim().toLowerCase();
      if (!eventHeader) return reply.fail(400, 'missing_event', 'the X-Scmhost-Event (or X-GitHub-Event) header is required');
      const body = parseWebhookBody(raw, req.get('content-type'));
      if (!body.ok) return reply.fail(400, 'invalid_json', body.message);
      if (!isScmhostEventName(eventHeader)) {
        reply.received('unsupported');
        return reply.ignored('unsupported_event', `event "${eventHeader}" is not used by the service`);
      }
      const event: ScmhostEventName = eventHeader;
      reply.received(event);
      const parsed = SCMHOST_EVENT_SCHEMAS[event].safeParse(body.value);
      if (!parsed.success) return reply.fail(400, 'invalid_payload', `the ${event} webhook is missing fields it needs: ${describeIssues(parsed.error.issues)}`);
      const normalised = normaliseScmhostEvent(event, parsed.data as ScmhostPayload<typeof event>);
      if (normalised.kind === 'unsupported') return reply.ignored('unsupported_event', normalised.reason);
      await reply.handOver(async () => {
        const result = await deliverSourceHostObservation(deps.workflows, normalised.observation, normalised.routing, deps.guard);
        answerDelivery(reply, result, normalised.observation.delivery_identity);
      });
    },
  );
  return router;
}
