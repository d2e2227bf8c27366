import { createServer } from 'node:http';
import { loadRepositoryRegistry } from '../config/repository-registry';
import type { ServiceConfig } from '../config/service-config';
import { listen, type ListeningServer } from '../http/listen';
import type { Logger } from '../logging/logger';
import { createServiceMetrics } from '../metrics/service-metrics';
import { createGatewayApp } from './app';
import { TemporalTicketWorkflows } from '../temporal/ticket-workflows';

export interface RunningGateway extends ListeningServer {
  stop(): Promise<void>;
}

export async function startGateway(config: ServiceConfig, logger: Logger): Promise<RunningGateway> {
  const workflows = TemporalTicketWorkflows.lazy(config);
  const metrics = createServiceMetrics({ defaultMetrics: true });
  const registry = loadRepositoryRegistry(process.env);
  const app = createGatewayApp({ config, workflows, metrics, logger, registry });
  const listening = await listen(createServer(app), config.gateway.host, config.gateway.port, 'gateway');
  logger.info('gateway listening', { url: listening.url, temporal: config.temporal.address, namespace: config.temporal.namespace });
  return {
    ...listening,
    stop: async () => {
      await listening.close();
      await workflows.close().catch(() => undefined);
    },
  };
}
