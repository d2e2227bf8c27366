import type { Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts an Express app and resolves with the server and its URL once it is listening. */
export function listen(app: Express, port: number, host: string): Promise<{ server: Server; url: string }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) { reject(error); return; }
      const address = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
      resolve({ server, url: `http://${shownHost}:${address.port}` });
    });
  });
}

/** Closes a server, cutting open keep-alive connections so tests do not wait for them. */
export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
