import type { Connection } from '@temporalio/client';
import type { State as WorkerState } from '@temporalio/worker';
import type { ServiceConfig } from '../config/service-config';
import type { PodmanAccount } from '../containers/podman-account';
import { podmanReadiness, PODMAN_CHECK } from './podman-readiness';
import { TEMPORAL_DEPENDENT_CHECKS, temporalReadiness } from './temporal-readiness';
import { SEARCH_ATTRIBUTE_TYPES } from '../../workflows/messages';
import { cachedFor } from './cached-check';
import { failed, passed, type ReadinessAnswer } from './readiness';
import { createReadinessProbe, type ReadinessCheck } from './readiness-probe';

/** Temporal's answers are kept this long: a few calls per probe, and probes come every few seconds. */
export const TEMPORAL_CHECK_TTL_MS = 3_000;
/** `podman info` forks and reads the account's storage; podman breaks rarely, so its answer is kept longer. */
export const PODMAN_CHECK_TTL_MS = 15_000;

function temporalCheck(connection: Connection, config: ServiceConfig): ReadinessCheck {
  const target = { address: config.temporal.address, namespace: config.temporal.namespace };
  return { name: 'temporal', dependents: TEMPORAL_DEPENDENT_CHECKS, run: cachedFor(TEMPORAL_CHECK_TTL_MS, () => temporalReadiness(connection, target, SEARCH_ATTRIBUTE_TYPES)) };
}

/** The gateway is ready when Temporal answers, the namespace exists and the search attributes are usable. */
export function gatewayReadiness(options: { connection: Connection; config: ServiceConfig; stopRequested: () => boolean }): () => Promise<ReadinessAnswer> {
  return createReadinessProbe({
    checks: [temporalCheck(options.connection, options.config)],
    stopping: () => (options.stopRequested() ? 'the gateway is shutting down: it accepts no new connections and answers the requests in flight' : undefined),
  });
}

const STOPPING_STATES: readonly WorkerState[] = ['STOPPING', 'DRAINING', 'DRAINED', 'STOPPED'];

/**
 * The worker is ready when it polls its task queue, Temporal is as the gateway needs it, and podman runs as the
 * containers' account (every container station needs it). A worker that runs no container station (no source host or
 * no model configured) passes no podman check: podman is not what it needs.
 */
export function workerReadiness(options: {
  connection: Connection; config: ServiceConfig; state: () => WorkerState; stopRequested: () => boolean; podmanAccount?: () => PodmanAccount;
}): () => Promise<ReadinessAnswer> {
  const polling: ReadinessCheck = {
    name: 'worker',
    run: async () => {
      const state = options.state();
      return state === 'RUNNING' ? passed('worker', `polling task queue ${options.config.temporal.taskQueue}`) : failed('worker', `the Temporal worker is ${state.toLowerCase()}`);
    },
  };
  return createReadinessProbe({
    checks: [
      polling, temporalCheck(options.connection, options.config),
      ...(options.podmanAccount ? [{ name: PODMAN_CHECK, run: cachedFor(PODMAN_CHECK_TTL_MS, () => podmanReadiness(options.podmanAccount!)) }] : []),
    ],
    stopping: () => (options.stopRequested() || STOPPING_STATES.includes(options.state())
      ? `the worker is shutting down: it polls no new tasks; running activities get ${options.config.shutdown.graceSeconds} s, then are cancelled`
      : undefined),
  });
}
