import { Worker } from 'node:worker_threads';
import { PortInUseError } from '../http/listen';
import { LIVENESS_BODY } from '../health/health-endpoints';

/** The probes the thread answers itself, by path: the answers the public port gives (routes/health-api.ts). */
const THREAD_ANSWERS: Readonly<Record<string, unknown>> = { '/api/v1/health': { status: 'ok' }, '/api/v1/health/live': LIVENESS_BODY };

/**
 * The gateway's port apart (SERVICE_GATEWAY_METRICS_PORT) served by a thread of its own, so that a health probe is
 * answered even while the gateway's event loop is busy. Under a flood of forged webhooks the gateway's one thread
 * spends nearly all its time opening, refusing and closing connections, and its event loop stalled for up to 241 ms
 * (bench:flood): a probe answered on that loop waited as long. The thread answers `/api/v1/health` and `/live` from a
 * heartbeat the event loop writes into shared memory: alive while the loop has run in the last
 * PROBE_STALE_AFTER_MS, and 503 once it has not (a loop stuck that long is a gateway to restart). Everything else on
 * the port (`/metrics`, `/ready`, the 404s) is asked of the event loop and answered when it answers.
 */

/** How long the event loop may go without a heartbeat before the probes say it is unresponsive. */
export const PROBE_STALE_AFTER_MS = 5_000;
/** How often the event loop writes its heartbeat. */
const HEARTBEAT_EVERY_MS = 100;

/** A request the thread hands to the event loop, and the answer it writes back. */
export interface ForwardedRequest {
  method: string;
  path: string;
  authorization?: string;
}
export interface ForwardedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ProbeThreadOptions {
  host: string;
  port: number;
  /** What the event loop answers for every request the thread does not answer itself. */
  answer: (request: ForwardedRequest) => Promise<ForwardedAnswer>;
  staleAfterMs?: number;
}

export interface ProbePort {
  port: number;
  url: string;
  close(): Promise<void>;
}

/**
 * The thread's program, plain CommonJS run with `eval`: it must not depend on how this module was compiled (the
 * service runs from dist/, the tests from TypeScript source), and it needs nothing but Node's own modules.
 */
const THREAD_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const { createServer } = require('node:http');
const beat = new BigInt64Array(workerData.heartbeat);
const pending = new Map();
let next = 0;
const send = (res, head, status, headers, body) => {
  res.writeHead(status, headers);
  res.end(head ? undefined : body);
};
const json = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const server = createServer((req, res) => {
  const path = (req.url || '').split('?')[0];
  const head = req.method === 'HEAD';
  if ((req.method === 'GET' || head) && Object.hasOwn(workerData.answers, path)) {
    const silent = Date.now() - Number(Atomics.load(beat, 0));
    if (silent > workerData.staleAfterMs) {
      const body = JSON.stringify({ status: 'unresponsive', message: 'the gateway\\'s event loop has not run for ' + silent + ' ms' });
      return send(res, head, 503, json, body);
    }
    return send(res, head, 200, json, JSON.stringify(workerData.answers[path]));
  }
  const id = next++;
  pending.set(id, { res, head });
  res.on('close', () => pending.delete(id));
  parentPort.postMessage({ type: 'request', id, request: { method: req.method, path, authorization: req.headers.authorization } });
});
parentPort.on('message', (message) => {
  if (message.type === 'answer') {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (waiting) send(waiting.res, waiting.head, message.answer.status, message.answer.headers, message.answer.body);
  } else if (message.type === 'close') {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  }
});
server.on('error', (error) => parentPort.postMessage({ type: 'error', code: error.code, message: error.message }));
server.listen(workerData.port, workerData.host, () => parentPort.postMessage({ type: 'listening', port: server.address().port }));
`;

type FromThread =
  | { type: 'listening'; port: number }
  | { type: 'error'; code?: string; message: string }
  | { type: 'request'; id: number; request: ForwardedRequest };

/** Starts the thread listening on `host:port`; resolves once it listens, rejects when it cannot. */
export function startProbeThread(options: ProbeThreadOptions): Promise<ProbePort> {
  const heartbeat = new SharedArrayBuffer(8);
  const beat = new BigInt64Array(heartbeat);
  Atomics.store(beat, 0, BigInt(Date.now()));
  const beating = setInterval(() => Atomics.store(beat, 0, BigInt(Date.now())), HEARTBEAT_EVERY_MS);
  beating.unref();
  const worker = new Worker(THREAD_PROGRAM, {
    eval: true,
    workerData: { heartbeat, host: options.host, port: options.port, staleAfterMs: options.staleAfterMs ?? PROBE_STALE_AFTER_MS, answers: THREAD_ANSWERS },
  });
  // The thread never keeps the process alive by itself: the gateway's stop closes it.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const stop = async () => {
    clearInterval(beating);
    worker.postMessage({ type: 'close' });
    await exited;
  };
  return new Promise((resolve, reject) => {
    let listening = false;
    worker.on('message', (message: FromThread) => {
      if (message.type === 'listening') {
        listening = true;
        const shownHost = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;
        resolve({ port: message.port, url: `http://${shownHost}:${message.port}`, close: stop });
      } else if (message.type === 'error' && !listening) {
        void worker.terminate();
        clearInterval(beating);
        reject(message.code === 'EADDRINUSE'
          ? new PortInUseError(`gateway metrics: port ${options.port} on ${options.host} is already in use (is another instance running?)`)
          : new Error(`gateway metrics: ${message.message}`));
      } else if (message.type === 'request') {
        options.answer(message.request).then(
          (answer) => worker.postMessage({ type: 'answer', id: message.id, answer }),
          () => worker.postMessage({ type: 'answer', id: message.id, answer: { status: 500, headers: { 'Content-Type': 'application/json' }, body: '{"error":{"code":"internal","message":"the answer failed"}}' } }),
        );
      }
    });
    worker.once('error', (error) => {
      clearInterval(beating);
      if (!listening) reject(error);
    });
  });
}
