import type { ServiceConfig } from '../config/service-config';
import { metricsAccess } from '../metrics/metrics-endpoint';
import type { ServiceMetrics } from '../metrics/service-metrics';
import { errorBody } from './http-errors';
import { failed, readinessAnswer, type ReadinessAnswer } from '../health/readiness';
import { startProbeThread, type ForwardedAnswer, type ForwardedRequest, type ProbePort } from './probe-thread';

/** The readiness probe's path (src/gateway/routes/health-api.ts), answered here as on the public port. */
const READINESS_PATH = '/api/v1/health/ready';

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

/**
 * The gateway's /metrics on an address and port of its own (SERVICE_GATEWAY_METRICS_HOST, _PORT), so that the public
 * port, the one the providers' webhooks reach, does not serve it (the app answers 404 there). It answers the health
 * probes too (`/api/v1/health`, `/live`, `/ready`, the same answers as the public port's). The port is served by a
 * thread of its own (./probe-thread.ts): a flood on the public port neither queues a probe behind its connections
 * nor, for `/api/v1/health` and `/live`, behind the gateway's busy event loop. `/metrics` and `/ready` are answered
 * by the event loop, here. Undefined when no metrics port is configured.
 */
export async function listenGatewayMetrics(
  config: ServiceConfig,
  metrics: ServiceMetrics,
  ready: () => Promise<ReadinessAnswer> = async () => readinessAnswer([]),
): Promise<ProbePort | undefined> {
  const apart = config.gateway.metrics;
  if (!apart) return undefined;
  const answer = async (request: ForwardedRequest): Promise<ForwardedAnswer> => {
    const reading = request.method === 'GET' || request.method === 'HEAD';
    if (reading && request.path === '/metrics') {
      const access = metricsAccess(request.authorization, config.metrics?.token);
      if (!access.allowed) {
        return { status: 401, headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="metrics"' }, body: JSON.stringify({ error: { code: 'unauthorized', message: access.message } }) };
      }
      return { status: 200, headers: { 'Content-Type': metrics.registry.contentType }, body: await metrics.registry.metrics() };
    }
    if (reading && request.path === READINESS_PATH) {
      const readiness = await ready().catch(() => readinessAnswer([failed('readiness', 'the readiness check failed')]));
      return { status: readiness.statusCode, headers: JSON_HEADERS, body: JSON.stringify(readiness.body) };
    }
    return {
      status: 404, headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(errorBody('not_found', 'the gateway\'s metrics port serves GET /metrics and the health probes (/api/v1/health, /live, /ready) only')),
    };
  };
  return startProbeThread({ host: apart.host, port: apart.port, answer });
}
