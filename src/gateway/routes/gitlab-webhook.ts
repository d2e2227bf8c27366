import express, { type Request, type Response, type Router } from 'express';
import { connectionWebhookSecret, findRegistryRepository, type RepositoryRegistry } from '../../config/repository-registry';
import { deliverSourceHostObservation } from '../../ingress/deliver-observation';
import type { LoopGuardOptions } from '../../ingress/loop-guard';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import { gitlabHookSchema } from '../../ingress/gitlab/gitlab-webhook-schema';
import { normaliseGitLabEvent } from '../../ingress/gitlab/normalise-gitlab-event';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';
import { tokensEqual } from '../webhook-signature';
import { answerDelivery, describeIssues, parseJsonBody, WebhookReply } from '../webhook-reply';

export const GITLAB_WEBHOOK_PATH = '/api/v1/webhooks/gitlab';

export interface GitLabWebhookDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  registry: RepositoryRegistry | undefined;
  env?: NodeJS.ProcessEnv;
  /** The service's own accounts and comment prefix: their comments are dropped (loop guard). */
  guard: LoopGuardOptions;
  bodyLimit?: string;
}

/**
 * POST /api/v1/webhooks/gitlab (SPEC 4.4). Only repositories listed in the repository registry file are served;
 * `X-Sourcehost-Token` (or GitLab's own `X-Gitlab-Token`) must equal the secret named by the connection's
 * `webhook_secret_env`. Queued deliveries are answered 202.
 */
export function gitlabWebhookRouter(deps: GitLabWebhookDeps): Router {
  const router = express.Router();
  router.post(GITLAB_WEBHOOK_PATH, express.raw({ type: () => true, limit: deps.bodyLimit ?? '25mb' }), async (req: Request, res: Response) => {
    const reply = new WebhookReply('gitlab', res, deps.metrics, deps.logger, 202);
    const body = parseJsonBody(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    if (!body.ok) return reply.fail(400, 'invalid_json', body.message);
    const kind = (body.value as { object_kind?: unknown } | null)?.object_kind;
    if (typeof kind !== 'string') return reply.fail(400, 'invalid_payload', 'object_kind is required');
    if (!['merge_request', 'note', 'pipeline', 'push'].includes(kind)) {
      reply.received('unsupported');
      return reply.ignored('unsupported_event', `GitLab event "${kind}" is not used by the service`);
    }
    reply.received(kind);
    const parsed = gitlabHookSchema.safeParse(body.value);
    if (!parsed.success) return reply.fail(400, 'invalid_payload', `the GitLab ${kind} hook is missing fields it needs: ${describeIssues(parsed.error.issues)}`);
    const hook = parsed.data;

    const repository = findRegistryRepository(deps.registry, hook.project.path_with_namespace);
    if (!repository) {
      return reply.fail(404, 'unknown_repository', `repository ${hook.project.path_with_namespace} is not an entry of the repository registry (SERVICE_REPOS_CONFIG_PATH)`);
    }
    const secret = connectionWebhookSecret(repository.connection, deps.env ?? process.env);
    if (secret) {
      const token = req.get('x-sourcehost-token') ?? req.get('x-gitlab-token');
      if (!tokensEqual(token, secret)) {
        return reply.fail(401, 'invalid_token', token === undefined
          ? `X-Sourcehost-Token is missing (connection ${repository.connection.name} requires it)`
          : `X-Sourcehost-Token does not match the secret of connection ${repository.connection.name}`);
      }
    }

    const normalised = normaliseGitLabEvent(hook);
    if (normalised.kind === 'unsupported') return reply.ignored('unsupported_event', normalised.reason);
    await reply.handOver(async () => {
      const result = await deliverSourceHostObservation(deps.workflows, normalised.observation, normalised.routing, deps.guard);
      answerDelivery(reply, result, normalised.observation.delivery_identity);
    });
  });
  return router;
}
