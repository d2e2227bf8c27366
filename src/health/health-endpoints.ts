import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReadinessAnswer } from './readiness';

/** The worker's probe paths on its metrics port; the gateway's are under /api/v1/health (src/gateway/routes/health-api.ts). */
export const WORKER_LIVENESS_PATH = '/health/live';
export const WORKER_READINESS_PATH = '/health/ready';

/** Liveness asks only that the event loop answers: a process busy or waiting on Temporal is alive, not dead. */
export const LIVENESS_BODY = { status: 'alive' } as const;

/** A probe's answer as JSON, never cached (the worker's probes here, and the gateway's on its metrics port). */
export function sendProbeAnswer(res: ServerResponse, statusCode: number, body: unknown): void {
  res.statusCode = statusCode;
  res.setHeader('Content-Type', 'application/json');
  // A probe's answer is about this moment: no proxy or client may keep it.
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}

/**
 * GET /health/live and /health/ready for a plain Node server (the worker's metrics port). Resolves true when it
 * answered the request, false when the path is not one of them.
 */
export function healthRequestHandler(ready: () => Promise<ReadinessAnswer>): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== WORKER_LIVENESS_PATH && path !== WORKER_READINESS_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      sendProbeAnswer(res, 405, { error: { code: 'method_not_allowed', message: `${path} answers GET` } });
      return true;
    }
    if (path === WORKER_LIVENESS_PATH) {
      sendProbeAnswer(res, 200, LIVENESS_BODY);
      return true;
    }
    const answer = await ready();
    sendProbeAnswer(res, answer.statusCode, answer.body);
    return true;
  };
}
