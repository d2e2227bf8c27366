import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { listen as listenServer } from '../http/listen';

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
