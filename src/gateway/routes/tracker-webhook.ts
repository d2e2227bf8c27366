import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import { errorBody, TemporalUnavailableError } from '../http-errors';
import type { TicketWorkflowsPort } from '../ticket-workflows';
import { normaliseTrackerEvent, trackerEventName } from '../tracker/normalise-tracker-event';
import { planTrackerDelivery } from '../tracker/plan-tracker-delivery';
import { trackerWebhookSchema } from '../tracker/tracker-webhook-schema';
import { verifyHmacSha256 } from '../webhook-signature';

export interface TrackerWebhookDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  webhookSecret?: string;
  botAccount?: string;
  botCommentPrefix?: string;
  /** Webhook bodies can be megabytes (ADF documents, long changelogs). */
  bodyLimit?: string;
}

const SOURCE = 'tracker';

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
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const fail = (status: number, code: string, message: string, event = 'unknown') => {
        deps.metrics.webhooksFailed.inc({ source: SOURCE, event });
        deps.logger.warn('tracker webhook rejected', { status, code, reason: message });
        res.status(status).json(errorBody(code, message));
      };

      if (deps.webhookSecret) {
        const check = verifyHmacSha256(raw, req.get('x-hub-signature'), deps.webhookSecret);
        if (!check.ok) return fail(401, 'invalid_signature', `X-Hub-Signature rejected: ${check.reason}`);
      }

      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch (error) {
        return fail(400, 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
      }
      const parsed = trackerWebhookSchema.safeParse(body);
      if (!parsed.success) {
        const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
        return fail(400, 'invalid_payload', `the tracker webhook is missing fields it needs: ${detail}`);
      }
      const eventName = trackerEventName(parsed.data) ?? 'unsupported';
      deps.metrics.webhooksReceived.inc({ source: SOURCE, event: eventName });

      const normalised = normaliseTrackerEvent(parsed.data);
      if (normalised.kind === 'invalid') return fail(400, 'invalid_payload', normalised.reason, eventName);
      if (normalised.kind === 'unsupported') {
        deps.metrics.webhooksIgnored.inc({ source: SOURCE, reason: 'unsupported_event' });
        deps.metrics.webhooksProcessed.inc({ source: SOURCE, event: eventName });
        res.status(200).json({ ignored: normalised.reason });
        return;
      }
      const { observation } = normalised;
      const plan = planTrackerDelivery(observation, { botAccount: deps.botAccount, botCommentPrefix: deps.botCommentPrefix });
      try {
        if (plan.action === 'ignore') {
          deps.metrics.webhooksIgnored.inc({ source: SOURCE, reason: plan.reason.includes('service') && observation.facts.comment ? 'own_comment' : 'not_managed' });
          deps.metrics.webhooksProcessed.inc({ source: SOURCE, event: eventName });
          deps.logger.info('tracker webhook ignored', { ticket_key: observation.ticket_key, reason: plan.reason });
          res.status(200).json({ ignored: plan.reason, ticket_key: observation.ticket_key });
          return;
        }
        if (plan.action === 'start') {
          const { workflowId } = await deps.workflows.startOrSignal({
            ticket_key: observation.ticket_key,
            project_key: observation.ticket_key.split('-')[0]!,
            issue_type: observation.facts.issue_type ?? null,
            workflow_kind: plan.workflow_kind,
          }, observation);
          deps.metrics.webhooksProcessed.inc({ source: SOURCE, event: eventName });
          res.status(200).json({ status: 'accepted', workflow_id: workflowId, delivery_identity: observation.delivery_identity });
          return;
        }
        const outcome = await deps.workflows.signal(observation.ticket_key, observation);
        deps.metrics.webhooksProcessed.inc({ source: SOURCE, event: eventName });
        if (outcome === 'not_found') {
          deps.metrics.webhooksIgnored.inc({ source: SOURCE, reason: 'no_workflow' });
          res.status(200).json({ ignored: `no running workflow for ${observation.ticket_key}`, ticket_key: observation.ticket_key });
          return;
        }
        res.status(200).json({ status: 'accepted', ticket_key: observation.ticket_key, delivery_identity: observation.delivery_identity });
      } catch (error) {
        if (error instanceof TemporalUnavailableError) {
          deps.logger.error('Temporal unavailable; tracker webhook refused so the tracker redelivers', { ticket_key: observation.ticket_key, error: error.message });
          return fail(503, 'temporal_unavailable', 'the workflow store is unavailable; retry later', eventName);
        }
        deps.logger.error('tracker webhook failed', { ticket_key: observation.ticket_key, error: (error as Error).message });
        return fail(500, 'internal_error', `the delivery could not be handed over: ${(error as Error).message}`, eventName);
      }
    },
  );
  return router;
}
