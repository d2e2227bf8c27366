import { Client, Connection } from '@temporalio/client';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { startServiceStack, type ServiceStack } from './service-stack';

export interface TrackerStack {
  stack: ServiceStack;
  /** A Temporal client of the test's own, to look at the workflows behind the service's back. */
  client: Client;
  stop(): Promise<void>;
}

/**
 * The service's gateway and worker with the tracker simulator wired in both ways: the service reads and writes the
 * tracker with the given credentials, and the tracker's webhooks, signed with `secret`, go to the gateway.
 */
export async function startTrackerStack(
  temporalAddress: string, tracker: TrackerSimulator, secret: string, env: NodeJS.ProcessEnv, options: { workerScript?: string } = {},
): Promise<TrackerStack> {
  const stack = await startServiceStack(temporalAddress, { TRACKER_WEBHOOK_SECRET: secret, TRACKER_BASE_URL: tracker.url, ...env }, options);
  tracker.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/tracker`, secret });
  const connection = await Connection.connect({ address: temporalAddress });
  return {
    stack,
    client: new Client({ connection }),
    stop: async () => {
      await connection.close();
      await stack.stop();
    },
  };
}
