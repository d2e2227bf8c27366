import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainServer } from '../../../src/http/drain';
import { listen, type ListeningServer } from '../../../src/http/listen';

let server: ListeningServer | undefined;
afterEach(() => {
  server?.server.closeAllConnections();
  server?.server.close();
  server = undefined;
});

/** A server whose /slow answers only when `release` is called. */
async function slowServer(): Promise<{ url: string; port: number; release: () => void; started: Promise<void> }> {
  let release!: () => void;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => { markStarted = resolve; });
  const released = new Promise<void>((resolve) => { release = resolve; });
  server = await listen(createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/slow') {
      markStarted();
      void released.then(() => res.end('slow answer'));
    } else {
      res.end('fast answer');
    }
  }), '127.0.0.1', 0, 'drain test');
  return { url: server.url, port: server.port, release, started };
}

function get(port: number, path: string, agent: Agent): Promise<{ body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      res.on('end', () => resolve({ body, connection: res.headers.connection }));
    }).on('error', reject).end();
  });
}

describe('drainServer', () => {
  it('refuses new connections at once, answers the request in flight, then closes its keep-alive connection', async () => {
    const { url, port, release, started } = await slowServer();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(port, '/fast', agent)).connection).toBe('keep-alive');
    const inFlight = get(port, '/slow', agent);
    await started;
    const drained = drainServer(server!.server, 5_000);
    await expect(fetch(`${url}/fast`)).rejects.toThrow();
    release();
    expect((await inFlight).body).toBe('slow answer');
    expect(await drained).toBe(true);
    agent.destroy();
  });

  it('answers a request that arrives on an open connection while draining, and closes that connection after it', async () => {
    const { port, release, started } = await slowServer();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => { received += chunk.toString(); });
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await started;
    const drained = drainServer(server!.server, 5_000);
    socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    release();
    await ended;
    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toContain('slow answer');
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200[\s\S]*Connection: close[\s\S]*fast answer$/i);
    expect(await drained).toBe(true);
  });

  it('cuts what is still open at the end of the grace and says so', async () => {
    const { port, started } = await slowServer();
    const agent = new Agent({ keepAlive: true });
    const never = get(port, '/slow', agent).catch((error: Error) => error);
    await started;
    const began = Date.now();
    expect(await drainServer(server!.server, 200)).toBe(false);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(await never).toBeInstanceOf(Error);
    agent.destroy();
  });
});
