import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { listen as listenServer } from '../http/listen';
import type { FaultInjectorHandle } from './fault-injector';
import type { WebhookSender } from './webhook-sender';

/** Starts a simulator's Express app and resolves with the server and its URL once it is listening. */
export async function listen(app: Express, port: number, host: string): Promise<{ server: Server; url: string }> {
  const listening = await listenServer(createServer(app), host, port, 'simulator');
  return { server: listening.server, url: listening.url };
}

/** Closes a server, cutting open keep-alive connections so tests do not wait for them. */
export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/**
 * Serves a simulator that sends webhooks: closing it releases held faults and delivers the webhooks already queued
 * before the server goes, so a test never loses a delivery it caused.
 */
export async function serveSimulator(
  app: Express,
  options: { port?: number; host?: string },
  parts: { faults: FaultInjectorHandle; webhooks: WebhookSender },
): Promise<{ url: string; close(): Promise<void> }> {
  const started = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: started.url,
    async close() {
      parts.faults.releaseAll();
      await parts.webhooks.flush();
      await closeServer(started.server);
    },
  };
}
