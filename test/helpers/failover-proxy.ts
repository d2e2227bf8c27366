import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FailoverProxy {
  url: string;
  /** Per upstream: requests it answered, and requests that failed on it (refused, reset) and went to the next. */
  readonly answered: Map<string, number>;
  readonly failedOver: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A load balancer in front of several gateways, as a team puts one in front of its replicas: requests go round-robin,
 * and a request whose upstream refuses or drops the connection before answering is sent to the next upstream (what
 * Envoy's `retry_on: connect-failure,reset` does). A gateway killed mid-request therefore costs a redelivery, never
 * the webhook; the service's deduplication makes the redelivery harmless.
 */
export async function startFailoverProxy(upstreams: string[]): Promise<FailoverProxy> {
  let next = 0;
  const answered = new Map<string, number>();
  const failedOver = new Map<string, number>();
  const forward = (upstream: string, req: IncomingMessage, body: Buffer) => new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
    const target = new URL(req.url ?? '/', upstream);
    const outgoing = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error('upstream timed out')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const start = next++;
      for (let i = 0; i < upstreams.length; i++) {
        const upstream = upstreams[(start + i) % upstreams.length]!;
        try {
          const answer = await forward(upstream, req, body);
          answered.set(upstream, (answered.get(upstream) ?? 0) + 1);
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
          return;
        } catch {
          failedOver.set(upstream, (failedOver.get(upstream) ?? 0) + 1);
        }
      }
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'no upstream answered' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    failedOver,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
