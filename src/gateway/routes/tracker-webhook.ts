import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';
import { normaliseTrackerEvent, trackerEventName } from '../../ingress/tracker/normalise-tracker-event';
import { trackerWebhookSchema } from '../../ingress/tracker/tracker-webhook-schema';
import { verifyHmacSha256 } from '../webhook-signature';
import { deliverTrackerObservation } from '../../ingress/deliver-observation';
import type { LoopGuardOptions } from '../../ingress/loop-guard';
import { answerDelivery, describeIssues, parseJsonBody, WebhookReply } from '../webhook-reply';

export interface TrackerWebhookDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  webhookSecret?: string;
  /** The service's own accounts and comment prefix: their comments are dropped (loop guard). */
  guard: LoopGuardOptions;
  /** Webhook bodies can be megabytes (ADF documents, long changelogs). */
  bodyLimit?: string;
}

/**
 * POST /api/v1/webhooks/tracker. Answers 200 only after Temporal accepted the signal, 503 when it could not be
 * reached (the tracker redelivers; nothing is half-applied because a signal is the only write).
 */
export function trackerWebhookRouter(deps: TrackerWebhookDeps): Router {
  const router = express.Router();
  router.post(
    '/api/v1/webhooks/tracker',
    express.raw({ type: () => true, limit: deps.bodyLimit ?? '25mb' }),
    async (req: Request, res: Response) => {
      const reply = new WebhookReply('tracker', res, deps.metrics, deps.logger);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (deps.webhookSecret) {
        const check = verifyHmacSha256(raw, req.get('x-hub-signature'), deps.webhookSecret);
        if (!check.ok) return reply.fail(401, 'invalid_signature', `X-Hub-Signature rejected: ${check.reason}`);
      }
      const body = parseJsonBody(raw);
      if (!body.ok) return reply.fail(400, 'invalid_json', body.message);
      const parsed = trackerWebhookSchema.safeParse(body.value);
      if (!parsed.success) return reply.fail(400, 'invalid_payload', `the tracker webhook is missing fields it needs: ${describeIssues(parsed.error.issues)}`);
      reply.received(trackerEventName(parsed.data) ?? 'unsupported');

      const normalised = normaliseTrackerEvent(parsed.data);
      if (normalised.kind === 'invalid') return reply.fail(400, 'invalid_payload', normalised.reason);
      if (normalised.kind === 'unsupported') return reply.ignored('unsupported_event', normalised.reason);
      const { observation } = normalised;
      await reply.handOver(async () => {
        const result = await deliverTrackerObservation(deps.workflows, observation, deps.guard);
        answerDelivery(reply, result, observation.delivery_identity);
      });
    },
  );
  return router;
}
