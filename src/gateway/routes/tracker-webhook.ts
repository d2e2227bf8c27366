import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';
import { issueIdOfComment, type IssueKeyResolver } from '../../ingress/tracker/comment-issue';
import { withCommentReadBack, type CommentBodyReader } from '../../ingress/tracker/lossy-comment-read-back';
import { withCommentIssueLabels, type IssueLabelReader } from '../../ingress/tracker/comment-event-labels';
import { normaliseIssuelessComment, normaliseTrackerEvent, trackerEventName } from '../../ingress/tracker/normalise-tracker-event';
import { issuelessCommentWebhookSchema, trackerEnvelopeSchema, trackerWebhookSchema, type IssuelessCommentWebhook } from '../../ingress/tracker/tracker-webhook-schema';
import { NotFoundProviderError, RetryableProviderError } from '../../providers/provider-errors';
import type { Observation } from '../../../workflows/ledger/observation';
import { deliverTrackerObservation } from '../../ingress/deliver-observation';
import type { LoopGuardOptions } from '../../ingress/loop-guard';
import { answerDelivery, describeIssues, parseJsonBody, WebhookReply } from '../webhook-reply';
import { RefusalLog } from '../refusal-log';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../webhook-body';
import { readSignedWebhook } from '../webhook-intake';
import type { PendingBodyBudget } from '../pending-body-budget';
import { webhookResponseCounter } from '../webhook-response-counter';

export interface TrackerWebhookDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  webhookSecret?: string;
  /** SERVICE_ALLOW_UNSIGNED_WEBHOOKS: without a secret, deliveries are refused unless this is set. */
  allowUnsigned?: boolean;
  /** The service's own accounts and comment prefix: their comments are dropped (loop guard). */
  guard: LoopGuardOptions;
  /** Webhook bodies can be megabytes (ADF documents, long changelogs); WEBHOOK_BODY_LIMIT_BYTES unless given. */
  bodyLimitBytes?: number;
  /** The gateway's budget of bodies read before their signature is checked; without it, only the size limit holds. */
  pendingBodies?: PendingBodyBudget;
  /**
   * Reads a comment through REST v3, for a webhook whose wiki-markup body lost something (a mention, an attachment);
   * needs tracker credentials. Without it the wiki reading is used as it is.
   */
  comments?: CommentBodyReader;
  /** Reads an issue's labels, for comment events (which carry none) on tickets the service provisioned; needs tracker credentials. */
  issueLabels?: IssueLabelReader;
  /** Looks up an issue's key by its id, for comment events that carry no issue (Jira Server/DC); needs tracker credentials. */
  issueKeys?: IssueKeyResolver;
}

/**
 * POST /api/v1/webhooks/tracker. Answers 200 only after Temporal accepted the signal, 503 when it could not be
 * reached (the tracker redelivers; nothing is half-applied because a signal is the only write).
 */
export function trackerWebhookRouter(deps: TrackerWebhookDeps): Router {
  const router = express.Router();
  const refusals = new RefusalLog(deps.logger);
  router.post(
    '/api/v1/webhooks/tracker',
    webhookResponseCounter('tracker', deps.metrics),
    async (req: Request, res: Response) => {
      const reply = new WebhookReply('tracker', res, deps.metrics, deps.logger, 200, refusals);
      // Authenticated before parsed: the signature header is checked before the body is read, the body when read.
      const raw = await readSignedWebhook(req, reply, {
        secret: deps.webhookSecret, allowUnsigned: deps.allowUnsigned ?? false, header: 'X-Hub-Signature',
        secretVariable: 'TRACKER_WEBHOOK_SECRET', limitBytes: deps.bodyLimitBytes ?? WEBHOOK_BODY_LIMIT_BYTES,
        ...(deps.pendingBodies ? { pending: { budget: deps.pendingBodies, route: 'tracker' } } : {}),
      });
      if (raw === undefined) return;
      const body = parseJsonBody(raw);
      if (!body.ok) return reply.fail(400, 'invalid_json', body.message);
      // The event first, then what that event needs: an event the service does not use is answered, never refused.
      const envelope = trackerEnvelopeSchema.safeParse(body.value);
      if (!envelope.success) return reply.fail(400, 'invalid_payload', `not a tracker webhook: ${describeIssues(envelope.error.issues)}`);
      const event = trackerEventName(envelope.data);
      reply.received(event ?? 'unsupported');
      if (!event) return reply.ignored('unsupported_event', `unsupported tracker event "${envelope.data.webhookEvent}"`);

      // Issue events always carry their issue (without one the body is not Jira's: 400 below); comment events from
      // Jira Server/DC carry only the comment.
      if (envelope.data.issue === undefined && event === 'issue_commented') {
        const parsed = issuelessCommentWebhookSchema.safeParse(body.value);
        if (!parsed.success) return reply.fail(400, 'invalid_payload', `the tracker comment webhook is missing fields it needs: ${describeIssues(parsed.error.issues)}`);
        return reply.handOver(async () => {
          const resolved = await resolveComment(deps, reply, parsed.data);
          const [observation] = resolved ? await withLabels(deps, reply, [resolved]) ?? [] : [];
          if (observation) answerDelivery(reply, await deliverTrackerObservation(deps.workflows, observation, deps.guard), observation.delivery_identity);
        });
      }

      const parsed = trackerWebhookSchema.safeParse(body.value);
      if (!parsed.success) return reply.fail(400, 'invalid_payload', `the tracker webhook is missing fields it needs: ${describeIssues(parsed.error.issues)}`);
      const payload = await readBack(deps, reply, parsed.data, parsed.data.issue.key);
      if (payload === undefined) return;
      const normalised = normaliseTrackerEvent(payload);
      if (normalised.kind === 'invalid') return reply.fail(400, 'invalid_payload', normalised.reason);
      if (normalised.kind === 'unsupported') return reply.ignored('unsupported_event', normalised.reason);
      await reply.handOver(async () => {
        const observations = await withLabels(deps, reply, normalised.observations);
        if (!observations) return;
        const observation = observations[normalised.observations.indexOf(normalised.observation)]!;
        // Every fact the delivery carries is handed over before answering; the answer names the event's own fact.
        const outcomes = [];
        for (const each of observations) outcomes.push(await deliverTrackerObservation(deps.workflows, each, deps.guard));
        answerDelivery(reply, outcomes[observations.indexOf(observation)]!, observation.delivery_identity);
      });
    },
  );
  return router;
}

