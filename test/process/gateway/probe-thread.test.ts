/**
 * The port apart's own thread (src/gateway/probe-thread.ts): the health probe is answered while the gateway's event
 * loop is blocked, and says the loop is unresponsive once it has been blocked too long. The prober is a process of
 * its own (this process's loop is the one blocked); real HTTP on loopback.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startProbeThread, type ProbePort } from '../../../src/gateway/probe-thread';

const ports: ProbePort[] = [];
afterEach(async () => { await Promise.all(ports.splice(0).map((port) => port.close())); });

/** Asks `url` at each of `delaysMs` after it printed `ready`; prints one JSON line of what each probe got and when. */
const PROBER = `
const [url, delays] = [process.argv[1], JSON.parse(process.argv[2])];
const probe = (delay) => new Promise((resolve) => setTimeout(async () => {
  try {
    const answer = await fetch(url);
    resolve({ status: answer.status, body: await answer.json(), answered_at: Date.now() });
  } catch (error) { resolve({ error: String(error), answered_at: Date.now() }); }
}, delay));
console.log('ready');
Promise.all(delays.map(probe)).then((probes) => console.log(JSON.stringify(probes)));
`;

function prober(url: string, delaysMs: number[]): { started: Promise<void>; probes: Promise<Array<{ status?: number; body?: { status: string; message?: string }; answered_at: number }>> } {
  const child = spawn(process.execPath, ['-e', PROBER, url, JSON.stringify(delaysMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => { started = resolve; });
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.startsWith('ready\n')) started();
  });
  const probes = new Promise<Array<{ status?: number; body?: { status: string; message?: string }; answered_at: number }>>((resolve, reject) => {
    child.on('exit', () => {
      const line = output.split('\n').find((text) => text.startsWith('['));
      if (line) resolve(JSON.parse(line));
      else reject(new Error(`the prober printed no result: ${output}`));
    });
  });
  return { started: startedPromise, probes };
}

/** Keeps this process's event loop busy for `ms`, as a saturated gateway's is; returns when it let go. */
function blockEventLoop(ms: number): number {
  const until = Date.now() + ms;
  while (Date.now() < until) { /* the gateway's loop, busy */ }
  return Date.now();
}

describe('the port apart\'s probe thread', () => {
  it('answers the health probe while the event loop is blocked, and 503 once the loop has not run for longer than it may', async () => {
    const answered: string[] = [];
    const port = await startProbeThread({
      host: '127.0.0.1', port: 0, staleAfterMs: 1_500,
      answer: async (request) => {
        answered.push(request.path);
        return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'from the event loop' };
      },
    });
    ports.push(port);
    const { started, probes } = prober(`${port.url}/api/v1/health`, [300, 3_000]);
    await started;
    // Blocked for 5 s: the first probe comes 0.3 s in (the loop ran moments ago), the second 3 s in (it has not run for 3 s).
    const released = blockEventLoop(5_000);
    const [early, late] = await probes;
    expect(early).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(late).toMatchObject({ status: 503, body: { status: 'unresponsive', message: expect.stringMatching(/event loop has not run for \d+ ms/) } });
    // Both were answered by the thread while the loop was still blocked, not after it let go.
    expect(early!.answered_at).toBeLessThan(released);
    expect(late!.answered_at).toBeLessThan(released);
    // Once the loop runs again, the probe is healthy again; what the thread does not answer, the loop does.
    expect((await fetch(`${port.url}/api/v1/health/live`).then((r) => r.json()))).toEqual({ status: 'alive' });
    const other = await fetch(`${port.url}/metrics`);
    expect([other.status, await other.text()]).toEqual([200, 'from the event loop']);
    expect(answered).toEqual(['/metrics']);
  });

  it('refuses a port that is taken, naming it', async () => {
    const first = await startProbeThread({ host: '127.0.0.1', port: 0, answer: async () => ({ status: 404, headers: {}, body: '' }) });
    ports.push(first);
    await expect(startProbeThread({ host: '127.0.0.1', port: first.port, answer: async () => ({ status: 404, headers: {}, body: '' }) }))
      .rejects.toThrow(`gateway metrics: port ${first.port} on 127.0.0.1 is already in use`);
  });
});
