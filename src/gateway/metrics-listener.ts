import { createServer } from 'node:http';
import type { ServiceConfig } from '../config/service-config';
import { listen, type ListeningServer } from '../http/listen';
import { answerMetrics } from '../metrics/metrics-endpoint';
import type { ServiceMetrics } from '../metrics/service-metrics';
import { errorBody } from './http-errors';
import { LIVENESS_BODY, sendProbeAnswer } from '../health/health-endpoints';
import { failed, readinessAnswer, type ReadinessAnswer } from '../health/readiness';

/** The gateway's probe paths (src/gateway/routes/health-api.ts), answered on the metrics port as on the public one. */
const HEALTH_PATH = '/api/v1/health';
const LIVENESS_PATH = '/api/v1/health/live';
const READINESS_PATH = '/api/v1/health/ready';

/**
 * The gateway's /metrics on an address and port of its own (SERVICE_GATEWAY_METRICS_HOST, _PORT), so that the public
 * port, the one the providers' webhooks reach, does not serve it (the app answers 404 there). It answers the health
 * probes too (`/api/v1/health`, `/live`, `/ready`, the same answers as the public port's): a flood of connections on
 * the public port fills that port's accept queue, and a probe waiting behind it took up to 424 ms while the event loop
 * never stalled more than 80 ms (bench:flood), so a kubelet pointed here is not queued behind the flood. Undefined
 * when no metrics port is configured.
 */
export async function listenGatewayMetrics(
  config: ServiceConfig,
  metrics: ServiceMetrics,
  ready: () => Promise<ReadinessAnswer> = async () => readinessAnswer([]),
): Promise<ListeningServer | undefined> {
  const apart = config.gateway.metrics;
  if (!apart) return undefined;
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const reading = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/metrics' && reading) {
      answerMetrics(req, res, { registry: metrics.registry, token: config.metrics?.token }).catch(() => {
        res.statusCode = 500;
        res.end();
      });
      return;
    }
    if (reading && path === HEALTH_PATH) return sendProbeAnswer(res, 200, { status: 'ok' });
    if (reading && path === LIVENESS_PATH) return sendProbeAnswer(res, 200, LIVENESS_BODY);
    if (reading && path === READINESS_PATH) {
      ready().then((answer) => sendProbeAnswer(res, answer.statusCode, answer.body), () => sendProbeAnswer(res, 503, readinessAnswer([failed('readiness', 'the readiness check failed')]).body));
      return;
    }
    res.statusCode = 404;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(errorBody('not_found', 'the gateway\'s metrics port serves GET /metrics and the health probes (/api/v1/health, /live, /ready) only')));
  });
  return listen(server, apart.host, apart.port, 'gateway metrics');
}
