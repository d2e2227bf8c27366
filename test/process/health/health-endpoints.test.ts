import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { healthRequestHandler } from '../../../src/health/health-endpoints';
import { failed, readinessAnswer } from '../../../src/health/readiness';
import { listen, type ListeningServer } from '../../../src/http/listen';

let server: ListeningServer | undefined;
afterEach(async () => server?.close());

describe('healthRequestHandler (the worker\'s metrics port)', () => {
  it('answers /health/live and /health/ready and leaves other paths to the caller', async () => {
    const answer = healthRequestHandler(async () => readinessAnswer([failed('podman', 'podman info failed')]));
    server = await listen(createServer(async (req, res) => {
      if (await answer(req, res)) return;
      res.statusCode = 404;
      res.end('other');
    }), '127.0.0.1', 0, 'test metrics');
    const live = await fetch(`${server.url}/health/live`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'alive' }]);
    const ready = await fetch(`${server.url}/health/ready?verbose=1`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', failed: [{ name: 'podman', reason: 'podman info failed' }] });
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${server.url}/health/ready`, { method: 'POST' })).status).toBe(405);
  });
});
