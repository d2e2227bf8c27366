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

  const take = (method: string, path: string): FaultRule | undefined => {
    const index = rules.findIndex((rule) => matches(rule.match, method, path));
    if (index < 0) return undefined;
    const rule = rules[index];
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) rules.splice(index, 1);
    return rule;
  };

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const rule = take(req.method, req.path);
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

function matches(match: FaultMatch | undefined, method: string, path: string): boolean {
  if (!match) return true;
  if (match.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (match.path !== undefined) {
    const pattern = typeof match.path === 'string' ? new RegExp(match.path) : match.path;
    if (!pattern.test(path)) return false;
  }
  return true;
}
