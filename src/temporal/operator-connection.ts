import { Client, Connection } from '@temporalio/client';
import { loadServiceConfig } from '../config/service-config';
import { TemporalDefinitions } from './temporal-definitions';
import { temporalConnectionOptions } from './connection-options';

/**
 * Operator commands (`service definitions`, `service migrate`) talk to Temporal directly, with the worker's own
 * settings: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and SERVICE_TASK_QUEUE choose the registry and the tickets.
 */
export async function withDefinitions<T>(fn: (definitions: TemporalDefinitions, where: string) => Promise<T>): Promise<T> {
  const loaded = loadServiceConfig(process.env);
  if (!loaded.config) throw new Error(`the service configuration is invalid:\n${loaded.problems.join('\n')}`);
  const { address, namespace, taskQueue } = loaded.config.temporal;
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...temporalConnectionOptions(loaded.config.temporal), connectTimeout: 5_000 });
  } catch (error) {
    throw new Error(`Temporal at ${address} could not be reached (set TEMPORAL_ADDRESS): ${(error as Error).message}`);
  }
  try {
    return await fn(new TemporalDefinitions(new Client({ connection, namespace }), connection, taskQueue), `${address}, namespace ${namespace}, task queue ${taskQueue}`);
  } finally {
    await connection.close();
  }
}
