import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/logger';
import { TemporalUnavailableError } from '../../temporal/temporal-unavailable-error';
import { errorBody } from '../http-errors';
import { requireBearerToken } from '../operator-auth';
import type { TicketWorkflowsPort } from '../../temporal/ticket-workflows';

export interface EffectApiDeps {
  workflows: TicketWorkflowsPort;
  logger: Logger;
  effectToken?: string;
}

/**
 * The effect API (SPEC 4.7) behind EFFECT_OPERATOR_TOKEN: inspect the effects of a run, one effect with its attempts
 * and provider evidence, and replay one terminal effect under its existing key. A replay repeats only that provider
 * mutation; it never reruns an agent or moves the workflow.
 */
export function effectApiRouter(deps: EffectApiDeps): Router {
  const router = express.Router();
  router.use('/api/v1/effects', requireBearerToken(deps.effectToken, 'EFFECT_OPERATOR_TOKEN'));

  const handle = (fn: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      await fn(req, res);
    } catch (error) {
      if (error instanceof TemporalUnavailableError) {
        deps.logger.warn('effect API could not reach the workflow', { error: error.message });
        res.status(503).json(errorBody('temporal_unavailable', 'the workflow could not be reached (Temporal or the worker is unavailable); retry later'));
        return;
      }
      deps.logger.error('effect API failed', { error: (error as Error).message });
      res.status(500).json(errorBody('internal_error', (error as Error).message));
    }
  };

  router.get('/api/v1/effects/workflow/:run_id', handle(async (req, res) => {
    const runId = String(req.params.run_id);
    const found = await deps.workflows.effectsOfRun(runId);
    if (!found) return void res.status(404).json(errorBody('not_found', `no workflow run ${runId}`));
    res.json({ schema_version: '1.0', run_id: runId, ticket_key: found.ticket_key, effects: found.effects });
  }));

  router.get('/api/v1/effects/:idempotency_key', handle(async (req, res) => {
    const key = String(req.params.idempotency_key);
    const effect = await deps.workflows.effect(key);
    if (!effect) return void res.status(404).json(errorBody('not_found', `no effect ${key}`));
    res.json({ schema_version: '1.0', effect });
  }));

  router.post('/api/v1/effects/:idempotency_key/replay', handle(async (req, res) => {
    const key = String(req.params.idempotency_key);
    const result = await deps.workflows.replayEffect(key, 'effect-api');
    if (result.outcome === 'not_found') return void res.status(404).json(errorBody('not_found', result.message));
    if (result.outcome === 'not_replayable') return void res.status(409).json(errorBody('not_replayable', result.message));
    deps.logger.info('effect replayed by an operator', { key, status: result.effect.status });
    res.json({ schema_version: '1.0', replayed: true, effect: result.effect });
  }));

  return router;
}
