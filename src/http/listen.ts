import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningServer {
  server: Server;
  port: number;
  /** A URL clients on this machine can use (a wildcard bind is reported as 127.0.0.1). */
  url: string;
  close(): Promise<void>;
}

export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
}

export async function listen(server: Server, host: string, port: number, what: string): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error.code === 'EADDRINUSE'
        ? new PortInUseError(`${what}: port ${port} on ${host} is already in use (is another instance running?)`)
        : error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    server,
    port: address.port,
    url: `http://${shownHost}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    }),
  };
}
