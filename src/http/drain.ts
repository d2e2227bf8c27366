import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Stops a server the way an orchestrator expects of a terminating pod: it stops listening at once (new connections
 * are refused), answers the requests already in flight, and closes each connection after its answer, also a
 * keep-alive one that sends another request meanwhile. Whatever is still open after `graceMs` is cut. Resolves true
 * when everything was answered in time.
 */
export function drainServer(server: Server, graceMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const closeAfterAnswer = (_req: IncomingMessage, res: ServerResponse) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    };
    // Before the application's own listener, while the answer's headers can still be set.
    server.prependListener('request', closeAfterAnswer);
    // Node leaves a keep-alive connection that was busy at close() open once its answer is out: close it as it idles.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    let inTime = true;
    const cut = setTimeout(() => {
      inTime = false;
      server.closeAllConnections();
    }, graceMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      server.off('request', closeAfterAnswer);
      resolve(inTime);
    });
    server.closeIdleConnections();
  });
}
