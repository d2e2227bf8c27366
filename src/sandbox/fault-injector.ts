/**
 * Faults on demand for the simulators: the failures the clients and the effect journal must survive, injected per
 * request so a test can say "the next comment write fails with 503" and nothing else changes.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Socket } from 'node:net';

export interface FaultMatch {
  method?: string;
  /** A regular expression (or a string compiled as one) tested against the request path without the query. */
  path?: RegExp | string;
  /**
   * Only requests whose header does NOT match: a fault campaign aims at the service's requests and lets the person's
   * own clicks (another account's credentials) through.
   */
  unlessHeader?: { name: string; pattern: RegExp | string };
}

export type FaultKind =
  /** Answer with this status (and a provider-shaped error body) without touching state. */
  | { kind: 'status'; status: number; body?: unknown }
  /**
   * Answer 429 with Retry-After (`variant: 'secondary'` answers like GitHub's secondary limit: 403 + Retry-After;
   * `variant: 'primary'` like its primary limit: 403 with x-ratelimit-remaining 0 and x-ratelimit-reset).
   */
  | { kind: 'rate-limit'; retryAfterSeconds: number; variant?: 'plain' | 'primary' | 'secondary' }
  /** Wait, then handle the request normally. */
  | { kind: 'delay'; ms: number }
  /** Apply the write, then never answer: hold the response and drop the connection after `holdMs` (default 30 s). */
  | { kind: 'apply-then-timeout'; holdMs?: number }
  /** Drop the connection without applying anything. */
  | { kind: 'drop-connection' };

export type FaultRule = FaultKind & {
  match?: FaultMatch;
  /** How many matching requests this rule applies to; default 1. */
  times?: number;
};

export interface FaultRecord {
  method: string;
  path: string;
  kind: FaultKind['kind'];
}

export interface FaultInjector {
  enqueue(rule: FaultRule): void;
  clear(): void;
  /** Rules not used up yet. */
  pending(): number;
  /** Faults that were applied, in order. */
  readonly applied: FaultRecord[];
}

/** Builds error bodies in the simulated provider's own shape. */
export type ErrorBodyFactory = (status: number, message: string) => unknown;

export interface FaultInjectorHandle extends FaultInjector {
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  /** Destroys held connections (called on simulator close). */
  releaseAll(): void;
}

export function createFaultInjector(errorBody: ErrorBodyFactory): FaultInjectorHandle {
  const rules: Array<FaultRule & { remaining: number }> = [];
  const applied: FaultRecord[] = [];
  const held = new Set<Socket>();

  const take = (method: string, path: string, header: (name: string) => string | undefined): FaultRule | undefined => {
    const index = rules.findIndex((rule) => matches(rule.match, method, path, header));
    if (index < 0) return undefined;
    const rule = rules[index];
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) rules.splice(index, 1);
    return rule;
  };

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const rule = take(req.method, req.path, (name) => req.get(name));
    if (!rule) { next(); return; }
    applied.push({ method: req.method, path: req.path, kind: rule.kind });
    switch (rule.kind) {
      case 'status':
        res.status(rule.status).json(rule.body ?? errorBody(rule.status, `Injected fault: status ${rule.status}`));
        return;
      case 'rate-limit': {
        const variant = rule.variant ?? 'plain';
        res.setHeader('retry-after', String(rule.retryAfterSeconds));
        if (variant === 'primary') {
          res.removeHeader('retry-after');
          res.setHeader('x-ratelimit-limit', '5000');
          res.setHeader('x-ratelimit-remaining', '0');
          res.setHeader('x-ratelimit-used', '5000');
          res.setHeader('x-ratelimit-reset', String(Math.ceil(Date.now() / 1000) + rule.retryAfterSeconds));
          res.status(403).json(errorBody(403, 'API rate limit exceeded for user.'));
        } else if (variant === 'secondary') {
          res.status(403).json(errorBody(403, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'));
        } else {
          res.status(429).json(errorBody(429, 'Rate limit exceeded.'));
        }
        return;
      }
      case 'delay':
        setTimeout(next, rule.ms);
        return;
      case 'drop-connection':
        req.socket.destroy();
        return;
      case 'apply-then-timeout': {
        const socket = req.socket;
        held.add(socket);
        // The handler runs and changes state; its answer is swallowed, and the connection is dropped later.
        res.end = ((..._args: unknown[]) => res) as Response['end'];
        const timer = setTimeout(() => { held.delete(socket); socket.destroy(); }, rule.holdMs ?? 30_000);
        socket.once('close', () => { clearTimeout(timer); held.delete(socket); });
        next();
        return;
      }
    }
  };

  return {
    middleware,
    applied,
    enqueue(rule) { rules.push({ ...rule, remaining: rule.times ?? 1 }); },
    clear() { rules.length = 0; },
    pending() { return rules.length; },
    releaseAll() { for (const socket of held) socket.destroy(); held.clear(); },
  };
}

