import express, { type Express, type Request, type Response } from 'express';
import type { ServiceConfig } from '../config/service-config';
import type { Logger } from '../logging/logger';
import type { ServiceMetrics } from '../metrics/service-metrics';
import { answerMetrics } from '../metrics/metrics-endpoint';
import { loopGuardOf, type LoopGuardOptions } from '../ingress/loop-guard';
import { errorBody } from './http-errors';
import { gatewayErrorHandler } from './error-handler';
import { readApiRouter } from './routes/read-api';
import { findRegistryRepository, type RepositoryRegistry } from '../config/repository-registry';
import { effectApiRouter } from './routes/effect-api';
import { definitionApiRouter } from './routes/definition-api';
import type { DefinitionsPort } from '../temporal/temporal-definitions';
import { gitlabWebhookRouter } from './routes/gitlab-webhook';
import { scmhostWebhookRouter } from './routes/scmhost-webhook';
import { trackerWebhookRouter } from './routes/tracker-webhook';
import type { TicketWorkflowsPort } from '../temporal/ticket-workflows';
import type { IssueKeyResolver } from '../ingress/tracker/comment-issue';
import type { CommentBodyReader } from '../ingress/tracker/lossy-comment-read-back';
import type { IssueLabelReader } from '../ingress/tracker/comment-event-labels';
import { requireWebhookSecrets } from '../config/webhook-secrets';
import { healthApiRouter } from './routes/health-api';
import { pendingBodyGate } from './pending-body-gate';
import { RefusalLog } from './refusal-log';
import type { ReadinessAnswer } from '../health/readiness';
import { PendingBodyBudget } from './pending-body-budget';
import { consoleRouter } from '../console/console-router';
import type { ConsoleTicketsPort } from '../console/ticket-listing';
import type { ConsoleDefinitionsPort } from '../console/console-definitions';
import { githubWebUrl } from '../console/pages/ticket-links';
import type { BudgetLimits } from '../budgets/token-budget';

export interface GatewayDeps {
  config: ServiceConfig;
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  /** The repository registry file, loaded once per process (GitLab webhooks are served only for its entries). */
  registry?: RepositoryRegistry;
  /** Issue id -> key through the tracker, for comment events without an issue (Jira Server/DC). */
  issueKeys?: IssueKeyResolver;
  /** Reads a comment back through REST v3 when a webhook's wiki markup lost something; needs tracker credentials. */
  comments?: CommentBodyReader;
  /** Reads the labels of a comment's issue, which Jira's comment events leave out; needs tracker credentials. */
  issueLabels?: IssueLabelReader;
  /** The definition registry and migrations (DESIGN 6); their routes answer 503 without it. */
  definitions?: DefinitionsPort;
  /** The service's own identities; from the configuration unless given (the server adds the tracker account id). */
  guard?: LoopGuardOptions;
  /** The readiness probe behind /api/v1/health/ready; without it that route answers 503. */
  ready?: () => Promise<ReadinessAnswer>;
  /**
   * What webhook bodies may hold before their signature is checked, shared by the signed routes; from the
   * configuration (config.gateway.pendingBodies) unless given, so a test can read what it held.
   */
  pendingBodies?: PendingBodyBudget;
  /**
   * What the console reads beyond the workflows port (src/console): the board's listing from visibility (the board
   * answers 503 without it), the definition registry (the built-in definitions without it) and the deployment's
   * token budgets (no limits shown without them).
   */
  console?: { tickets?: ConsoleTicketsPort; definitions?: ConsoleDefinitionsPort; budgets?: BudgetLimits };
}

/**
 * The Express gateway: validates, normalises and signals. It makes no workflow decisions. Every route authenticates
 * before it reads a body (webhook signatures and tokens, operator bearer tokens), and nothing is parsed unread: no
 * body parser runs in front of the routes. Refuses to be built while a webhook secret is unset without the explicit
 * opt-in (SERVICE_ALLOW_UNSIGNED_WEBHOOKS).
 */
