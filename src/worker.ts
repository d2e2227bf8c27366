import { createServer } from 'node:http';
import type { InjectedSinks, NativeConnection as NativeConnectionType, Worker as WorkerType } from '@temporalio/worker';
import { Connection } from '@temporalio/client';
import type { ServiceConfig } from './config/service-config';
import { listen, type ListeningServer } from './http/listen';
import type { Logger } from './logging/logger';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics';
import { ensureSearchAttributes } from './temporal/search-attributes';
import type { ServiceMetricsSinks } from '../workflows/metrics-sink';
import { SEARCH_ATTRIBUTE_TYPES } from '../workflows/messages';

export interface RunningWorker {
  metricsUrl: string;
  /** Resolves when the worker has stopped polling and finished in-flight tasks. */
  done: Promise<void>;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

function workerSinks(metrics: ServiceMetrics): InjectedSinks<ServiceMetricsSinks> {
  return {
    serviceMetrics: {
      workflowStarted: { fn: (_info, type) => metrics.workflowsStarted.inc({ type }) },
      workflowCompleted: { fn: (_info, type) => metrics.workflowsCompleted.inc({ type }) },
      workflowFailed: { fn: (_info, type) => metrics.workflowsFailed.inc({ type }) },
    },
  };
}

/**
 * Runs the worker: ticket workflows (and, as they land, activities and the poller) on the configured task queue,
 * with Prometheus metrics on its own port. The caller owns process signals: the Temporal runtime's own handlers are
 * disabled so that `service dev` can stop the worker before it stops the server the worker is polling.
 */
export async function startWorker(config: ServiceConfig, logger: Logger): Promise<RunningWorker> {
  // Imported lazily: loading the native worker costs time that commands like `service version` should not pay.
  const { DefaultLogger, NativeConnection, Runtime, Worker } = await import('@temporalio/worker');
  if (!runtimeInstalled) {
    // The SDK's own INFO lines (bundle statistics, state changes) drown the service's log; keep its warnings.
    Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'WARN') });
    runtimeInstalled = true;
  }

  // The workflow needs its search attributes registered; against a shared cluster the operator may have done it.
  try {
    const admin = await Connection.connect({ address: config.temporal.address, connectTimeout: 5_000 });
    try {
      const result = await ensureSearchAttributes(admin, config.temporal.namespace, SEARCH_ATTRIBUTE_TYPES);
      if (result.added.length > 0) logger.info('registered search attributes', { added: result.added });
    } finally {
      await admin.close();
    }
  } catch (error) {
    logger.warn('could not check the custom search attributes; workflows fail until they exist', { error: (error as Error).message });
  }

  const metrics = createServiceMetrics({ defaultMetrics: true });
  let connection: NativeConnectionType | undefined;
  let worker: WorkerType | undefined;
  let metricsServer: ListeningServer | undefined;
  try {
    connection = await NativeConnection.connect({ address: config.temporal.address });
    worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      workflowsPath: require.resolve('../workflows'),
      sinks: workerSinks(metrics),
      shutdownGraceTime: '5s',
      shutdownForceTime: '15s',
    });
    metricsServer = await listen(createServer(async (req, res) => {
      if (req.url === '/metrics') {
        res.setHeader('Content-Type', metrics.registry.contentType);
        res.end(await metrics.registry.metrics());
      } else {
        res.statusCode = 404;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'the worker serves only /metrics' } }));
      }
    }), config.worker.metricsHost, config.worker.metricsPort, 'worker metrics');
  } catch (error) {
    await metricsServer?.close();
    await connection?.close().catch(() => undefined);
    throw error;
  }
  const running = worker;
  const done = running.run().finally(async () => {
    await metricsServer?.close();
    await connection?.close().catch(() => undefined);
  });
  logger.info('worker polling', { task_queue: config.temporal.taskQueue, temporal: config.temporal.address, namespace: config.temporal.namespace, metrics: `${metricsServer.url}/metrics` });
  return {
    metricsUrl: `${metricsServer.url}/metrics`,
    done,
    stop: async () => {
      if (running.getState() === 'RUNNING') running.shutdown();
      await done;
    },
  };
}
