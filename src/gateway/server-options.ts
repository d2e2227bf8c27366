import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';

/**
 * The HTTP server of the gateway's public port, with the limits that bound what a client can hold (issue 41 point 4).
 * One function for src/gateway/server.ts and the tests that attack the gateway, so both run the same server.
 */

export const GATEWAY_HTTP_TIMEOUTS = {
  /** Providers send their headers at once; a client trickling them (slowloris) is cut after this. */
  headersTimeoutMs: 10_000,
  /** A webhook of the largest accepted size arrives in seconds; a sender trickling a body holds a connection no longer. */
  requestTimeoutMs: 60_000,
  /** An idle keep-alive connection is closed after this (Node's own default, stated so that it is a decision). */
  keepAliveTimeoutMs: 5_000,
  /**
   * How often Node checks the two timeouts above (its default is 30 s, which would let a slow sender hold its
   * connection up to 30 s past them). The check walks the connections: at 1,024 it costs microseconds.
   */
  checkIntervalMs: 1_000,
} as const;

export function gatewayServerOptions(): ServerOptions {
  return {
    headersTimeout: GATEWAY_HTTP_TIMEOUTS.headersTimeoutMs,
    requestTimeout: GATEWAY_HTTP_TIMEOUTS.requestTimeoutMs,
    keepAliveTimeout: GATEWAY_HTTP_TIMEOUTS.keepAliveTimeoutMs,
    connectionsCheckingInterval: GATEWAY_HTTP_TIMEOUTS.checkIntervalMs,
  };
}

/** The public port's server: the options above, and `maxConnections` (a property, not an option, in Node). */
export function createGatewayServer(app: RequestListener, limits: { maxConnections: number }): Server {
  const server = createServer(gatewayServerOptions(), app);
  server.maxConnections = limits.maxConnections;
  // Also set as a property: some Node lines read keepAliveTimeout only from the server, not from the options.
  server.keepAliveTimeout = GATEWAY_HTTP_TIMEOUTS.keepAliveTimeoutMs;
  return server;
}