export function createGatewayApp(deps: GatewayDeps): Express {
  requireWebhookSecrets(deps.config, deps.registry, process.env);
  const allowUnsigned = deps.config.webhooks.allowUnsigned;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // GitLab's token is checked from the headers, so its bodies are authenticated before a byte is read: no budget.
  const pendingBodies = deps.pendingBodies ?? new PendingBodyBudget(deps.config.gateway.pendingBodies, (bytes) => deps.metrics.webhookPendingBodyBytes.set(bytes));
  // Before every router: while the budget is full a flood is refused for the least the process can spend on it.
  const gate = pendingBodyGate(pendingBodies, deps.metrics, new RefusalLog(deps.logger.child({ route: 'webhooks' })));
  app.use((req, res, next) => { if (!gate(req, res)) next(); });
  app.use(healthApiRouter({ ready: deps.ready }));
  // Apart (SERVICE_GATEWAY_METRICS_PORT): served by metrics-listener.ts only, and 404 here like any unknown route.
  if (!deps.config.gateway.metrics) {
    app.get('/metrics', (req, res, next) => { answerMetrics(req, res, { registry: deps.metrics.registry, token: deps.config.metrics?.token }).catch(next); });
  }

  const guard = deps.guard ?? loopGuardOf(deps.config);
  app.use(trackerWebhookRouter({
    workflows: deps.workflows,
    metrics: deps.metrics,
    logger: deps.logger.child({ route: 'webhooks/tracker' }),
    webhookSecret: deps.config.tracker.webhookSecret,
    allowUnsigned,
    guard,
    issueKeys: deps.issueKeys,
    comments: deps.comments,
    issueLabels: deps.issueLabels,
    pendingBodies,
  }));
  app.use(scmhostWebhookRouter({
    workflows: deps.workflows,
    metrics: deps.metrics,
    logger: deps.logger.child({ route: 'webhooks/scmhost' }),
    webhookSecret: deps.config.scmhost.webhookSecret,
    allowUnsigned,
    guard,
    pendingBodies,
  }));
  app.use(gitlabWebhookRouter({
    workflows: deps.workflows,
    metrics: deps.metrics,
    logger: deps.logger.child({ route: 'webhooks/gitlab' }),
    registry: deps.registry,
    allowUnsigned,
    guard,
  }));
  app.use(readApiRouter({
    workflows: deps.workflows,
    metrics: deps.metrics,
    logger: deps.logger.child({ route: 'read-api' }),
    operatorToken: deps.config.operatorToken,
  }));

  app.use(effectApiRouter({
    workflows: deps.workflows,
    logger: deps.logger.child({ route: 'effects' }),
    effectToken: deps.config.effectOperatorToken,
  }));

  if (deps.config.console.enabled) {
    app.use(consoleRouter({
      operatorToken: deps.config.operatorToken,
      workflows: deps.workflows,
      tickets: deps.console?.tickets,
      definitions: deps.console?.definitions,
      budgets: deps.console?.budgets ?? { ticket: null, stage: null, stages: {} },
      links: {
        trackerBaseUrl: deps.config.tracker.baseUrl,
        githubWebUrl: githubWebUrl(deps.config.scmhost.apiUrl),
        gitlabWebUrlOf: (project) => findRegistryRepository(deps.registry, project)?.connection.baseUrl,
        temporalUiUrl: deps.config.console.temporalUiUrl,
        namespace: deps.config.temporal.namespace,
      },
      logger: deps.logger.child({ route: 'console' }),
    }));
  }

  app.use(definitionApiRouter({ definitions: deps.definitions, logger: deps.logger.child({ route: 'definitions' }), operatorToken: deps.config.operatorToken }));

  app.use((req: Request, res: Response) => {
    res.status(404).json(errorBody('not_found', `no route for ${req.method} ${req.path}`));
  });
  app.use(gatewayErrorHandler(deps.logger));
  return app;
}
