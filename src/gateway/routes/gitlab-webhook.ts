import express, { type Request, type Response, type Router } from 'express';
import { connectionWebhookSecret, findRegistryRepository, type RepositoryRegistry } from '../../config/repository-registry';
import { ALLOW_UNSIGNED_WEBHOOKS_ENV } from '../../config/webhook-secrets';
import { deliverSourceHostObservation } from '../../ingress/deliver-observation';
import type { LoopGuardOptions } from '../../ingress/loop-guard';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import { gitlabHookSchema } from '../../ingress/gitlab/gitlab-webhook-schema';
import { mergeRequestProject, normaliseGitLabEvent } from '../../ingress/gitlab/normalise-gitlab-event';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';
import { secretsMatching } from '../webhook-signature';
import { answerDelivery, describeIssues, parseJsonBody, WebhookReply } from '../webhook-reply';
import { RefusalLog } from '../refusal-log';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../webhook-body';
import { readWebhookBody } from '../webhook-intake';
import { webhookResponseCounter } from '../webhook-response-counter';

export const GITLAB_WEBHOOK_PATH = '/api/v1/webhooks/gitlab';

export interface GitLabWebhookDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  registry: RepositoryRegistry | undefined;
  env?: NodeJS.ProcessEnv;
  /** SERVICE_ALLOW_UNSIGNED_WEBHOOKS: a connection without a secret serves unauthenticated deliveries only with it. */
  allowUnsigned?: boolean;
  /** The service's own accounts and comment prefix: their comments are dropped (loop guard). */
  guard: LoopGuardOptions;
  /** WEBHOOK_BODY_LIMIT_BYTES unless given. */
  bodyLimitBytes?: number;
}

/**
 * Which registry connections a delivery may speak for, decided from its token header alone: those whose secret the
 * token equals (each secret compared in constant time), plus, with the opt-in, those that have no secret.
 */
export function authenticatedConnections(registry: RepositoryRegistry | undefined, token: string | undefined, env: NodeJS.ProcessEnv, allowUnsigned: boolean): string[] {
  const connections = [...(registry?.connections.values() ?? [])];
  const secrets = connections.flatMap((c) => {
    const secret = connectionWebhookSecret(c, env);
    return secret ? [{ name: c.name, secret }] : [];
  });
  const open = allowUnsigned ? connections.filter((c) => !secrets.some((s) => s.name === c.name)).map((c) => c.name) : [];
  return [...secretsMatching(token, secrets), ...open];
}

/**
 * POST /api/v1/webhooks/gitlab (SPEC 4.4). Only repositories listed in the repository registry file are served;
 * `X-Sourcehost-Token` (or GitLab's own `X-Gitlab-Token`) must equal the secret named by the connection's
 * `webhook_secret_env`. The repository (and so its connection) is named only in the body, and a body is never parsed
 * before it is authenticated: a token that is the secret of no connection is refused from the headers, the body is
 * parsed only then, and the repository's connection must be one the token is the secret of. Queued deliveries are
 * answered 202.
 */
export function gitlabWebhookRouter(deps: GitLabWebhookDeps): Router {
  const router = express.Router();
  const refusals = new RefusalLog(deps.logger);
  router.post(GITLAB_WEBHOOK_PATH, webhookResponseCounter('gitlab', deps.metrics), async (req: Request, res: Response) => {
    const reply = new WebhookReply('gitlab', res, deps.metrics, deps.logger, 202, refusals);
    const env = deps.env ?? process.env;
    const token = req.get('x-sourcehost-token') ?? req.get('x-gitlab-token');
    const allowed = authenticatedConnections(deps.registry, token, env, deps.allowUnsigned ?? false);
    if (allowed.length === 0) {
      return reply.fail(401, 'invalid_token', token === undefined
        ? 'X-Sourcehost-Token is missing (the secret of the repository registry connection that serves the repository)'
        : `X-Sourcehost-Token is the webhook secret of no connection of the repository registry (SERVICE_REPOS_CONFIG_PATH)${deps.registry ? '' : ', and none is configured'}`);
    }
    const raw = await readWebhookBody(req, reply, deps.bodyLimitBytes ?? WEBHOOK_BODY_LIMIT_BYTES);
    if (raw === undefined) return;
    const body = parseJsonBody(raw);
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

    // A fork's pipeline of a merge request into a registry project speaks for that project (its merge request).
    const project = mergeRequestProject(hook);
    const repository = findRegistryRepository(deps.registry, project);
    if (!repository) {
      return reply.fail(404, 'unknown_repository', `repository ${project} is not an entry of the repository registry (SERVICE_REPOS_CONFIG_PATH)`);
    }
    // The token proved the sender holds some connection's secret; the repository's connection must be that one.
    if (!allowed.includes(repository.connection.name)) {
      return reply.fail(401, 'invalid_token', connectionWebhookSecret(repository.connection, env)
        ? `X-Sourcehost-Token does not match the secret of connection ${repository.connection.name}, which serves ${project}`
        : `connection ${repository.connection.name} has no webhook secret and ${ALLOW_UNSIGNED_WEBHOOKS_ENV} is not set`);
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
