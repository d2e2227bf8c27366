import { createServer, type Server } from 'node:http';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Tripwires that only the host can trip, for tests that plant code in a container's workspace and must prove it never
 * ran on the host: a folder that exists on the host only (a container has its own /tmp and never sees this one, so
 * a payload run inside a container cannot create anything here) and an HTTP listener on the host's loopback (a task
 * container has no network, so every request it receives came from a host process).
 *
 * A payload writes `<dir>/<name>` with its `env` (which shows what it could read: the worker's credentials) and asks
 * the listener for `/tripped/<name>`. Redirected git traffic (insteadOf, http.proxy, a submodule URL) shows up as
 * other requests to the listener, with or without the credential in its Authorization header.
 */
export interface HostTripwires {
  /** The host-only folder payloads write to (world-writable, so a payload run as any host account can trip it). */
  dir: string;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** A POSIX shell command list that trips the wire `name` both ways; always exits 0. `name`: letters, digits, `-`. */
  payload(name: string): string;
  /** An executable script (`#!/bin/sh`) running payload(name), reading and discarding its input. */
  script(name: string, tail?: string): string;
  /** Everything that tripped since the last reset, one readable line each (secrets named, never printed). */
  hits(secrets?: Record<string, string>): string[];
  reset(): void;
  close(): Promise<void>;
}

interface Request {
  method: string;
  url: string;
  authorization?: string;
  proxyAuthorization?: string;
}

export async function startHostTripwires(): Promise<HostTripwires> {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-tripwires-'));
  chmodSync(dir, 0o777);
  const requests: Request[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, proxyAuthorization: req.headers['proxy-authorization'] as string | undefined });
    req.resume();
    res.statusCode = 404;
    res.end('tripwire\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const payload = (name: string): string => {
    if (!/^[a-z0-9-]+$/i.test(name)) throw new Error(`tripwire name ${name}: letters, digits and - only`);
    const target = `${url}/tripped/${name}`;
    return `env > '${dir}/${name}' 2>/dev/null; (curl -s -m 3 -o /dev/null '${target}' || wget -q -T 3 -O /dev/null '${target}') >/dev/null 2>&1; true`;
  };

  const describe = (text: string, secrets: Record<string, string>) => {
    const held = Object.entries(secrets).filter(([, value]) => value && text.includes(value)).map(([label]) => label);
    return held.length ? ` (holds ${held.join(', ')})` : '';
  };

  return {
    dir,
    url,
    payload,
    script: (name, tail = '') => `#!/bin/sh\n${payload(name)}\ncat >/dev/null 2>&1\n${tail}exit 0\n`,
    hits: (secrets = {}) => {
      const lines = [
        ...readdirSync(dir).sort().map((name) => `ran on the host: ${name}${describe(readFileSync(join(dir, name), 'utf8'), secrets)}`),
        ...requests.map((r) => {
          const header = [r.authorization, r.proxyAuthorization].filter(Boolean).join(' ');
          const decoded = header.replace(/basic\s+(\S+)/gi, (_, b64: string) => Buffer.from(b64, 'base64').toString('utf8'));
          return `the host sent ${r.method} ${r.url} to the tripwire listener${header ? ' with credentials' : ''}${describe(`${header} ${decoded}`, secrets)}`;
        }),
      ];
      const counts = new Map<string, number>();
      for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
      return [...counts].map(([line, count]) => (count > 1 ? `${line} (${count} times)` : line));
    },
    reset: () => {
      requests.length = 0;
      for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
