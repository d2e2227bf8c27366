import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import type { Logger } from '../logging/logger';
import { errorBody } from './http-errors';

/**
 * The gateway's last error handler: an exception a route did not answer itself (a bug, a rejected promise) becomes
 * 500; an error Express raised with a status of its own (a malformed URL, a body parser's refusal) keeps that
 * status. An answer already under way cannot be replaced, so that error goes to Express, which closes the connection.
 */
export function gatewayErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: Error & { status?: number; type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      logger.error('gateway error after the answer was sent', { error: error.message });
      return next(error);
    }
    const status = typeof error.status === 'number' && error.status >= 400 && error.status < 600 ? error.status : 500;
    const code = error.type === 'entity.too.large' ? 'body_too_large' : status === 500 ? 'internal_error' : 'bad_request';
    if (status === 500) logger.error('unhandled gateway error', { error: error.message });
    res.status(status).json(errorBody(code, error.message));
  };
}
