import type { Request, Response } from 'express';
import type { Logger } from '../logging/logger';
import { TemporalUnavailableError } from '../temporal/temporal-unavailable-error';
import { consoleSecurityHeaders, newNonce } from './content-security-policy';
import type { SafeHtml } from './html';
import { errorPage } from './pages/message-pages';
import { pageShell } from './pages/page-shell';

export class ConsoleError extends Error {
  constructor(readonly status: number, readonly title: string, message: string) {
    super(message);
  }
}

export interface PageOptions {
  live?: boolean;
  signedIn?: boolean;
}

export interface ConsoleResponses {
  send(res: Response, status: number, title: string, body: SafeHtml, options?: PageOptions): void;
  sendFragment(res: Response, body: SafeHtml): void;
  handle(fn: (req: Request, res: Response) => Promise<void>): (req: Request, res: Response) => Promise<void>;
}

/**
 * How the console answers, shared by all its routes so that every answer carries the security headers with a nonce
 * of its own, and every failure of a page becomes an error page of the console.
 */
export function createConsoleResponses(deps: { readonly logger: Logger }): ConsoleResponses {
  const send = (res: Response, status: number, title: string, body: SafeHtml, options: PageOptions = {}) => {
    const nonce = newNonce();
    res.status(status).set(consoleSecurityHeaders(nonce)).type('html').send(pageShell({ title, nonce, body, ...options }));
  };
  const sendFragment = (res: Response, body: SafeHtml) => {
    res.status(200).set(consoleSecurityHeaders(newNonce())).type('html').send(body.text);
  };
  const handle = (fn: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      await fn(req, res);
    } catch (error) {
      if (error instanceof ConsoleError) return send(res, error.status, error.title, errorPage(error.title, error.message));
      if (error instanceof TemporalUnavailableError) {
        deps.logger.warn('console could not read Temporal', { path: req.path, error: error.message });
        return send(res, 503, 'Temporal unavailable', errorPage('Temporal unavailable', 'the workflows could not be read (Temporal or the worker is unavailable); the page tries again on reload'));
      }
      deps.logger.error('console page failed', { path: req.path, error: (error as Error).message });
      send(res, 500, 'Console error', errorPage('Console error', (error as Error).message));
    }
  };
  return { send, sendFragment, handle };
}
