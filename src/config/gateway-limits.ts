/**
 * The gateway's limits on what clients of its public port can hold (issue 41 point 4), read by service-config.ts and
 * enforced by src/gateway/pending-body-budget.ts and src/gateway/server-options.ts. Here so the configuration layer
 * owns its defaults without importing the gateway.
 */

export const MIB = 1024 * 1024;

export interface PendingBodyLimits {
  /** Bodies read but not yet authenticated, over all routes (SERVICE_GATEWAY_MAX_PENDING_BODIES). */
  maxBodies: number;
  /** The same per route, so one route under attack leaves room for the others (SERVICE_GATEWAY_MAX_PENDING_BODIES_PER_ROUTE). */
  maxBodiesPerRoute: number;
  /** Bytes those bodies hold together (SERVICE_GATEWAY_MAX_PENDING_BODY_MIB). */
  maxBytes: number;
}

export const DEFAULT_PENDING_BODY_LIMITS: PendingBodyLimits = { maxBodies: 64, maxBodiesPerRoute: 32, maxBytes: 64 * MIB };

/**
 * The least SERVICE_GATEWAY_MAX_PENDING_BODY_MIB may be: one body of the largest route limit (WEBHOOK_BODY_LIMIT_BYTES,
 * 8 MiB, src/gateway/webhook-body.ts) must fit, or such a delivery could never be read. A unit test keeps the two equal.
 */
export const MIN_PENDING_BODY_MIB = 8;

/**
 * Connections the public port holds at once. Node drops new connections past it, probes included, so it is set well
 * above what the pending-body caps let webhook bodies hold: a flood of bodies past those caps is answered 503 and
 * each connection closed, and does not reach this cap. Each connection costs a few KiB of the gateway's memory plus
 * its socket buffers in the kernel.
 */
export const DEFAULT_GATEWAY_MAX_CONNECTIONS = 1_024;
