/** A fetch that records every request and its answer, so a contract test can check what a simulator sent. */
export interface Exchange { method: string; path: string; status: number; body: unknown }

export function recordingFetch(into: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.clone().text();
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    into.push({ method: (init?.method ?? 'GET').toUpperCase(), path: url.pathname, status: response.status, body: text ? JSON.parse(text) : undefined });
    return response;
  };
}

/** The first `METHOD /path/{param}` route (OpenAPI-style template) that an exchange answered. */
export function routeOf(routes: string[], exchange: Exchange): string | undefined {
  return routes.find((route) => {
    const [method, template = ''] = route.split(' ');
    return method === exchange.method && new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(exchange.path);
  });
}
