import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/logger';
import type { ServiceMetrics } from '../../metrics/service-metrics';
import { TemporalUnavailableError } from '../../temporal/temporal-unavailable-error';
import { errorBody } from '../http-errors';
import { requireBearerToken } from '../operator-auth';
import { compactProjection, isObservationStale, servedExecutionView } from '../read-models/compact-projection';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';
import { TICKET_KEY } from '../../ingress/tracker/tracker-webhook-schema';
import { MAX_TIMELINE_PAGE } from '../../../workflows/read-model/timeline';
import type { ExecutionView } from '../../../workflows/read-model/execution-view';

export interface ReadApiDeps {
  workflows: TicketWorkflowsPort;
  metrics: ServiceMetrics;
  logger: Logger;
  operatorToken?: string;
  now?: () => Date;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

function integerParam(raw: unknown, name: string, fallback: number, min: number, max: number): Parsed<number> {
  if (raw === undefined) return { ok: true, value: fallback };
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return { ok: false, message: `${name} must be a whole number, got ${JSON.stringify(raw)}` };
  const value = Number(raw);
  if (value < min || value > max) return { ok: false, message: `${name} must be between ${min} and ${max}, got ${value}` };
  return { ok: true, value };
}

/**
 * The execution read API (SPEC 4.6). Read-only: it asks the ticket workflow for its own projection through queries
 * and never calls a provider or moves a workflow.
 */
export function readApiRouter(deps: ReadApiDeps): Router {
  const router = express.Router();
  const now = deps.now ?? (() => new Date());
  router.use(['/api/v1/workflows', '/api/v1/org-pulse'], requireBearerToken(deps.operatorToken, 'SERVICE_OPERATOR_TOKEN'));

  const ticketKeyOf = (req: Request, res: Response): string | undefined => {
    const key = String(req.params.ticket_key ?? '').toUpperCase();
    if (!TICKET_KEY.test(key)) {
      res.status(400).json(errorBody('invalid_ticket_key', `"${req.params.ticket_key}" is not a ticket key like PROJ-123`));
      return undefined;
    }
    return key;
  };

  const handle = (route: string, fn: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    const stop = deps.metrics.readModelLatency.startTimer({ route });
    try {
      await fn(req, res);
    } catch (error) {
      if (error instanceof TemporalUnavailableError) {
        deps.logger.warn('read API could not reach the workflow', { route, error: error.message });
        res.status(503).json(errorBody('temporal_unavailable', 'the workflow could not be queried (Temporal or the worker is unavailable); retry later'));
      } else {
        deps.logger.error('read API failed', { route, error: (error as Error).message });
        res.status(500).json(errorBody('internal_error', (error as Error).message));
      }
    } finally {
      stop();
    }
  };

  const sample = (view: ExecutionView) => {
    // Gauges describe the most recently sampled execution; setting (not adding) keeps repeated GETs from inflating them.
    deps.metrics.retryCount.set(view.retry_count);
    deps.metrics.blockedState.set(view.checkpoint.is_blocked ? 1 : 0);
    deps.metrics.driftState.set(view.last_observation?.conflicting ? 2 : isObservationStale(view, now()) ? 1 : 0);
    deps.metrics.migrationEligibility.set(view.migration === null ? -1 : view.migration.eligible ? 1 : 0);
  };

  const notFound = (res: Response, key: string) => res.status(404).json(errorBody('not_found', `no workflow for ticket ${key}`));

  router.get('/api/v1/workflows/:ticket_key/execution', handle('execution', async (req, res) => {
    const key = ticketKeyOf(req, res);
    if (!key) return;
    const view = await deps.workflows.execution(key);
    if (!view) return void notFound(res, key);
    sample(view);
    res.json(servedExecutionView(view, now()));
  }));

  router.get('/api/v1/workflows/:ticket_key/execution/timeline', handle('timeline', async (req, res) => {
    const key = ticketKeyOf(req, res);
    if (!key) return;
    const cursor = integerParam(req.query.cursor, 'cursor', 0, 0, Number.MAX_SAFE_INTEGER);
    if (!cursor.ok) return void res.status(400).json(errorBody('invalid_cursor', cursor.message));
    const limit = integerParam(req.query.limit, 'limit', 50, 1, MAX_TIMELINE_PAGE);
    if (!limit.ok) return void res.status(400).json(errorBody('invalid_limit', limit.message));
    const page = await deps.workflows.timeline(key, cursor.value, limit.value);
    if (!page) return void notFound(res, key);
    res.json(page);
  }));

  router.get('/api/v1/org-pulse/workflows/:ticket_key', handle('org_pulse', async (req, res) => {
    const key = ticketKeyOf(req, res);
    if (!key) return;
    const view = await deps.workflows.execution(key);
    if (!view) return void notFound(res, key);
    sample(view);
    res.json(compactProjection(view, now()));
  }));

  return router;
}
