import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { tokensEqual } from './webhook-signature';
import { errorBody } from './http-errors';

/**
 * Bearer-token guard for operator routes (SPEC 5). Fails closed: no configured token disables the routes (503), a
 * missing or wrong header is 401, and a token in the query string is never looked at.
 */
export function requireBearerToken(token: string | undefined, variable: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!token) {
      res.status(503).json(errorBody('routes_disabled', `${variable} is not set: these routes are disabled`));
      return;
    }
    const header = req.get('authorization');
    const match = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    if (!match) {
      const hint = Object.keys(req.query).some((k) => /token|auth|key/i.test(k))
        ? ' (a token in the query string is not accepted)'
        : '';
      res.status(401).set('WWW-Authenticate', 'Bearer').json(errorBody('unauthorized', `missing Authorization: Bearer header${hint}`));
      return;
    }
    if (!tokensEqual(match[1]!.trim(), token)) {
      res.status(401).set('WWW-Authenticate', 'Bearer').json(errorBody('unauthorized', 'the bearer token is not valid for these routes'));
      return;
    }
    next();
  };
}
