import { request } from 'node:http';

/**
 * A fetch that sends every request to one unix socket (the host's model proxy), whatever host the URL names. The
 * container has no network, so this socket is its only way out.
 */
export function unixSocketFetch(socketPath: string): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init?.body ?? null;
    const payload = body === null ? undefined : typeof body === 'string' ? body : Buffer.from(await new Response(body).arrayBuffer());
    return new Promise<Response>((resolve, reject) => {
      const req = request({ socketPath, path: `${url.pathname}${url.search}`, method: init?.method ?? 'GET', headers: { ...headers, host: 'model-proxy' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: responseHeaders }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      init?.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
      req.end(payload);
    });
  }) as typeof fetch;
}
