import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/logger';
import type { DefinitionsPort } from '../../temporal/temporal-definitions';
import { TemporalUnavailableError } from '../../temporal/temporal-unavailable-error';
import { errorBody } from '../http-errors';
import { requireBearerToken } from '../operator-auth';

export interface DefinitionApiDeps {
  definitions: DefinitionsPort;
  logger: Logger;
  operatorToken?: string;
}

/**
 * The definition registry's read route (DESIGN 6) behind SERVICE_OPERATOR_TOKEN: the built-in and published
 * revisions of every definition, and which one a new ticket pins. Publishing is `service definitions publish`.
 */
export function definitionApiRouter(deps: DefinitionApiDeps): Router {
  const router = express.Router();
  router.use('/api/v1/definitions', requireBearerToken(deps.operatorToken, 'SERVICE_OPERATOR_TOKEN'));

  const handle = (fn: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      await fn(req, res);
    } catch (error) {
      if (error instanceof TemporalUnavailableError) {
        deps.logger.warn('definition API could not reach Temporal', { error: error.message });
        res.status(503).json(errorBody('temporal_unavailable', 'the definition registry could not be reached (Temporal or the worker is unavailable); retry later'));
        return;
      }
      deps.logger.error('definition API failed', { error: (error as Error).message });
      res.status(500).json(errorBody('internal_error', (error as Error).message));
    }
  };

  router.get('/api/v1/definitions', handle(async (_req, res) => {
    res.json({ schema_version: '1.0', definitions: await deps.definitions.list() });
  }));

  return router;
}
