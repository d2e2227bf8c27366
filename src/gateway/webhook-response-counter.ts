import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ServiceMetrics } from '../metrics/service-metrics';
import type { WebhookSource } from './webhook-reply';

/**
 * The code counted for a webhook request whose sender hung up before any answer was written (nginx's convention):
 * the provider saw no status and will redeliver, whatever the gateway decided afterwards.
 */
export const CLIENT_CLOSED_CODE = '499';

/**
 * Counts every answer of a webhook route once in service_webhook_responses_total{source,code}, whoever writes it:
 * the route's own reply, or the gateway's error handler after an exception the route did not catch. The count is
 * taken when the response ends: at `finish` (the answer is written), or at `close` when the connection went away
 * before that. Node emits each at most once per response and `finish` always before `close`, so one flag makes the
 * count exactly one, whatever path the request took.
 */
export function webhookResponseCounter(source: WebhookSource, metrics: Pick<ServiceMetrics, 'webhookResponses'>): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      metrics.webhookResponses.inc({ source, code: res.headersSent ? String(res.statusCode) : CLIENT_CLOSED_CODE });
    };
    res.once('finish', count);
    res.once('close', count);
    next();
  };
}