/**
 * Finds the ticket of a comment event that names its issue only in the comment's `self` URL. A tracker that cannot
 * be reached answers 503 so Jira redelivers; an issue that no longer exists, or no tracker credentials to ask with,
 * is answered 200 and counted, since redelivering would not help.
 */
async function resolveComment(deps: TrackerWebhookDeps, reply: WebhookReply, payload: IssuelessCommentWebhook): Promise<Observation | undefined> {
  const issueId = issueIdOfComment(payload.comment.self);
  if (!issueId) {
    reply.fail(400, 'invalid_payload', `comment.self does not name an issue: ${payload.comment.self}`);
    return undefined;
  }
  if (!deps.issueKeys) {
    reply.ignored('unresolved_issue', `comment on issue ${issueId} without an issue object; set TRACKER_BASE_URL, TRACKER_USER_EMAIL and TRACKER_API_TOKEN so the gateway can look the issue up`);
    return undefined;
  }
  try {
    const key = await deps.issueKeys.keyOf(issueId);
    const read = await readBack(deps, reply, payload, key);
    return read && normaliseIssuelessComment(read, { id: issueId, key });
  } catch (error) {
    if (error instanceof NotFoundProviderError) {
      reply.ignored('unresolved_issue', `comment on issue ${issueId}, which the tracker does not know`);
      return undefined;
    }
    if (error instanceof RetryableProviderError) {
      reply.fail(503, 'tracker_unavailable', `the tracker could not be asked for issue ${issueId}; retry later`);
      return undefined;
    }
    throw error;
  }
}

/**
 * The delivery with its comment read back through REST when its wiki form lost something; undefined when that read
 * failed and was answered (503 for a tracker that could not be asked, so Jira redelivers and the poller finds the
 * comment anyway; 200 and ignored for a comment deleted since).
 */
async function readBack<T extends { comment?: { id: string; body?: unknown } }>(deps: TrackerWebhookDeps, reply: WebhookReply, payload: T, issueKey: string): Promise<T | undefined> {
  try {
    return await withCommentReadBack(payload, issueKey, deps.comments);
  } catch (error) {
    if (error instanceof NotFoundProviderError) {
      reply.ignored('comment_gone', `comment ${payload.comment?.id} on ${issueKey} could not be read back from the tracker: it no longer exists`);
      return undefined;
    }
    if (error instanceof RetryableProviderError) {
      reply.fail(503, 'tracker_unavailable', `comment ${payload.comment?.id} on ${issueKey} must be read back from the tracker (its wiki markup lost a mention or an attachment), and the tracker could not be asked; retry later`);
      return undefined;
    }
    throw error;
  }
}

/**
 * The observations with the labels of a comment's issue, which Jira's comment events leave out; undefined when the
 * tracker could not be asked (answered 503: Jira redelivers, the poller reads the comment with its issue anyway) or
 * the issue is gone (answered 200, ignored).
 */
async function withLabels(deps: TrackerWebhookDeps, reply: WebhookReply, observations: Observation[]): Promise<Observation[] | undefined> {
  try {
    return await withCommentIssueLabels(observations, deps.issueLabels, deps.guard);
  } catch (error) {
    const key = observations[0]?.ticket_key;
    if (error instanceof NotFoundProviderError) {
      reply.ignored('unresolved_issue', `comment on ${key}, which the tracker no longer knows`);
      return undefined;
    }
    if (error instanceof RetryableProviderError) {
      reply.fail(503, 'tracker_unavailable', `the labels of ${key} decide where its comment goes, and the tracker could not be asked for them; retry later`);
      return undefined;
    }
    throw error;
  }
}
