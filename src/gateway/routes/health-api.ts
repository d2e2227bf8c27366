import express, { type Response, type Router } from 'express';
import { LIVENESS_BODY } from '../../health/health-endpoints';
import { readinessAnswer, type ReadinessAnswer } from '../../health/readiness';

export interface HealthApiDeps {
  /** The readiness probe (src/health/service-readiness.ts); without one the gateway never says it is ready. */
  ready?: () => Promise<ReadinessAnswer>;
}

function noStore(res: Response): Response {
  // A probe's answer is about this moment: no proxy or client may keep it.
  return res.set('Cache-Control', 'no-store');
}

/**
 * GET /api/v1/health (SPEC 4.1: 200 while the API server runs, nothing checked), and the Kubernetes probes:
 * /api/v1/health/live (the event loop answers) and /api/v1/health/ready (Temporal, the namespace and the search
 * attributes; 503 naming each check that failed, and at once when the gateway is shutting down).
 */
export function healthApiRouter(deps: HealthApiDeps): Router {
  const router = express.Router();
  router.get('/api/v1/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/api/v1/health/live', (_req, res) => {
    noStore(res).json(LIVENESS_BODY);
  });
  router.get('/api/v1/health/ready', async (_req, res) => {
    const answer = deps.ready ? await deps.ready() : readinessAnswer([]);
    noStore(res).status(answer.statusCode).json(answer.body);
  });
  return router;
}
