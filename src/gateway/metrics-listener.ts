import { createServer } from 'node:http';
import type { ServiceConfig } from '../config/service-config';
import { listen, type ListeningServer } from '../http/listen';
import { answerMetrics } from '../metrics/metrics-endpoint';
import type { ServiceMetrics } from '../metrics/service-metrics';
import { errorBody } from './http-errors';

/**
 * The gateway's /metrics on an address and port of its own (SERVICE_GATEWAY_METRICS_HOST, _PORT), so that the public
 * port, the one the providers' webhooks reach, does not serve it (the app answers 404 there). Serves /metrics only;
 * undefined when no metrics port is configured.
 */
export async function listenGatewayMetrics(config: ServiceConfig, metrics: ServiceMetrics): Promise<ListeningServer | undefined> {
  const apart = config.gateway.metrics;
  if (!apart) return undefined;
  const server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      answerMetrics(req, res, { registry: metrics.registry, token: config.metrics?.token }).catch(() => {
        res.statusCode = 500;
        res.end();
      });
      return;
    }
    res.statusCode = 404;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(errorBody('not_found', 'the gateway\'s metrics port serves GET /metrics only')));
  });
  return listen(server, apart.host, apart.port, 'gateway metrics');
}