function matches(match: FaultMatch | undefined, method: string, path: string, header: (name: string) => string | undefined = () => undefined): boolean {
  if (!match) return true;
  if (match.unlessHeader) {
    const pattern = typeof match.unlessHeader.pattern === 'string' ? new RegExp(match.unlessHeader.pattern) : match.unlessHeader.pattern;
    if (pattern.test(header(match.unlessHeader.name) ?? '')) return false;
  }
  if (match.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (match.path !== undefined) {
    const pattern = typeof match.path === 'string' ? new RegExp(match.path) : match.path;
    if (!pattern.test(path)) return false;
  }
  return true;
}

/**
 * Faults of webhook delivery, which no simulator endpoint can inject: the simulators send to this relay, which
 * forwards each delivery to the gateway byte for byte (so signatures stay valid), or drops it (the sender is told
 * 200, as a provider whose delivery was lost in between would be), sends it twice, or holds it back so that later
 * deliveries overtake it. The poller must catch up with what was dropped.
 */
export interface WebhookFaultOdds {
  drop: number;
  duplicate: number;
  /** Held back up to maxDelayMs; deliveries sent meanwhile arrive first (reordered). */
  delay: number;
  maxDelayMs: number;
}

export type WebhookFate = { kind: 'forward' } | { kind: 'drop' } | { kind: 'duplicate' } | { kind: 'delay'; ms: number };

/** Draws a delivery's fate from the odds with `random` (a seeded generator in the campaign). Pure. */
export function webhookFate(odds: WebhookFaultOdds, random: () => number): WebhookFate {
  const roll = random();
  if (roll < odds.drop) return { kind: 'drop' };
  if (roll < odds.drop + odds.duplicate) return { kind: 'duplicate' };
  if (roll < odds.drop + odds.duplicate + odds.delay) return { kind: 'delay', ms: Math.floor(random() * odds.maxDelayMs) };
  return { kind: 'forward' };
}

export interface WebhookRelayRecord {
  at: number;
  path: string;
  event: string;
  fate: WebhookFate['kind'];
  /** The gateway's answers (two for a duplicate), or the error when it could not be reached. */
  answers: Array<number | string>;
}

export interface WebhookRelay {
  url: string;
  /** Where deliveries go: `<target><path>` for a delivery posted to `<relay url><path>`. */
  setTarget(target: string): void;
  setOdds(odds: WebhookFaultOdds): void;
  readonly records: WebhookRelayRecord[];
  /** Resolves once every held delivery was forwarded. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookRelay(options: { target: string; odds: WebhookFaultOdds; random: () => number; host?: string }): Promise<WebhookRelay> {
  const { createServer } = await import('node:http');
  let target = options.target;
  let odds = options.odds;
  const records: WebhookRelayRecord[] = [];
  const pending = new Set<Promise<void>>();
  const forward = async (path: string, headers: Record<string, string>, body: Buffer, record: WebhookRelayRecord) => {
    try {
      const response = await fetch(`${target}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      record.answers.push(response.status);
    } catch (error) {
      record.answers.push((error as Error).message);
    }
  };
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
      }
      const path = req.url ?? '/';
      const fate = webhookFate(odds, options.random);
      // GitHub and GitLab name the event in a header; Jira in the body.
      const event = headers['x-github-event'] ?? headers['x-gitlab-event'] ?? (() => {
        try { return String((JSON.parse(body.toString('utf8')) as { webhookEvent?: unknown }).webhookEvent ?? ''); } catch { return ''; }
      })();
      const record: WebhookRelayRecord = { at: Date.now(), path, event, fate: fate.kind, answers: [] };
      records.push(record);
      if (fate.kind === 'drop') { res.writeHead(200).end('{}'); return; }
      if (fate.kind === 'delay') {
        res.writeHead(202).end('{}');
        track(new Promise<void>((resolve) => setTimeout(resolve, fate.ms)).then(() => forward(path, headers, body, record)));
        return;
      }
      const work = forward(path, headers, body, record).then(() => (fate.kind === 'duplicate' ? forward(path, headers, body, record) : undefined));
      track(work);
      void work.then(() => res.writeHead(typeof record.answers[0] === 'number' ? record.answers[0] : 502).end('{}'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    records,
    setTarget(next) { target = next; },
    setOdds(next) { odds = next; },
    drain: async () => { while (pending.size > 0) await Promise.allSettled([...pending]); },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * A simulator without a fault injector of its own (the model's) behind one: an HTTP front that applies the
 * injector's rules and passes every other request through unchanged.
 */
export async function startFaultyFront(options: { upstream: string; errorBody: ErrorBodyFactory; host?: string }): Promise<{ url: string; faults: FaultInjectorHandle; close(): Promise<void> }> {
  const express = (await import('express')).default;
  const faults = createFaultInjector(options.errorBody);
  const app = express();
  app.use(faults.middleware);
  app.use(express.raw({ type: () => true, limit: '50mb' }));
  app.use((req: Request, res: Response) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
    }
    const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
    fetch(`${options.upstream}${req.originalUrl}`, { method: req.method, headers, body })
      .then(async (answer) => {
        res.status(answer.status);
        answer.headers.forEach((value, name) => { if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name)) res.setHeader(name, value); });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch((error: Error) => { res.status(502).json(options.errorBody(502, `upstream: ${error.message}`)); });
  });
  const server = await new Promise<import('node:http').Server>((resolve) => { const s = app.listen(0, options.host ?? '127.0.0.1', () => resolve(s)); });
  const address = server.address() as { port: number };
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    faults,
    close: () => new Promise<void>((resolve) => { faults.releaseAll(); server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
