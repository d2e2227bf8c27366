import express, { type Request, type Response, type Router } from 'express';
import { deliverSourceHostObservation } from '../../ingress/deliver-observation';
import type { LoopGuardOptions } from '../../ingress/loop-guard';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import { normaliseScmhostEvent } from '../../ingress/scmhost/normalise-scmhost-event';
import { isScmhostEventName, SCMHOST_EVENT_SCHEMAS, type ScmhostEventName, type ScmhostPayload } from '../../ingress/scmhost/scmhost-webhook-schema';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';
import { verifyHmacSha256 } from '../webhook-signature';
import { answerDelivery, describeIssues, parseWebhookBody, WebhookReply } from '../webhook-reply';

export interface ScmhostWebhookDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  webhookSecret?: string;
  /** The service's own accounts and comment prefix: their comments are dropped (loop guard). */
  guard: LoopGuardOptions;
  bodyLimit?: string;
}

/**
 * POST /api/v1/webhooks/scmhost (GitHub). The event name comes from `X-Scmhost-Event` (the spec's header) or
 * `X-GitHub-Event` (what GitHub sends). Deliveries are routed to a ticket and signalled; a delivery that belongs to no
 * ticket is answered 200, counted and logged, so GitHub does not redeliver something nobody can take.
 */
export function scmhostWebhookRouter(deps: ScmhostWebhookDeps): Router {
  const router = express.Router();
  router.post(
    '/api/v1/webhooks/scmhost',
    express.raw({ type: () => true, limit: deps.bodyLimit ?? '25mb' }),
    async (req: Request, res: Response) => {
      const reply = new WebhookReply('scmhost', res, deps.metrics, deps.logger);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (deps.webhookSecret) {
        const check = verifyHmacSha256(raw, req.get('x-hub-signature-256'), deps.webhookSecret);
        if (!check.ok) return reply.fail(401, 'invalid_signature', `X-Hub-Signature-256 rejected: ${check.reason}`);
      }
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
